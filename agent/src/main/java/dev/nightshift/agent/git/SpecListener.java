package dev.nightshift.agent.git;

import java.util.List;

import dev.nightshift.spec.load.SpecError;

/** Hears what the poller found. Only {@link #onSpec} hands on specs to act on. */
public interface SpecListener {

    /** A new commit whose specs are valid. */
    void onSpec(SpecRevision revision);

    /** A new commit whose specs are not: never acted on; the last good spec stays current. */
    void onInvalidSpec(String commit, List<SpecError> errors);

    /**
     * A new commit that {@code git.verify} refuses (missing, bad or unknown signature, a rewind):
     * never read nor acted on; the last good spec stays current.
     */
    default void onUnverifiedCommit(CommitCheck check) {
    }

    /** The repository could not be reached or read; the next poll tries again. */
    default void onPollFailed(GitSourceException error) {
    }
}
