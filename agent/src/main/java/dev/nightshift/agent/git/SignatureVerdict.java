package dev.nightshift.agent.git;

/**
 * Whether a commit's signature is trusted: by whom when it is, and why not when it is not.
 *
 * @param detail the signer (principal and key fingerprint) when trusted, else the reason, one line
 */
public record SignatureVerdict(boolean trusted, String detail) {

    public static SignatureVerdict trusted(String signer) {
        return new SignatureVerdict(true, signer);
    }

    public static SignatureVerdict refused(String reason) {
        return new SignatureVerdict(false, reason);
    }
}
