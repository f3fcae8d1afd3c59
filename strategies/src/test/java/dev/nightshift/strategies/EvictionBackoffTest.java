package dev.nightshift.strategies;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class EvictionBackoffTest {

    private static final Instant REFUSED = Instant.parse("2026-11-23T10:00:00Z");

    @Test
    void theWaitDoublesWithEachRefusalFromTheFirst() {
        assertThat(EvictionBackoff.after(1)).isEqualTo(EvictionBackoff.FIRST);
        assertThat(EvictionBackoff.after(2)).isEqualTo(EvictionBackoff.FIRST.multipliedBy(2));
        assertThat(EvictionBackoff.after(3)).isEqualTo(EvictionBackoff.FIRST.multipliedBy(4));
    }

    @Test
    void theWaitNeverExceedsTheLongestEvenAfterManyRefusals() {
        assertThat(EvictionBackoff.after(6)).isEqualTo(EvictionBackoff.LONGEST);
        assertThat(EvictionBackoff.after(10_000)).isEqualTo(EvictionBackoff.LONGEST);
    }

    @Test
    void aPodIsAskedAgainOnlyOnceItsWaitHasPassed() {
        assertThat(EvictionBackoff.due(2, Optional.of(REFUSED), REFUSED.plus(Duration.ofMillis(3_999)))).isFalse();
        assertThat(EvictionBackoff.due(2, Optional.of(REFUSED), REFUSED.plusSeconds(4))).isTrue();
    }

    @Test
    void aRefusalOfUnknownTimeDoesNotHoldTheDrainBack() {
        assertThat(EvictionBackoff.due(5, Optional.empty(), REFUSED)).isTrue();
    }
}
