package dev.nightshift.agent.provider;

import dev.nightshift.strategies.model.DesiredPool;

/**
 * Updates a node without replacing its machine: in place to the pool's desired spec, or only its
 * kubelet's configuration. The node reports the new hashes when done (or the agent stamps them
 * once it observes the update finished). Both calls must be safe to repeat: an update to the same
 * target already running is not started again.
 */
public interface NodeUpdater {

    /** Starts an in-place update of {@code node} to the pool's desired roll and kubelet hashes. */
    void updateInPlace(DesiredPool pool, String node);

    /** Restarts {@code node}'s kubelet with the pool's desired kubelet configuration. */
    void restartKubelet(DesiredPool pool, String node);

    /**
     * Before a plan, by the replica that acts (never in a dry run): records on the pool's nodes the
     * outcome of the updates it observed finished (the hashes when done, the failure mark when not),
     * so the planner sees it. Updaters whose nodes report their own hashes need nothing.
     */
    default void settle(DesiredPool pool) {
    }
}
