package dev.nightshift.agent.notify;

/**
 * A commit's state for one cluster, as the agent sees it; each forge spells it its own way
 * ({@link Forge#state}).
 */
public enum CommitState {
    /** Accepted, pools still rolling. */
    PENDING,
    /** Every pool current. */
    SUCCESS,
    /** A pool failed, halted or is refused; or the commit was refused. */
    FAILURE,
    /** The commit's specs are invalid. */
    ERROR,
    /** A newer commit was accepted before this one finished. */
    SUPERSEDED;

    /** Whether nothing later changes it but a newer commit (success may still go back to pending as nodes change). */
    public boolean last() {
        return this == ERROR || this == SUPERSEDED;
    }
}
