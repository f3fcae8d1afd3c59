package dev.nightshift.agent.notify;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** SHA-256 and the webhook signature: GitHub's own scheme, {@code sha256=<hex HMAC-SHA256 of the body>}. */
public final class Hashes {

    /** The header generic webhooks are signed in. */
    public static final String SIGNATURE_HEADER = "X-Nightshift-Signature-256";

    private Hashes() {
    }

    static String sha256Hex(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The value of {@link #SIGNATURE_HEADER} for {@code body} signed with {@code secret}. */
    public static String signature(byte[] body, byte[] secret) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("every JDK has HmacSHA256", e);
        }
    }
}
