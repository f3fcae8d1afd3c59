package dev.nightshift.agent.git;

/** The repository could not be reached or read; the message names the repository, never a secret. */
public final class GitSourceException extends Exception {

    public GitSourceException(String message, Throwable cause) {
        super(message, cause);
    }
}
