package dev.nightshift.agent.git;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A key the real {@code git} binary signs commits with, made by the real tools: {@code ssh-keygen}
 * for SSH signatures, {@code gpg --quick-gen-key} in a GnuPG home of its own for OpenPGP ones.
 *
 * @param gitConfig the {@code -c} options that make {@code git commit -S} sign with it
 * @param trustFile with SSH: its allowed signers line; with OpenPGP: its armored public key
 * @param id        with SSH: the public key file; with OpenPGP: the fingerprint
 */
public record SigningKey(List<String> gitConfig, String trustFile, String id) {

    private static final String EMAIL = "signer@nightshift.dev";

    /** An ed25519 SSH key in {@code dir}, allowed for the principal {@value #EMAIL} in the {@code git} namespace. */
    public static SigningKey ssh(Path dir, String name) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path key = dir.resolve(name);
        run(dir, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key.toString());
        String publicKey = Files.readString(dir.resolve(name + ".pub"), StandardCharsets.UTF_8).strip();
        return new SigningKey(List.of("-c", "gpg.format=ssh", "-c", "user.signingkey=" + key),
                EMAIL + " namespaces=\"git\" " + publicKey + "\n", dir.resolve(name + ".pub").toString());
    }

    /**
     * An ed25519 OpenPGP signing key without passphrase in a GnuPG home of its own under {@code dir};
     * git reaches it through a wrapper that names that home. Stop its agent with {@link #stopGpgAgent}.
     */
    public static SigningKey gpg(Path dir, String name) throws IOException, InterruptedException {
        Path home = Files.createDirectories(dir.resolve(name + "-gnupg"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        run(dir, "gpg", "--batch", "--homedir", home.toString(), "--passphrase", "", "--pinentry-mode", "loopback",
                "--quick-gen-key", name + " <" + EMAIL + ">", "ed25519", "sign", "never");
        String fingerprint = run(dir, "gpg", "--homedir", home.toString(), "--with-colons", "--list-keys").lines()
                .filter(l -> l.startsWith("fpr:")).findFirst().orElseThrow().split(":")[9];
        String publicKey = run(dir, "gpg", "--homedir", home.toString(), "--armor", "--export", fingerprint);
        Path wrapper = dir.resolve(name + "-gpg");
        Files.writeString(wrapper, "#!/bin/sh\nexec gpg --homedir " + home + " \"$@\"\n", StandardCharsets.UTF_8);
        wrapper.toFile().setExecutable(true);
        return new SigningKey(List.of("-c", "gpg.format=openpgp", "-c", "gpg.program=" + wrapper, "-c",
                "user.signingkey=" + fingerprint), publicKey, fingerprint);
    }

    /** Stops the gpg-agent the signing started in {@code gpg(dir, name)}'s home. */
    public static void stopGpgAgent(Path dir, String name) throws IOException, InterruptedException {
        run(dir, "gpgconf", "--homedir", dir.resolve(name + "-gnupg").toString(), "--kill", "gpg-agent");
    }

    /** Writes the trust files of {@code keys} into {@code file}: an allowed signers file, or a public key file. */
    public static Path trust(Path file, SigningKey... keys) throws IOException {
        StringBuilder text = new StringBuilder();
        for (SigningKey k : keys) {
            text.append(k.trustFile());
        }
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    static String run(Path cwd, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + ": " + err).isZero();
        return out;
    }
}
