package dev.nightshift.agent.git;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.eclipse.jgit.lib.Config;
import org.eclipse.jgit.lib.ConfigConstants;
import org.eclipse.jgit.lib.GpgConfig;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.SignatureVerifier;
import org.eclipse.jgit.lib.SignatureVerifiers;
import org.eclipse.jgit.revwalk.RevCommit;

/**
 * SSH commit signatures, verified by JGit's own verifier ({@code org.eclipse.jgit.ssh.apache}) as
 * {@code git verify-commit} does with {@code gpg.ssh.allowedSignersFile}: the signature must be over
 * this commit's content, in the {@code git} namespace, by a key of the allowed signers file (within
 * its {@code valid-after}/{@code valid-before} at the commit's time). The file is read again when it
 * changes.
 */
final class SshSignatures implements SignatureCheck {

    private final Path allowedSigners;
    private final GpgConfig config;

    /** @throws IllegalArgumentException when the file cannot be read; the message names it */
    SshSignatures(Path allowedSignersFile) {
        // Absolute: JGit resolves a relative name against the work tree, and the cache is bare.
        this.allowedSigners = allowedSignersFile.toAbsolutePath();
        if (!Files.isReadable(allowedSigners)) {
            throw new IllegalArgumentException("git.verify.allowedSignersFile " + allowedSigners + " cannot be read");
        }
        Config git = new Config();
        git.setString(ConfigConstants.CONFIG_GPG_SECTION, null, ConfigConstants.CONFIG_KEY_FORMAT, "ssh");
        git.setString(ConfigConstants.CONFIG_GPG_SECTION, ConfigConstants.CONFIG_SSH_SUBSECTION,
                ConfigConstants.CONFIG_KEY_SSH_ALLOWED_SIGNERS_FILE, allowedSigners.toString());
        this.config = new GpgConfig(git);
    }

    @Override
    public SignatureVerdict check(Repository repository, RevCommit commit) {
        byte[] signature = commit.getRawGpgSignature();
        if (signature == null) {
            return SignatureVerdict.refused("it is not signed");
        }
        GpgConfig.GpgFormat format = SignatureVerifiers.getFormat(signature);
        if (format != GpgConfig.GpgFormat.SSH) {
            return SignatureVerdict.refused("it is signed with " + (format == null ? "an unknown kind of signature"
                    : format.toConfigValue()) + ", but git.verify.mode is ssh");
        }
        SignatureVerifier.SignatureVerification v;
        try {
            v = SignatureVerifiers.verify(repository, config, commit);
        } catch (IOException | RuntimeException e) {
            return SignatureVerdict.refused("its SSH signature cannot be checked: " + e.getMessage());
        }
        if (v == null) {
            return SignatureVerdict.refused("no SSH signature verifier is available (org.eclipse.jgit.ssh.apache)");
        }
        String key = v.keyFingerprint() == null ? "an unknown key" : "key " + v.keyFingerprint();
        if (v.verified()) {
            return SignatureVerdict.trusted(v.keyUser() + " (" + key + ")");
        }
        if (v.trustLevel() == SignatureVerifier.TrustLevel.UNKNOWN) {
            // The signature is over this content, but its key is not allowed.
            return SignatureVerdict.refused("it is signed by " + key + ", which " + allowedSigners + " does not allow");
        }
        return SignatureVerdict.refused("its SSH signature by " + key + " is bad"
                + (v.message() == null ? ": it does not match the commit's content" : ": " + v.message()));
    }
}
