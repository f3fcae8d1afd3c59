package dev.nightshift.strategies;

import java.time.Instant;

import dev.nightshift.spec.model.MachineControllerManager;
import dev.nightshift.spec.model.OnEvictionBlocked;
import dev.nightshift.strategies.model.BlockedEviction;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.PoolReport.BlockedDrain;
import dev.nightshift.strategies.plan.Step;

/** Drain decisions shared by the strategies: start, continue, force, and when a drain counts as done. */
final class Drains {

    private Drains() {
    }

    static void start(ObservedNode node, PlanSink sink) {
        sink.add(new Step.Cordon(node.name(), sink.pool));
        sink.add(new Step.Drain(node.name(), sink.pool));
    }

    /**
     * Continues a drain and says whether the node may now go (be deleted or updated). With
     * ForceDelete a pod is deleted after maxEvictRetries refusals and the node goes after
     * drainTimeout; with Wait a budget is never bypassed and the block is reported.
     */
    static boolean progress(PoolView view, ObservedNode node, PlanSink sink) {
        if (node.drained()) {
            return true;
        }
        MachineControllerManager mcm = view.spec().machineControllerManager();
        boolean force = mcm.onEvictionBlocked() == OnEvictionBlocked.ForceDelete;
        Instant started = node.drainStartedAt().orElse(view.now());
        if (force && !started.plus(mcm.drainTimeout()).isAfter(view.now())) {
            return true;
        }
        if (!node.cordoned()) {
            sink.add(new Step.Cordon(node.name(), sink.pool));
        }
        // Forced deletions before the drain pass: the agent runs a pass off the reconcile's thread and a forced deletion
        // waits for the node's running pass (both write the node's eviction counts), so one asked for after the pass it
        // waits for never ran while every reconcile started a pass again (a pool stalled until drainTimeout).
        for (BlockedEviction blocked : node.blockedEvictions()) {
            if (force && blocked.attempts() >= mcm.maxEvictRetries()) {
                sink.add(new Step.ForceDeletePod(node.name(), sink.pool, blocked.pod()));
            } else {
                sink.blockedDrains.add(new BlockedDrain(node.name(), blocked));
            }
        }
        sink.add(new Step.Drain(node.name(), sink.pool));
        return false;
    }

    static Instant deadline(PoolView view, ObservedNode node) {
        return node.drainStartedAt().orElse(view.now()).plus(view.spec().machineControllerManager().drainTimeout());
    }
}
