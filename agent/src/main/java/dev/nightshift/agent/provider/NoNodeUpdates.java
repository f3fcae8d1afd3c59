package dev.nightshift.agent.provider;

import dev.nightshift.strategies.model.DesiredPool;

/**
 * The node updater of an agent configured with {@code nodeUpdates.type: none}. The planner then
 * plans no in-place update and no kubelet restart, so nothing may call this: a call is a planner
 * bug, and fails loudly rather than updating a node the configuration said must not be.
 */
public final class NoNodeUpdates implements NodeUpdater {

    @Override
    public void updateInPlace(DesiredPool pool, String node) {
        throw refused("an in-place update of node " + node + " in pool " + pool.name());
    }

    @Override
    public void restartKubelet(DesiredPool pool, String node) {
        throw refused("a kubelet restart of node " + node + " in pool " + pool.name());
    }

    private static IllegalStateException refused(String what) {
        return new IllegalStateException(what + " was asked for, but node updates are off (nodeUpdates.type: none):"
                + " the planner must not plan node updates then");
    }
}
