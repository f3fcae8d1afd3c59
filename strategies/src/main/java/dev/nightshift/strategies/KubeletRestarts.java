package dev.nightshift.strategies;

import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;

/**
 * Nodes at the desired roll hash whose kubelet hash differs: restart the kubelet, no cordon, no
 * drain; at most max(1, maxUnavailable) restarts pending at a time.
 */
final class KubeletRestarts {

    private KubeletRestarts() {
    }

    static void plan(PoolView view, StartGate gate, PlanSink sink) {
        long pending = 0;
        for (ObservedNode node : view.nodes()) {
            if (node.kubeletRestartAt().isPresent()) {
                if (view.kubeletOutdated(node)) {
                    pending++;
                } else {
                    sink.add(new Step.Uncordon(node.name()));
                }
            }
        }
        long room = Math.max(1, view.maxUnavailable()) - pending;
        for (ObservedNode node : view.nodes()) {
            if (room <= 0) {
                return;
            }
            if (node.registered() && node.kubeletRestartAt().isEmpty() && view.kubeletOutdated(node) && gate.allows(node)) {
                sink.add(new Step.RestartKubelet(node.name(), view.desired().kubeletHash()));
                room--;
            }
        }
    }

    static boolean anyOutdated(PoolView view) {
        return view.nodes().stream().anyMatch(n -> n.registered() && view.kubeletOutdated(n));
    }
}
