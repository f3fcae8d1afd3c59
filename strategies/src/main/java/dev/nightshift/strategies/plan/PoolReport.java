package dev.nightshift.strategies.plan;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import dev.nightshift.strategies.fleet.FleetWait;
import dev.nightshift.strategies.model.BlockedEviction;
import dev.nightshift.strategies.model.PoolStatus;

/**
 * What the planner found for one pool: counts, limits, conditions, and the status record the agent
 * writes back so that the next plan resumes every counter.
 *
 * @param pendingAction what the outdated nodes need, also while the update waits
 * @param progressing false with reason ProgressDeadlineExceeded when no node finished for progressDeadlineSeconds
 * @param failed      nodes that failed: a machine past creationTimeout, an in-place update that failed or
 *                    timed out, and the nodes in {@code failedNodes}
 * @param unhealthyNodes nodes unhealthy now but not (or, with disableHealthTimeout, never) failed
 * @param failedNodes nodes unhealthy for healthTimeout without interruption: repaired (drained, replaced)
 * @param waitingFor  why the pool takes no new work though it has some: its turn in the fleet (role order, {@code after},
 *                    concurrency) or, added by the agent's guard stage, the cluster's budget; empty otherwise
 */
public record PoolReport(
        String pool,
        PoolPhase phase,
        PendingAction pendingAction,
        int count,
        int current,
        int outdated,
        int updating,
        int failed,
        int resolvedMaxSurge,
        int resolvedMaxUnavailable,
        boolean progressing,
        String progressReason,
        List<String> adopted,
        List<String> awaitingSelection,
        List<BlockedDrain> blockedDrains,
        PoolStatus status,
        List<NodeHealth> unhealthyNodes,
        List<NodeHealth> failedNodes,
        Optional<FleetWait> waitingFor) {

    public PoolReport {
        adopted = List.copyOf(adopted);
        awaitingSelection = List.copyOf(awaitingSelection);
        blockedDrains = List.copyOf(blockedDrains);
        unhealthyNodes = List.copyOf(unhealthyNodes);
        failedNodes = List.copyOf(failedNodes);
    }

    /** A report of a pool that waits for nothing in the fleet. */
    public PoolReport(String pool, PoolPhase phase, PendingAction pendingAction, int count, int current, int outdated,
                      int updating, int failed, int resolvedMaxSurge, int resolvedMaxUnavailable, boolean progressing,
                      String progressReason, List<String> adopted, List<String> awaitingSelection,
                      List<BlockedDrain> blockedDrains, PoolStatus status, List<NodeHealth> unhealthyNodes, List<NodeHealth> failedNodes) {
        this(pool, phase, pendingAction, count, current, outdated, updating, failed, resolvedMaxSurge, resolvedMaxUnavailable,
                progressing, progressReason, adopted, awaitingSelection, blockedDrains, status, unhealthyNodes, failedNodes, Optional.empty());
    }

    /** This report, saying why the pool waits in the fleet. */
    public PoolReport withWaitingFor(Optional<FleetWait> value) {
        return new PoolReport(pool, phase, pendingAction, count, current, outdated, updating, failed, resolvedMaxSurge,
                resolvedMaxUnavailable, progressing, progressReason, adopted, awaitingSelection, blockedDrains, status, unhealthyNodes,
                failedNodes, value);
    }

    /** A report without unhealthy nodes. */
    public PoolReport(String pool, PoolPhase phase, PendingAction pendingAction, int count, int current, int outdated,
                      int updating, int failed, int resolvedMaxSurge, int resolvedMaxUnavailable, boolean progressing,
                      String progressReason, List<String> adopted, List<String> awaitingSelection,
                      List<BlockedDrain> blockedDrains, PoolStatus status) {
        this(pool, phase, pendingAction, count, current, outdated, updating, failed, resolvedMaxSurge, resolvedMaxUnavailable,
                progressing, progressReason, adopted, awaitingSelection, blockedDrains, status, List.of(), List.of());
    }

    /**
     * A node that is unhealthy: which condition makes it so (the one bad for longest) and since
     * when, from that condition's lastTransitionTime.
     */
    public record NodeHealth(String node, String condition, Instant since) {
    }

    public record BlockedDrain(String node, BlockedEviction eviction) {
    }

    /**
     * This report once a pass carried out only some of the pool's steps (its time for steps was up): a pool reported
     * {@link PoolPhase#CURRENT} is {@link PoolPhase#UPDATING} until its stamps, labels and taints are all written; any
     * other phase stays.
     */
    public PoolReport withStepsLeft() {
        return phase != PoolPhase.CURRENT ? this : new PoolReport(pool, PoolPhase.UPDATING, pendingAction, count, current, outdated,
                updating, failed, resolvedMaxSurge, resolvedMaxUnavailable, progressing, progressReason, adopted, awaitingSelection,
                blockedDrains, status, unhealthyNodes, failedNodes, waitingFor);
    }

    /** This report of a pool nothing is done to, for {@code reason}: not progressing, and saying why. */
    public PoolReport held(String reason) {
        return new PoolReport(pool, phase, pendingAction, count, current, outdated, updating, failed, resolvedMaxSurge,
                resolvedMaxUnavailable, false, reason, adopted, awaitingSelection, blockedDrains, status, unhealthyNodes, failedNodes,
                waitingFor);
    }

    /**
     * Nodes of the pool are being replaced, updated or restarted: some are in flight, or the pool's
     * phase is an update. Waiting (for a window, a turn, a selection) is not in progress.
     */
    public boolean rolloutInProgress() {
        return updating > 0 || phase == PoolPhase.UPDATING || phase == PoolPhase.RESTARTING_KUBELETS;
    }

    /**
     * Every node of the pool runs the desired spec and none is being updated: the spec the pool
     * was last fully current at is the one a later target's reasons are taken from.
     */
    public boolean fullyCurrent() {
        return outdated == 0 && updating == 0;
    }

    /** Share of the pool's nodes that run the desired spec, 0..1. */
    public double progress() {
        int total = current + outdated;
        return total == 0 ? 1.0 : (double) current / total;
    }
}
