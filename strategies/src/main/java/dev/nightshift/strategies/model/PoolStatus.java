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
 * @param rollout            the rollout's wave, soak, failed machines and halt; empty for a pool without waves or checks
 *                           (today's canary), and between rollouts
 * @param resumedAt          when the user last resumed the pool ({@code nightshift resume}): a halt from before is lifted
 */
public record PoolStatus(
        int outdatedNodes,
        Optional<Instant> lastProgressAt,
        Optional<Instant> lastTerminationAt,
        int validationStreak,
        Set<String> usedForceTokens,
        boolean paused,
        Optional<RolloutProgress> rollout,
        Optional<Instant> resumedAt) {

    public static final PoolStatus NEW = new PoolStatus(0, Optional.empty(), Optional.empty(), 0, Set.of(), false);

    public PoolStatus {
        usedForceTokens = Set.copyOf(usedForceTokens);
    }

    /** A record without waves: a pool rolled with today's canary, or a record written before waves existed. */
    public PoolStatus(int outdatedNodes, Optional<Instant> lastProgressAt, Optional<Instant> lastTerminationAt,
                      int validationStreak, Set<String> usedForceTokens, boolean paused) {
        this(outdatedNodes, lastProgressAt, lastTerminationAt, validationStreak, usedForceTokens, paused, Optional.empty(),
                Optional.empty());
    }

    public PoolStatus withRollout(Optional<RolloutProgress> value) {
        return new PoolStatus(outdatedNodes, lastProgressAt, lastTerminationAt, validationStreak, usedForceTokens, paused, value,
                resumedAt);
    }

    public PoolStatus withResumedAt(Optional<Instant> value) {
        return new PoolStatus(outdatedNodes, lastProgressAt, lastTerminationAt, validationStreak, usedForceTokens, paused, rollout,
                value);
    }

    /** The halt in effect: recorded, and not lifted by a resume after it. */
    public Optional<RolloutProgress.Halt> halt() {
        return rollout.flatMap(RolloutProgress::halt).filter(h -> resumedAt.filter(r -> !r.isBefore(h.at())).isEmpty());
    }

    public PoolStatus withValidationStreak(int streak) {
        return new PoolStatus(outdatedNodes, lastProgressAt, lastTerminationAt, streak, usedForceTokens, paused, rollout, resumedAt);
    }

    public PoolStatus withLastTermination(Instant at) {
        return new PoolStatus(outdatedNodes, lastProgressAt, Optional.of(at), validationStreak, usedForceTokens, paused, rollout, resumedAt);
    }

    public PoolStatus withProgress(int outdated, Optional<Instant> progressAt) {
        return new PoolStatus(outdated, progressAt, lastTerminationAt, validationStreak, usedForceTokens, paused, rollout, resumedAt);
    }

    public PoolStatus withPaused(boolean value) {
        return new PoolStatus(outdatedNodes, lastProgressAt, lastTerminationAt, validationStreak, usedForceTokens, value, rollout, resumedAt);
    }
}
