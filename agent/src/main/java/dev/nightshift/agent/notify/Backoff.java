package dev.nightshift.agent.notify;

import java.time.Duration;

/**
 * How a destination's failed delivery is tried again: after {@code first}, doubling up to {@code longest}, at most
 * {@code attempts} tries in all; then it is counted as failed and the queue goes on.
 */
public record Backoff(Duration first, Duration longest, int attempts) {

    /** About 15 s of waiting between five tries (plus their timeouts): long enough for a forge's blip, short enough to keep order. */
    public static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30), 5);

    public Backoff {
        if (attempts < 1) {
            throw new IllegalArgumentException("at least one attempt");
        }
    }

    /** The wait after the {@code failed}-th failed try (1-based). */
    public Duration after(int failed) {
        Duration d = first.multipliedBy(1L << Math.min(20, Math.max(0, failed - 1)));
        return d.compareTo(longest) > 0 ? longest : d;
    }
}
