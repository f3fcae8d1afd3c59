package dev.nightshift.agent.git;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which commits may reach the cluster ({@code git.verify}): only those signed by a key the
 * operator allows, and, unless {@code allowRewind}, only those that descend from the commit in
 * force.
 *
 * @param mode               {@link Mode#SSH}: SSH signatures checked against {@code allowedSignersFile}
 *                           (the format of git's {@code gpg.ssh.allowedSignersFile}); {@link Mode#GPG}:
 *                           OpenPGP signatures by a key of {@code publicKeysFile} whose fingerprint is listed
 * @param allowedSignersFile with {@link Mode#SSH}
 * @param publicKeysFile     with {@link Mode#GPG}: armored or binary OpenPGP public keys
 * @param fingerprints       with {@link Mode#GPG}: the allowed keys' fingerprints (primary key or signing
 *                           subkey), upper-case hex without spaces
 * @param allowRewind        whether a signed commit that does not descend from the one in force is applied
 *                           (it is reported either way)
 */
public record CommitVerification(Mode mode, Optional<Path> allowedSignersFile, Optional<Path> publicKeysFile,
                                 List<String> fingerprints, boolean allowRewind) {

    /** How commits are signed. */
    public enum Mode {
        SSH, GPG;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public CommitVerification {
        fingerprints = fingerprints.stream().map(CommitVerification::normalFingerprint).toList();
        if (mode == Mode.SSH && allowedSignersFile.isEmpty()) {
            throw new IllegalArgumentException("git.verify.mode ssh needs allowedSignersFile");
        }
        if (mode == Mode.GPG && (publicKeysFile.isEmpty() || fingerprints.isEmpty())) {
            throw new IllegalArgumentException("git.verify.mode gpg needs publicKeysFile and fingerprints");
        }
    }

    /** SSH signatures by the keys of {@code allowedSigners}; no rewinds. */
    public static CommitVerification ssh(Path allowedSigners) {
        return new CommitVerification(Mode.SSH, Optional.of(allowedSigners), Optional.empty(), List.of(), false);
    }

    /** OpenPGP signatures by the keys of {@code publicKeys} with these fingerprints; no rewinds. */
    public static CommitVerification gpg(Path publicKeys, List<String> fingerprints) {
        return new CommitVerification(Mode.GPG, Optional.empty(), Optional.of(publicKeys), fingerprints, false);
    }

    public CommitVerification allowRewind(boolean allowed) {
        return new CommitVerification(mode, allowedSignersFile, publicKeysFile, fingerprints, allowed);
    }

    /** {@code 0123 4567 …} or {@code 0x0123…} as gpg prints them, upper-case hex without spaces. */
    public static String normalFingerprint(String text) {
        return text.replaceAll("\\s+", "").replaceFirst("^0[xX]", "").toUpperCase(Locale.ROOT);
    }

    /** Whether {@code text} is an OpenPGP v4 (40 hex digits) or v5/v6 (64) fingerprint. */
    public static boolean isFingerprint(String text) {
        return normalFingerprint(text).matches("[0-9A-F]{40}|[0-9A-F]{64}");
    }
}
