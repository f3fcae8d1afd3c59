package dev.nightshift.agent.git;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Takes out of a text what looks like a credential, before the text is logged or shown: the
 * user info of a URL ({@code scheme://user:password@}, {@code scheme://token@}), the value of an
 * {@code Authorization} header, and query or form parameters that carry tokens or passwords
 * ({@code access_token=…}). For messages that come from libraries (JGit) or servers: the agent's own
 * messages never hold a secret, but a library may repeat a URL, a header or a server's answer.
 * Each is replaced by {@code ***}, so a reader still sees that something was there.
 */
public final class CredentialScrubber {

    /** {@code scheme://anything-but-a-slash@}: a user and a password, or a token alone. */
    private static final Pattern USER_INFO = Pattern.compile("\\b([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\\s@?#\"'<>]+@");
    /** {@code Authorization: Bearer abc}, {@code Proxy-Authorization=Basic abc}, {@code authorization: abc}. */
    private static final Pattern AUTHORIZATION = Pattern.compile(
            "(?i)\\b((?:proxy-)?authorization)(\\s*[:=]\\s*)(?:(basic|bearer|token|digest|negotiate)\\s+)?[^\\s,;\"'&]+");
    /** {@code access_token=abc}, {@code private_token=abc}, {@code password=abc}… in a query, a form or a message. */
    private static final Pattern PARAMETER = Pattern.compile(
            "(?i)\\b((?:access|private|refresh|id|auth|oauth|job|deploy)?_?token|password|passwd|client_secret|secret|api_?key)=[^&\\s\"'<>;,]+");

    private CredentialScrubber() {
    }

    /** {@code text} without anything that looks like a credential; null stays null. */
    public static String scrub(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String scrubbed = USER_INFO.matcher(text).replaceAll("$1***@");
        scrubbed = AUTHORIZATION.matcher(scrubbed).replaceAll(m -> Matcher.quoteReplacement(
                m.group(1) + m.group(2) + (m.group(3) == null ? "" : m.group(3) + " ") + "***"));
        return PARAMETER.matcher(scrubbed).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + "=***"));
    }
}
