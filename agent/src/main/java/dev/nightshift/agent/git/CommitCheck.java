package dev.nightshift.agent.git;

import java.util.Optional;

/**
 * What {@code git.verify} says of one commit.
 *
 * @param verified    whether the commit may be applied
 * @param detail      the signer when verified (principal or user ID, and the key's fingerprint), else
 *                    why not, one line, e.g. "it is signed by key SHA256:…, which /etc/… does not allow"
 * @param rewoundFrom the commit in force when this one does not descend from it (a rewind), refused
 *                    or, with {@code allowRewind}, applied; reported either way
 */
public record CommitCheck(String commit, CommitVerification.Mode mode, boolean verified, String detail,
                          Optional<String> rewoundFrom) {

    /** For the log and {@code /status}: names the commit and the reason. */
    public String refusal() {
        return "commit " + commit + " is not applied: " + detail + "; the last good commit stays in force";
    }

    /** For the log and {@code /status} when an allowed rewind was applied. */
    public Optional<String> rewindNotice() {
        return verified ? rewoundFrom.map(from -> "commit " + commit + " does not descend from commit " + from
                + ", which was in force (a rewind); applied because git.verify.allowRewind is true") : Optional.empty();
    }
}
