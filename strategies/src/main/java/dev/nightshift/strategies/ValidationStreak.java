package dev.nightshift.strategies;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.Step;

/**
 * The rules of a pool's validation streak, which the agent and the simulator apply as they carry
 * out a plan: a healthy check counts unless it comes too soon after the streak's last one, an
 * unhealthy check ends the streak, and a deleted machine or a started batch (in place, kubelet
 * restarts) makes the next batch wait for fresh checks; a deletion also starts the pool's
 * {@code interval}.
 */
public final class ValidationStreak {

    /** The least time between two checks that count, unless configured otherwise. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);

    private ValidationStreak() {
    }

    /**
     * What one {@link Step.Validate} makes of the pool's status.
     *
     * @param healthy     the check passed: the API server answered ready and {@link RolloutPlanner#healthy} holds
     * @param lastCounted when the streak's last counted check was made; empty when none is known (after a restart)
     * @param interval    the least time between two checks that count
     */
    public static Check validate(PoolStatus status, boolean healthy, Optional<Instant> lastCounted, Duration interval, Instant now) {
        if (!healthy) {
            return new Check(status.withValidationStreak(0), false);
        }
        if (status.validationStreak() > 0 && lastCounted.filter(t -> t.plus(interval).isAfter(now)).isPresent()) {
            // Too soon after the streak's last check: checks in quick succession prove nothing.
            return new Check(status, false);
        }
        return new Check(status.withValidationStreak(status.validationStreak() + 1), true);
    }

    /** What carrying out {@code step} makes of its pool's status (a validation aside: see {@link #validate}). */
    public static PoolStatus afterStep(PoolStatus status, Step step, Instant now) {
        if (step instanceof Step.DeleteMachine) {
            return status.withLastTermination(now).withValidationStreak(0);
        }
        if (step instanceof Step.UpdateInPlace || step instanceof Step.RestartKubelet) {
            // A batch starts: the next one waits for fresh validations, as after a replacement.
            return status.withValidationStreak(0);
        }
        return status;
    }

    /**
     * The outcome of one check.
     *
     * @param counted the check counted: it is the streak's last one from now on
     */
    public record Check(PoolStatus status, boolean counted) {
    }
}
