package dev.nightshift.agent.git;

/** What one poll did. */
public enum PollResult {
    /** The remote head had not moved: nothing was fetched. */
    UNCHANGED,
    /** A new commit with valid specs was handed on. */
    NEW_SPEC,
    /** A new commit with invalid specs was reported and not handed on. */
    INVALID_SPEC,
    /** A new commit that git.verify refused (signature missing, bad or not allowed, or a rewind) was reported and not handed on. */
    UNVERIFIED,
    /** The repository could not be reached or read. */
    FAILED
}
