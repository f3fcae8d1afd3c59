package dev.nightshift.strategies;

import java.time.Instant;
import java.util.Optional;

import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;

/**
 * Nodes at the desired roll hash whose kubelet hash differs: restart the kubelet, no cordon, no
 * drain; at most max(1, maxUnavailable) restarts pending at a time. A request the node leaves
 * unanswered for the pool's healthTimeout (lost, or the agent stopped before it reached the
 * machine) is made again rather than waited on forever. A restart the node updater marked failed
 * ({@code inPlaceFailed}) is neither asked again nor released, and no further restart starts: the
 * pool stops there, as for a failed in-place update.
 */
final class KubeletRestarts {

    private KubeletRestarts() {
    }

    static void plan(PoolView view, StartGate gate, PlanSink sink) {
        long pending = 0;
        boolean failed = false;
        for (ObservedNode node : view.nodes()) {
            if (node.kubeletRestartAt().isPresent()) {
                if (view.kubeletOutdated(node)) {
                    pending++;
                    if (node.inPlaceFailed()) {
                        // The node updater reported the restart failed: neither asked again nor released; a person decides.
                        sink.failed.add(node.name());
                        failed = true;
                        continue;
                    }
                    Instant asked = node.kubeletRestartAt().get();
                    if (!unansweredUntil(view, asked).isAfter(view.now())) {
                        sink.add(new Step.RestartKubelet(node.name(), sink.pool, view.desired(), Optional.of(asked)));
                    }
                } else {
                    sink.add(new Step.Uncordon(node.name(), sink.pool));
                }
            }
        }
        if (failed) {
            // The pool stops there, as for a failed in-place update.
            return;
        }
        long room = Math.max(1, view.maxUnavailable()) - pending;
        for (ObservedNode node : view.nodes()) {
            if (room <= 0) {
                return;
            }
            if (node.registered() && node.kubeletRestartAt().isEmpty() && view.kubeletOutdated(node) && !view.failed(node)
                    && gate.allows(node)) {
                sink.add(new Step.RestartKubelet(node.name(), sink.pool, view.desired()));
                room--;
            }
        }
    }

    /** When a restart asked for at {@code asked} and still not done is asked for again. */
    static Instant unansweredUntil(PoolView view, Instant asked) {
        return asked.plus(view.spec().machineControllerManager().healthTimeout());
    }

    static boolean anyOutdated(PoolView view) {
        return view.nodes().stream().anyMatch(n -> n.registered() && view.kubeletOutdated(n));
    }
}
