package dev.nightshift.spec.hash;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import dev.nightshift.spec.model.ResolvedPool;

/**
 * A hash with all its versions, the newest current. Digests SHA-256 over the canonical values in
 * the version's fixed input order, each length-prefixed so that two inputs can never trade values
 * unnoticed; keeps the first 128 bits. Since the order is part of a version, a version's inputs are
 * never reordered: a change of inputs is a new version.
 */
public final class HashScheme {

    /** Decides replacement (or, for in-place strategies, an in-place update with drain). */
    public static final HashScheme ROLL = new HashScheme("roll", List.of(new RollHashV1()));
    /** Decides a kubelet restart without drain when the roll hash is unchanged. */
    public static final HashScheme KUBELET = new HashScheme("kubelet", List.of(new KubeletHashV1()));

    private final String name;
    private final List<HashFunction> versions;
    private final MessageDigest prototype = sha256();

    public HashScheme(String name, List<HashFunction> versions) {
        if (versions.isEmpty()) {
            throw new IllegalArgumentException("a hash needs at least one version");
        }
        for (int i = 1; i < versions.size(); i++) {
            if (versions.get(i).version() <= versions.get(i - 1).version()) {
                throw new IllegalArgumentException("hash versions must be listed oldest first");
            }
        }
        this.name = name;
        this.versions = List.copyOf(versions);
    }

    public String name() {
        return name;
    }

    public int currentVersion() {
        return current().version();
    }

    private HashFunction current() {
        return versions.get(versions.size() - 1);
    }

    public StampedHash compute(ResolvedPool pool) {
        return compute(current(), pool);
    }

    /** The current version's inputs, for explaining a change. */
    public List<HashInput> inputs(ResolvedPool pool) {
        List<HashInput> inputs = new ArrayList<>();
        current().inputs(pool, (path, canonical, display) -> inputs.add(new HashInput(path, canonical, display.get())));
        return inputs;
    }

    /**
     * Whether a node stamped with {@code stamp} runs {@code desired}. A stamp from an older version
     * is compared with that version's hash of the desired spec, so upgrading Nightshift never rolls
     * a fleet; an unknown version is outdated.
     */
    public StampMatch match(StampedHash stamp, ResolvedPool desired) {
        if (stamp.version() == currentVersion()) {
            return compute(desired).value().equals(stamp.value()) ? StampMatch.CURRENT : StampMatch.OUTDATED;
        }
        Optional<HashFunction> old = versions.stream().filter(v -> v.version() == stamp.version()).findFirst();
        return old.filter(f -> compute(f, desired).value().equals(stamp.value())).isPresent()
                ? StampMatch.RESTAMP : StampMatch.OUTDATED;
    }

    private StampedHash compute(HashFunction function, ResolvedPool pool) {
        // Each input as "<length>:<value>", in the version's fixed order: the position names the
        // input, and the length keeps a value from ever being read as part of another, whatever
        // characters it holds. One buffer, one digest update.
        DigestText text = new DigestText();
        function.inputs(pool, text);
        MessageDigest digest = newDigest();
        byte[] full = digest.digest(text.bytes());
        return new StampedHash(function.version(), HexFormat.of().formatHex(full, 0, 16));
    }

    /** Collects canonical values for the digest; never asks for display forms. */
    private static final class DigestText implements HashInputSink {
        private final StringBuilder text = new StringBuilder(256);

        @Override
        public void accept(String path, String canonical, java.util.function.Supplier<String> display) {
            accept(path, canonical);
        }

        @Override
        public void accept(String path, String canonical) {
            text.append(canonical.length()).append(':').append(canonical);
        }

        byte[] bytes() {
            return text.toString().getBytes(StandardCharsets.UTF_8);
        }
    }

    /** A clone of the digest looked up once (on JDK 17 a look-up per hash measures about as fast). */
    private MessageDigest newDigest() {
        try {
            return (MessageDigest) prototype.clone();
        } catch (CloneNotSupportedException e) {
            return sha256();
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
