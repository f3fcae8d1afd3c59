package dev.nightshift.agent.reconcile;

import dev.nightshift.agent.kube.EventRecorder;

/**
 * Told once when a pool is rolled back ({@code onFailure: Rollback}): which revision failed, which one the pool went
 * back to, and why. The production one records a {@code RolledBack} Event in the agent's namespace, so that
 * {@code kubectl get events} says it beside the halt's {@code RolloutHalted}: Git stays the source of truth, and the
 * Event tells the user to revert or fix it there.
 */
@FunctionalInterface
interface RollbackNotes {

    /**
     * @param failed the commit whose spec failed and is refused now
     * @param heldAt the commit whose spec the pool goes back to
     * @param why    the halt that caused it, e.g. {@code error-rate (0.07, must be <= 0.01) in wave 1}
     */
    void rolledBack(String pool, String failed, String heldAt, String why);

    RollbackNotes NONE = (pool, failed, heldAt, why) -> { };

    /** A {@code RolledBack} Warning Event regarding {@code namespace}; nothing in a dry run, which rolls nothing back in the cluster. */
    static RollbackNotes events(EventRecorder events, String namespace, boolean dryRun) {
        return dryRun ? NONE : (pool, failed, heldAt, why) -> events.record(namespace, EventRecorder.Regarding.namespace(namespace),
                EventRecorder.Reason.RolledBack, "Pool " + pool + " rolled back to " + shortCommit(heldAt) + ": "
                        + shortCommit(failed) + " refused: canary failed " + why + "; revert or fix it in Git (a commit that"
                        + " changes the pool's spec lifts the refusal)");
    }

    private static String shortCommit(String commit) {
        return commit.length() > 7 ? commit.substring(0, 7) : commit;
    }
}
