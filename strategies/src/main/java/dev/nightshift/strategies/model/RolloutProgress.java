package dev.nightshift.strategies.model;

import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * Where a pool's rollout in waves stands, kept in the pool's record so that a restarted agent
 * resumes the same wave and soak. Everything else (how many nodes moved, which are in flight) is
 * observed again on every reconcile.
 *
 * @param target           the roll hash the rollout brings the pool to; another target is another rollout
 * @param outdatedAtStart  the pool's outdated nodes when the rollout started: the waves are shares of it
 * @param wave             the wave (0-based) whose nodes may move now
 * @param waveAvailableAt  when this wave's nodes were all at the target and available: its soak started then
 * @param unknownSince     since when the checks could not be judged, without interruption
 * @param failedMachines   the machines that failed (creation, registration, in-place update) since the last
 *                         one that came up: counted by name, so that one failure seen twice counts once
 * @param availableAtTarget nodes at the target and available at the last reconcile: more now is a machine that came up
 * @param halt             why the rollout stopped, until resumed or retargeted
 */
public record RolloutProgress(
        String target,
        int outdatedAtStart,
        int wave,
        Optional<Instant> waveAvailableAt,
        Optional<Instant> unknownSince,
        Set<String> failedMachines,
        int availableAtTarget,
        Optional<Halt> halt) {

    public RolloutProgress {
        failedMachines = Set.copyOf(failedMachines);
    }

    /**
     * Why a pool halted: the check (or {@code maxFailedMachines}), the value seen, the threshold, the
     * wave (1-based, as written) and when.
     */
    public record Halt(String check, String value, String threshold, int wave, Instant at) {

        /** The pseudo-check named when consecutive machine failures reached the limit. */
        public static final String MAX_FAILED_MACHINES = "maxFailedMachines";
    }
}
