package dev.nightshift.agent.provider.http;

/**
 * A machine API call that did not succeed. The message names the method and URL and carries the
 * server's {@code message}; it never carries the token.
 *
 * @see #status() the HTTP status, or 0 when no answer came (timeout, lost connection) or it could not be read
 */
public final class MachineApiException extends RuntimeException {

    private final int status;
    private final boolean retryable;

    public MachineApiException(String message, int status, boolean retryable, Throwable cause) {
        super(message, cause);
        this.status = status;
        this.retryable = retryable;
    }

    public MachineApiException(String message, int status, boolean retryable) {
        this(message, status, retryable, null);
    }

    public int status() {
        return status;
    }

    /** 429, 5xx, a timeout or a lost connection: the same request may succeed later. */
    public boolean retryable() {
        return retryable;
    }
}
