package dev.nightshift.strategies.plan;

import java.util.List;

import dev.nightshift.strategies.model.BlockedEviction;
import dev.nightshift.strategies.model.PoolStatus;

/**
 * What the planner found for one pool: counts, limits, conditions, and the status record the agent
 * writes back so that the next plan resumes every counter.
 *
 * @param pendingAction what the outdated nodes need, also while the update waits
 * @param progressing false with reason ProgressDeadlineExceeded when no node finished for progressDeadlineSeconds
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
        PoolStatus status) {

    public PoolReport {
        adopted = List.copyOf(adopted);
        awaitingSelection = List.copyOf(awaitingSelection);
        blockedDrains = List.copyOf(blockedDrains);
    }

    public record BlockedDrain(String node, BlockedEviction eviction) {
    }

    /** Share of the pool's nodes that run the desired spec, 0..1. */
    public double progress() {
        int total = current + outdated;
        return total == 0 ? 1.0 : (double) current / total;
    }
}
