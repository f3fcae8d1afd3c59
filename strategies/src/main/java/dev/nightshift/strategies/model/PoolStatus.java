package dev.nightshift.strategies.model;

import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * The per-pool record the agent keeps in the cluster as an update goes, so that every counter and
 * deadline survives a restart of the agent.
 *
 * @param outdatedNodes      outdated nodes at the last reconcile; fewer now means progress
 * @param lastProgressAt     when a node last finished its update
 * @param lastTerminationAt  when a machine of the pool was last deleted (for {@code interval})
 * @param validationStreak   consecutive successful validations of the pool and the control plane
 * @param paused             the user paused the rollout
 */
public record PoolStatus(
        int outdatedNodes,
        Optional<Instant> lastProgressAt,
        Optional<Instant> lastTerminationAt,
        int validationStreak,
        Set<String> usedForceTokens,
        boolean paused) {

    public static final PoolStatus NEW = new PoolStatus(0, Optional.empty(), Optional.empty(), 0, Set.of(), false);

    public PoolStatus {
        usedForceTokens = Set.copyOf(usedForceTokens);
    }

    public PoolStatus withValidationStreak(int streak) {
        return new PoolStatus(outdatedNodes, lastProgressAt, lastTerminationAt, streak, usedForceTokens, paused);
    }

    public PoolStatus withLastTermination(Instant at) {
        return new PoolStatus(outdatedNodes, lastProgressAt, Optional.of(at), validationStreak, usedForceTokens, paused);
    }

    public PoolStatus withProgress(int outdated, Optional<Instant> progressAt) {
        return new PoolStatus(outdated, progressAt, lastTerminationAt, validationStreak, usedForceTokens, paused);
    }

    public PoolStatus withPaused(boolean value) {
        return new PoolStatus(outdatedNodes, lastProgressAt, lastTerminationAt, validationStreak, usedForceTokens, value);
    }
}
