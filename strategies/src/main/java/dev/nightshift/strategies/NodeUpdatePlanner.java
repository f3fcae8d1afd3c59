package dev.nightshift.strategies;

/**
 * Plans the update of a pool's roll-outdated nodes with one update strategy. Implementations
 * continue work in flight whatever the gate says, and start new work only where it allows.
 */
interface NodeUpdatePlanner {

    void plan(PoolView view, StartGate gate, PlanSink sink);
}
