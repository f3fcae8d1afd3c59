package dev.nightshift.agent.http;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import dev.nightshift.agent.git.Secret;

/**
 * Decides whether a webhook call comes from the Git host: GitHub's {@code X-Hub-Signature-256}
 * (HMAC-SHA256 of the body) or GitLab's {@code X-Gitlab-Token}. Every comparison takes constant
 * time, so the secret cannot be guessed byte by byte from response times.
 */
public final class WebhookVerifier {

    public static final String GITHUB_SIGNATURE = "X-Hub-Signature-256";
    public static final String GITLAB_TOKEN = "X-Gitlab-Token";

    private final Secret secret;

    public WebhookVerifier(Secret secret) {
        this.secret = secret;
    }

    /** Empty when the call is authentic; otherwise why not (for the log, never with the payload). */
    public Optional<String> rejection(Optional<String> githubSignature, Optional<String> gitlabToken, byte[] body) {
        if (secret.reveal().isEmpty()) {
            // The agent refuses an empty secret at start; should one come here anyway, an empty token would
            // match it and anyone can compute an HMAC with an empty key: nothing is authentic.
            return Optional.of("no webhook secret is configured");
        }
        if (githubSignature.isPresent()) {
            String header = githubSignature.get().trim();
            if (!header.startsWith("sha256=")) {
                return Optional.of(GITHUB_SIGNATURE + " is not of the form sha256=<hex>");
            }
            byte[] given;
            try {
                given = HexFormat.of().parseHex(header.substring("sha256=".length()));
            } catch (IllegalArgumentException e) {
                return Optional.of(GITHUB_SIGNATURE + " is not hexadecimal");
            }
            return MessageDigest.isEqual(hmac(body), given) ? Optional.empty() : Optional.of("signature does not match");
        }
        if (gitlabToken.isPresent()) {
            if (gitlabToken.get().isEmpty()) {
                return Optional.of(GITLAB_TOKEN + " is empty");
            }
            byte[] given = gitlabToken.get().getBytes(StandardCharsets.UTF_8);
            byte[] expected = secret.reveal().getBytes(StandardCharsets.UTF_8);
            return MessageDigest.isEqual(expected, given) ? Optional.empty() : Optional.of("token does not match");
        }
        return Optional.of("neither " + GITHUB_SIGNATURE + " nor " + GITLAB_TOKEN + " is present");
    }

    /** The signature GitHub sends for {@code body}: {@code sha256=<hex>}. */
    public String sign(byte[] body) {
        return "sha256=" + HexFormat.of().formatHex(hmac(body));
    }

    private byte[] hmac(byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.reveal().getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(body);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("every JVM has HmacSHA256", e);
        }
    }
}
