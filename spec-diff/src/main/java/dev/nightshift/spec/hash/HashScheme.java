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
 * A hash with all its versions, the newest current. Digests SHA-256 over each input's path and
 * canonical value, so two inputs can never trade values unnoticed; keeps the first 128 bits.
 */
public final class HashScheme {

    /** Decides replacement (or, for in-place strategies, an in-place update with drain). */
    public static final HashScheme ROLL = new HashScheme("roll", List.of(new RollHashV1()));
    /** Decides a kubelet restart without drain when the roll hash is unchanged. */
    public static final HashScheme KUBELET = new HashScheme("kubelet", List.of(new KubeletHashV1()));

    private final String name;
    private final List<HashFunction> versions;

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
        current().inputs(pool, (path, canonical, display) -> inputs.add(new HashInput(path, canonical, display)));
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

    private static StampedHash compute(HashFunction function, ResolvedPool pool) {
        MessageDigest digest = sha256();
        function.inputs(pool, (path, canonical, display) -> {
            digest.update(path.getBytes(StandardCharsets.UTF_8));
            digest.update((byte) 0);
            digest.update(canonical.getBytes(StandardCharsets.UTF_8));
            digest.update((byte) '\n');
        });
        byte[] full = digest.digest();
        return new StampedHash(function.version(), HexFormat.of().formatHex(full, 0, 16));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
