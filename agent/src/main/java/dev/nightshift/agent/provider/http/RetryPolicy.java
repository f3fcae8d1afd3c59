package dev.nightshift.agent.provider.http;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * How often and how patiently the machine API client repeats a request that may succeed later
 * (429, 5xx, a timeout, a lost connection).
 *
 * <p>The wait before attempt {@code n + 1} is exponential with "equal jitter": with
 * {@code ceiling = min(maxBackoff, initialBackoff × 2^(n-1))}, a wait drawn uniformly from
 * {@code [ceiling / 2, ceiling]}. Half the ceiling is always waited, so a failing server is never
 * hammered; the random half spreads out agents that failed together. With the defaults (6
 * attempts, 500 ms, 30 s) the five waits are at most 0.5, 1, 2, 4 and 8 s (15.5 s in all).
 *
 * @param maxAttempts    attempts in all, the first one included (1 = never repeat)
 * @param initialBackoff the ceiling of the first wait
 * @param maxBackoff     no wait is longer, whatever the attempt or the server's {@code Retry-After}
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {

    public static final RetryPolicy DEFAULT = new RetryPolicy(6, Duration.ofMillis(500), Duration.ofSeconds(30));

    public RetryPolicy {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, not " + maxAttempts);
        }
        if (initialBackoff.isNegative() || initialBackoff.isZero()) {
            throw new IllegalArgumentException("initialBackoff must be positive, not " + initialBackoff);
        }
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("maxBackoff (" + maxBackoff + ") must not be shorter than initialBackoff (" + initialBackoff + ")");
        }
    }

    /** The wait after failed attempt {@code attempt} (1-based), when the server did not say how long. */
    public Duration backoff(int attempt, RandomGenerator random) {
        long ceiling = ceilingMillis(attempt);
        long half = ceiling / 2;
        return Duration.ofMillis(half + random.nextLong(ceiling - half + 1));
    }

    /** The wait the server asked for with {@code Retry-After}, never longer than {@link #maxBackoff}. */
    public Duration capped(Duration asked) {
        if (asked.isNegative()) {
            return Duration.ZERO;
        }
        return asked.compareTo(maxBackoff) > 0 ? maxBackoff : asked;
    }

    private long ceilingMillis(int attempt) {
        long max = maxBackoff.toMillis();
        long ceiling = initialBackoff.toMillis();
        for (int i = 1; i < attempt && ceiling < max; i++) {
            ceiling *= 2;
        }
        return Math.min(ceiling, max);
    }
}
