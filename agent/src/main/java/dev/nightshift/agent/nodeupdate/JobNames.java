package dev.nightshift.agent.nodeupdate;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;

import dev.nightshift.spec.hash.StampedHash;

/**
 * The deterministic name of a node updater Job, {@code nightshift-<in-place|kubelet>-<node>-<first 10
 * hex of the target hash>}: a restarted agent finds the Job it created by name. A node whose name
 * would make it longer than a DNS label (63), or that is not one itself (a dot, capitals), is
 * written as its sanitised beginning and 8 hex of the SHA-256 of its full name, so that two nodes
 * never share a Job name. Also the value of a label naming the node, shortened by the same rule.
 */
public final class JobNames {

    /** A DNS label's length: a Job's name is a label value of its pods ({@code job-name}). */
    public static final int MAX_LENGTH = 63;
    private static final int TARGET_HEX = 10;
    private static final int NODE_HASH_HEX = 8;
    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

    private JobNames() {
    }

    /** The Job that updates {@code node} by {@code operation} to {@code target} (the roll hash in place, the kubelet hash for a restart). */
    public static String of(UpdateOperation operation, String node, StampedHash target) {
        String hash = target.value().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
        String prefix = "nightshift-" + operation.nameWord() + "-";
        String suffix = "-" + hash.substring(0, Math.min(TARGET_HEX, hash.length()));
        return prefix + fitted(node, MAX_LENGTH - prefix.length() - suffix.length()) + suffix;
    }

    /** The node as a label value: its name where it is one, else shortened as in Job names. */
    public static String labelValue(String node) {
        return fitted(node, MAX_LENGTH);
    }

    /** {@code node} itself when it is a DNS label of at most {@code room} characters, else its shortened form. */
    static String fitted(String node, int room) {
        if (node.length() <= room && LABEL.matcher(node).matches()) {
            return node;
        }
        String nodeHash = sha256(node).substring(0, NODE_HASH_HEX);
        String sanitised = node.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
        String head = sanitised.substring(0, Math.max(0, Math.min(sanitised.length(), room - NODE_HASH_HEX - 1)))
                .replaceAll("^-+|-+$", "");
        return head.isEmpty() ? nodeHash : head + "-" + nodeHash;
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
