package dev.nightshift.strategies;

import static dev.nightshift.strategies.Fixtures.T0;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.Step;

/** The validation streak and interval rules the agent and the simulator apply to a pool's status. */
class ValidationStreakTest {

    private static final Duration INTERVAL = Duration.ofSeconds(10);
    private static final PoolStatus ONE = PoolStatus.NEW.withValidationStreak(1);
    private static final DesiredPool WEB = Fixtures.desired(Fixtures.cluster(Fixtures.pool("web", "")), "web");

    @Test
    void aHealthyCheckCountsAndLengthensTheStreak() {
        ValidationStreak.Check check = ValidationStreak.validate(PoolStatus.NEW, true, Optional.empty(), INTERVAL, T0);

        assertThat(check.counted()).isTrue();
        assertThat(check.status().validationStreak()).isEqualTo(1);
    }

    @Test
    void anUnhealthyCheckEndsTheStreak() {
        ValidationStreak.Check check = ValidationStreak.validate(PoolStatus.NEW.withValidationStreak(2), false, Optional.of(T0),
                INTERVAL, T0.plusSeconds(60));

        assertThat(check.counted()).isFalse();
        assertThat(check.status().validationStreak()).isZero();
    }

    @Test
    void aCheckTooSoonAfterTheStreaksLastDoesNotCount() {
        ValidationStreak.Check check = ValidationStreak.validate(ONE, true, Optional.of(T0), INTERVAL, T0.plusSeconds(9));

        assertThat(check.counted()).isFalse();
        assertThat(check.status()).isEqualTo(ONE);
    }

    @Test
    void aCheckOneIntervalAfterTheStreaksLastCounts() {
        ValidationStreak.Check check = ValidationStreak.validate(ONE, true, Optional.of(T0), INTERVAL, T0.plusSeconds(10));

        assertThat(check.counted()).isTrue();
        assertThat(check.status().validationStreak()).isEqualTo(2);
    }

    @Test
    void theFirstCheckOfAStreakCountsHoweverSoon() {
        ValidationStreak.Check check = ValidationStreak.validate(PoolStatus.NEW, true, Optional.of(T0), INTERVAL, T0.plusSeconds(1));

        assertThat(check.counted()).isTrue();
    }

    @Test
    void afterARestartTheNextCheckCountsAtOnce() {
        ValidationStreak.Check check = ValidationStreak.validate(ONE, true, Optional.empty(), INTERVAL, T0);

        assertThat(check.counted()).isTrue();
    }

    @Test
    void aDeletedMachineStartsTheIntervalAndEndsTheStreak() {
        Instant now = T0.plusSeconds(5);

        PoolStatus after = ValidationStreak.afterStep(ONE, new Step.DeleteMachine("n-1", "web", true, WEB), now);

        assertThat(after.lastTerminationAt()).contains(now);
        assertThat(after.validationStreak()).isZero();
    }

    @Test
    void anInPlaceUpdateStartedEndsTheStreak() {
        assertThat(ValidationStreak.afterStep(ONE, new Step.UpdateInPlace("n-1", "web", WEB), T0).validationStreak()).isZero();
    }

    @Test
    void aKubeletRestartStartedEndsTheStreak() {
        assertThat(ValidationStreak.afterStep(ONE, new Step.RestartKubelet("n-1", "web", WEB), T0).validationStreak()).isZero();
    }

    @Test
    void aDrainLeavesTheStatusAsItIs() {
        assertThat(ValidationStreak.afterStep(ONE, new Step.Drain("n-1", "web"), T0)).isEqualTo(ONE);
    }
}
