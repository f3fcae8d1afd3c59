package dev.nightshift.agent.git;

/**
 * The repository could not be reached or read; the message names the repository, never a secret.
 *
 * <p>What JGit or a server says goes into the message, the log and {@code /status}; it may repeat a
 * URL with a token, or a header. So the message is {@linkplain CredentialScrubber scrubbed}, and so is
 * every message of the cause's chain, kept as {@link Cause}s (class name, scrubbed message, stack
 * trace): a stack trace logged anywhere shows no more than the message does.
 */
public final class GitSourceException extends Exception {

    public GitSourceException(String message, Throwable cause) {
        super(CredentialScrubber.scrub(message), cause == null ? null : Cause.of(cause));
    }

    /** A library's exception in the chain, its message scrubbed. */
    public static final class Cause extends Exception {

        /** Chains are a few deep; a cycle (a cause of its own cause) must not recurse for ever. */
        private static final int MAX_DEPTH = 16;

        private Cause(Throwable original, Throwable cause) {
            super(original.getClass().getName() + (original.getMessage() == null ? "" : ": " + CredentialScrubber.scrub(original.getMessage())),
                    cause, false, true);
            setStackTrace(original.getStackTrace());
        }

        static Cause of(Throwable original) {
            return of(original, 0);
        }

        private static Cause of(Throwable original, int depth) {
            Throwable next = original.getCause() == original || depth >= MAX_DEPTH ? null : original.getCause();
            return new Cause(original, next == null ? null : of(next, depth + 1));
        }

        /** As the original would print: its class and message. */
        @Override
        public String toString() {
            return getMessage();
        }
    }
}
