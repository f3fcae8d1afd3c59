package dev.nightshift.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.git.Secret;

class WebhookVerifierTest {

    private static final byte[] BODY = "{\"ref\":\"refs/heads/main\"}".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;

    private WebhookVerifier verifier(String secret) throws IOException {
        Path file = tmp.resolve("secret");
        Files.writeString(file, secret + "\n");
        return new WebhookVerifier(Secret.fromFile(file));
    }

    @Test
    void aGithubSignatureOfTheBodyIsAccepted() throws IOException {
        // Computed independently: printf '%s' '{"ref":"refs/heads/main"}' | openssl dgst -sha256 -hmac s3cret
        String expected = "sha256=" + new String(new ProcessBuilder("sh", "-c",
                "printf '%s' '{\"ref\":\"refs/heads/main\"}' | openssl dgst -sha256 -hmac s3cret -r | cut -d' ' -f1")
                .start().getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();

        assertThat(verifier("s3cret").sign(BODY)).isEqualTo(expected);
        assertThat(verifier("s3cret").rejection(Optional.of(expected), Optional.empty(), BODY)).isEmpty();
    }

    @Test
    void aSignatureOfAnotherBodyIsRejected() throws IOException {
        WebhookVerifier v = verifier("s3cret");
        String signature = v.sign("other".getBytes(StandardCharsets.UTF_8));

        assertThat(v.rejection(Optional.of(signature), Optional.empty(), BODY)).contains("signature does not match");
    }

    @Test
    void aSignatureWithAnotherSecretIsRejected() throws IOException {
        String signature = verifier("wrong").sign(BODY);

        assertThat(verifier("s3cret").rejection(Optional.of(signature), Optional.empty(), BODY)).isPresent();
    }

    @Test
    void aMalformedSignatureIsRejected() throws IOException {
        assertThat(verifier("s3cret").rejection(Optional.of("sha1=abc"), Optional.empty(), BODY)).isPresent();
        assertThat(verifier("s3cret").rejection(Optional.of("sha256=zz"), Optional.empty(), BODY)).isPresent();
    }

    @Test
    void theGitlabTokenMustMatch() throws IOException {
        WebhookVerifier v = verifier("s3cret");

        assertThat(v.rejection(Optional.empty(), Optional.of("s3cret"), BODY)).isEmpty();
        assertThat(v.rejection(Optional.empty(), Optional.of("s3cre"), BODY)).contains("token does not match");
    }

    @Test
    void noCredentialIsRejected() throws IOException {
        assertThat(verifier("s3cret").rejection(Optional.empty(), Optional.empty(), BODY)).isPresent();
    }

    @Test
    void anEmptyGitlabTokenIsNeverAcceptedEvenWhenTheSecretIsEmpty() throws IOException {
        WebhookVerifier withEmptySecret = new WebhookVerifier(Secret.fromFile(Files.writeString(tmp.resolve("empty"), "\n")));

        assertThat(withEmptySecret.rejection(Optional.empty(), Optional.of(""), BODY)).isPresent();
        assertThat(verifier("s3cret").rejection(Optional.empty(), Optional.of(""), BODY)).isPresent();
    }

    @Test
    void withAnEmptySecretEverySignatureIsRejectedRatherThanChecked() throws IOException {
        WebhookVerifier withEmptySecret = new WebhookVerifier(Secret.fromFile(Files.writeString(tmp.resolve("empty"), "")));

        // An HMAC with an empty key is one anyone can compute (and the JDK refuses to compute it).
        assertThat(withEmptySecret.rejection(Optional.of("sha256=" + "0".repeat(64)), Optional.empty(), BODY))
                .contains("no webhook secret is configured");
    }

    @Test
    void theSecretNeverPrints() throws IOException {
        assertThat(Secret.fromFile(Files.writeString(tmp.resolve("s"), "s3cret"))).hasToString("***");
    }
}
