package dev.nightshift.agent.provider;

import java.util.Set;

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

    /**
     * {@link #settle(DesiredPool)}, told which of the pool's nodes may be waiting for an update ({@code waiting}, from
     * the agent's node cache: the nodes it shows with an update or kubelet restart started, or a node updater Job
     * followed), so that an updater that must read nodes or Jobs from the API to settle them reads only those. In a
     * pool of thousands of nodes, none of them updating, that is no read at all. A node the cache shows a moment behind
     * (its started mark not there yet) is settled at the next reconcile, which that mark's own node event asks for;
     * an update starts only on a node the planner saw, so no node outside the cache waits for one.
     */
    default void settle(DesiredPool pool, Set<String> waiting) {
        settle(pool);
    }
}
