package dev.nightshift.strategies.plan;

/** Where a pool's update stands. */
public enum PoolPhase {
    /** Every node runs the desired spec. */
    CURRENT,
    /**
     * Nodes are being replaced or updated; in the agent's report also a pool otherwise current whose stamps, labels or
     * taints a pass left for the next (its time for steps was up).
     */
    UPDATING,
    /** Kubelets are being restarted. */
    RESTARTING_KUBELETS,
    /** An earlier pool (by role, then name) is updating first. */
    WAITING_FOR_TURN,
    /** Outdated nodes wait for a maintenance window. */
    WAITING_FOR_WINDOW,
    /** Outdated nodes wait for the cluster to validate. */
    WAITING_FOR_VALIDATION,
    /** The user paused the rollout. */
    PAUSED,
    /** drainAndTerminate is false: outdated nodes are tainted and reported only. */
    REPORT_ONLY,
    /**
     * The change needs in-place updates or kubelet restarts, and node updates are off (the agent's
     * {@code nodeUpdates.type: none}): reported, never executed; the next pool goes on.
     */
    NODE_UPDATES_OFF,
    /** ManualInPlaceUpdate: outdated nodes wait for the user to select them. */
    AWAITING_SELECTION,
    /** A node failed and needs a user decision. */
    FAILED,
    /**
     * The rollout's health checks failed (or could not be judged for the soak time), or
     * {@code maxFailedMachines} machines failed in a row: nothing new starts, work in flight
     * finishes, until {@code nightshift resume} or a new target.
     */
    HALTED
}
