package dev.nightshift.agent.git;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Provider;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPPublicKeyRingCollection;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.PGPSignatureList;
import org.bouncycastle.openpgp.PGPUtil;
import org.bouncycastle.openpgp.jcajce.JcaPGPObjectFactory;
import org.bouncycastle.openpgp.operator.jcajce.JcaKeyFingerprintCalculator;
import org.bouncycastle.openpgp.operator.jcajce.JcaPGPContentVerifierBuilderProvider;
import org.bouncycastle.util.encoders.Hex;
import org.eclipse.jgit.lib.GpgConfig;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.SignatureVerifiers;
import org.eclipse.jgit.revwalk.RevCommit;

/**
 * OpenPGP commit signatures, verified with BouncyCastle against the keys of one file and an allow-list
 * of fingerprints. Not JGit's own OpenPGP verifier: it looks keys up in the GnuPG home of the JVM's
 * user (a JVM-wide setting), and it reports any key it finds there as trust UNKNOWN, so the
 * allow-list would be ours anyway. The file is read on every check, so a key added or removed counts
 * from the next commit.
 */
final class GpgSignatures implements SignatureCheck {

    /** Not registered with {@code java.security.Security}: nothing JVM-wide changes. */
    private static final Provider BOUNCY_CASTLE = new BouncyCastleProvider();

    private static final String ARMOR_BEGIN = "-----BEGIN PGP PUBLIC KEY BLOCK-----";

    private final Path publicKeys;
    private final Set<String> fingerprints;

    /**
     * @throws IllegalArgumentException when the file cannot be read as OpenPGP public keys, or a
     *                                  fingerprint is not among its keys; the message names it
     */
    GpgSignatures(Path publicKeysFile, List<String> allowedFingerprints) {
        this.publicKeys = publicKeysFile.toAbsolutePath();
        this.fingerprints = Set.copyOf(allowedFingerprints);
        PGPPublicKeyRingCollection keys = keys();
        List<String> known = new ArrayList<>();
        keys.getKeyRings().forEachRemaining(ring -> ring.getPublicKeys().forEachRemaining(k -> known.add(fingerprint(k))));
        for (String f : fingerprints) {
            if (!known.contains(f)) {
                throw new IllegalArgumentException("git.verify.fingerprints: " + f + " is not a key of " + publicKeys
                        + " (its keys: " + String.join(", ", known) + ")");
            }
        }
    }

    /** Every key of the file: binary, or one or more armored blocks one after the other ({@code cat a.asc b.asc}). */
    private PGPPublicKeyRingCollection keys() {
        try {
            byte[] bytes = Files.readAllBytes(publicKeys);
            String text = new String(bytes, StandardCharsets.ISO_8859_1);
            List<byte[]> blocks = new ArrayList<>();
            if (text.contains(ARMOR_BEGIN)) {
                for (String block : text.split("(?=" + ARMOR_BEGIN + ")")) {
                    if (block.startsWith(ARMOR_BEGIN)) {
                        blocks.add(block.getBytes(StandardCharsets.ISO_8859_1));
                    }
                }
            } else {
                blocks.add(bytes);
            }
            PGPPublicKeyRingCollection all = new PGPPublicKeyRingCollection(List.of());
            for (byte[] block : blocks) {
                try (InputStream in = PGPUtil.getDecoderStream(new ByteArrayInputStream(block))) {
                    for (Iterator<PGPPublicKeyRing> rings = new PGPPublicKeyRingCollection(in, new JcaKeyFingerprintCalculator())
                            .getKeyRings(); rings.hasNext(); ) {
                        all = PGPPublicKeyRingCollection.addPublicKeyRing(all, rings.next());
                    }
                }
            }
            return all;
        } catch (IOException | PGPException | RuntimeException e) {
            throw new IllegalArgumentException("git.verify.publicKeysFile " + publicKeys + " cannot be read as OpenPGP public keys"
                    + " (gpg --armor --export KEY): " + e.getMessage(), e);
        }
    }

    @Override
    public SignatureVerdict check(Repository repository, RevCommit commit) {
        byte[] armored = commit.getRawGpgSignature();
        if (armored == null) {
            return SignatureVerdict.refused("it is not signed");
        }
        GpgConfig.GpgFormat format = SignatureVerifiers.getFormat(armored);
        if (format != GpgConfig.GpgFormat.OPENPGP) {
            return SignatureVerdict.refused("it is signed with " + (format == null ? "an unknown kind of signature"
                    : format.toConfigValue()) + ", but git.verify.mode is gpg");
        }
        PGPSignature signature;
        try {
            signature = signature(armored);
        } catch (IOException | PGPException | RuntimeException e) {
            return SignatureVerdict.refused("its OpenPGP signature cannot be read: " + e.getMessage());
        }
        String keyId = Long.toHexString(signature.getKeyID()).toUpperCase(Locale.ROOT);
        PGPPublicKeyRingCollection keys;
        try {
            keys = keys();
        } catch (IllegalArgumentException e) {
            return SignatureVerdict.refused(e.getMessage());
        }
        PGPPublicKey key = keys.getPublicKey(signature.getKeyID());
        PGPPublicKeyRing ring = keys.getPublicKeyRing(signature.getKeyID());
        if (key == null || ring == null) {
            return SignatureVerdict.refused("it is signed by OpenPGP key " + keyId + ", which is not in " + publicKeys);
        }
        String primary = fingerprint(ring.getPublicKey());
        String signing = fingerprint(key);
        if (!fingerprints.contains(primary) && !fingerprints.contains(signing)) {
            return SignatureVerdict.refused("it is signed by OpenPGP key " + primary + ", which git.verify.fingerprints does not list");
        }
        boolean matches;
        try {
            signature.init(new JcaPGPContentVerifierBuilderProvider().setProvider(BOUNCY_CASTLE), key);
            signature.update(SignedCommits.payload(commit));
            matches = signature.verify();
        } catch (PGPException | RuntimeException e) {
            return SignatureVerdict.refused("its OpenPGP signature by " + primary + " cannot be checked: " + e.getMessage());
        }
        if (!matches) {
            return SignatureVerdict.refused("its OpenPGP signature by " + primary + " is bad: it does not match the commit's content");
        }
        if (ring.getPublicKey().hasRevocation() || key.hasRevocation()) {
            return SignatureVerdict.refused("it is signed by OpenPGP key " + primary + ", which is revoked");
        }
        long validFor = key.getValidSeconds();
        if (validFor > 0 && signature.getCreationTime().toInstant().isAfter(key.getCreationTime().toInstant().plusSeconds(validFor))) {
            return SignatureVerdict.refused("it is signed by OpenPGP key " + signing + " after the key expired");
        }
        return SignatureVerdict.trusted(userId(ring.getPublicKey()) + " (OpenPGP " + primary + ")");
    }

    private static PGPSignature signature(byte[] armored) throws IOException, PGPException {
        try (InputStream in = PGPUtil.getDecoderStream(new ByteArrayInputStream(armored))) {
            Object o = new JcaPGPObjectFactory(in).nextObject();
            if (o instanceof PGPSignatureList list && !list.isEmpty()) {
                return list.get(0);
            }
            throw new PGPException("no signature packet");
        }
    }

    private static String fingerprint(PGPPublicKey key) {
        return Hex.toHexString(key.getFingerprint()).toUpperCase(Locale.ROOT);
    }

    private static String userId(PGPPublicKey key) {
        Iterator<String> ids = key.getUserIDs();
        return ids.hasNext() ? ids.next() : "(no user ID)";
    }
}
