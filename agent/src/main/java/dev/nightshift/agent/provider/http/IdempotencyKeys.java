package dev.nightshift.agent.provider.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Idempotency keys that depend only on what is asked: (pool, operation, the machine replaced or
 * updated or the surge partner, the target hash). A request repeated after a crash, even by a new
 * agent process, carries the same key, so the server makes no second machine.
 */
public final class IdempotencyKeys {

    private IdempotencyKeys() {
    }

    /**
     * @param operation what is asked: {@code create}, {@code replace}, {@code in-place-update}, {@code restart-kubelet}
     * @param subject   the machine replaced or updated, the surge partner, or what tells apart the
     *                  creates of one pool at one target (see the provider)
     * @param target    the target roll hash (the kubelet hash for a kubelet restart)
     */
    public static String of(String pool, String operation, String subject, String target) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String part : new String[] {pool, operation, subject, target}) {
                byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
                // Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
                sha.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
                sha.update((byte) ':');
                sha.update(bytes);
            }
            return "ns1-" + HexFormat.of().formatHex(sha.digest(), 0, 20);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
