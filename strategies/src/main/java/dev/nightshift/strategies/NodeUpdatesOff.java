package dev.nightshift.strategies;

import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;

/**
 * A pool whose change needs a node update while node updates are off ({@link NodeUpdates#OFF}):
 * nothing new starts. What an agent with node updates on left in flight is not continued: a
 * drain for an in-place update is released (no update will follow it), a kubelet restart mark is
 * removed, and an in-place update already running on its machine is left to finish, its node
 * released once it runs the desired spec. Failed nodes are left to the repairs.
 */
final class NodeUpdatesOff {

    private NodeUpdatesOff() {
    }

    static void release(PoolView view, PlanSink sink) {
        for (ObservedNode node : view.nodes()) {
            if (view.failed(node)) {
                continue;
            }
            if (node.updatingInPlace()) {
                if (view.current(node) && node.rollHash().isPresent() && node.ready()) {
                    sink.add(new Step.Uncordon(node.name(), sink.pool));
                }
            } else if ((node.draining() && view.outdated(node)) || node.kubeletRestartAt().isPresent()) {
                sink.add(new Step.Uncordon(node.name(), sink.pool));
            }
        }
    }
}
