package dev.nightshift.agent.provider.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    @Test
    void eachWaitIsBetweenHalfItsCeilingAndTheCeilingWhichDoublesUpToTheMaximum() {
        RetryPolicy policy = new RetryPolicy(10, Duration.ofMillis(500), Duration.ofSeconds(3));
        SplittableRandom random = new SplittableRandom(7);
        long[] ceilings = {500, 1000, 2000, 3000, 3000, 3000};

        for (int run = 0; run < 200; run++) {
            for (int attempt = 1; attempt <= ceilings.length; attempt++) {
                long ceiling = ceilings[attempt - 1];
                assertThat(policy.backoff(attempt, random).toMillis()).as("attempt %d", attempt).isBetween(ceiling / 2, ceiling);
            }
        }
    }

    @Test
    void theSameSeedGivesTheSameWaits() {
        RetryPolicy policy = RetryPolicy.DEFAULT;

        assertThat(waits(policy, 42)).isEqualTo(waits(policy, 42)).isNotEqualTo(waits(policy, 43));
    }

    @Test
    void theDefaultWaitsAtMostFifteenAndAHalfSecondsInAll() {
        long ceiling = IntStream.rangeClosed(1, RetryPolicy.DEFAULT.maxAttempts() - 1)
                .mapToLong(attempt -> RetryPolicy.DEFAULT.backoff(attempt, new FixedTop()).toMillis()).sum();

        assertThat(ceiling).isEqualTo(15_500);
    }

    @Test
    void aRetryAfterIsCappedAtTheMaximumBackoffAndNeverNegative() {
        RetryPolicy policy = RetryPolicy.DEFAULT;

        assertThat(policy.capped(Duration.ofSeconds(7))).isEqualTo(Duration.ofSeconds(7));
        assertThat(policy.capped(Duration.ofHours(1))).isEqualTo(Duration.ofSeconds(30));
        assertThat(policy.capped(Duration.ofSeconds(-3))).isEqualTo(Duration.ZERO);
    }

    @Test
    void nonsenseIsRefused() {
        assertThatThrownBy(() -> new RetryPolicy(0, Duration.ofMillis(1), Duration.ofMillis(1))).hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> new RetryPolicy(1, Duration.ZERO, Duration.ofMillis(1))).hasMessageContaining("initialBackoff");
        assertThatThrownBy(() -> new RetryPolicy(1, Duration.ofSeconds(2), Duration.ofSeconds(1))).hasMessageContaining("maxBackoff");
    }

    private static List<Duration> waits(RetryPolicy policy, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        return IntStream.rangeClosed(1, 5).mapToObj(attempt -> policy.backoff(attempt, random)).toList();
    }

    /** Always draws the largest value: the ceiling of each wait. */
    private static final class FixedTop implements java.util.random.RandomGenerator {
        @Override
        public long nextLong() {
            throw new UnsupportedOperationException();
        }

        @Override
        public long nextLong(long bound) {
            return bound - 1;
        }
    }
}
