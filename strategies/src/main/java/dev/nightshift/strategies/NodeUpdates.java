package dev.nightshift.strategies;

/**
 * Whether node updates (an in-place update of a node, a restart of its kubelet) are carried out at
 * all. The planner knows only this, never what carries them out: with {@link #OFF}, changes that
 * need them are reported and never planned, and replacements go on as before.
 */
public enum NodeUpdates {
    /** In-place updates and kubelet restarts are planned and carried out. */
    ON,
    /**
     * Nothing updates nodes in place: a pool whose change needs an in-place update or a kubelet
     * restart is reported ({@link dev.nightshift.strategies.plan.PoolPhase#NODE_UPDATES_OFF}), its
     * nodes are not disrupted, and it does not hold up the next pool.
     */
    OFF
}
