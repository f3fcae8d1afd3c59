package dev.nightshift.strategies;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * How long a drain waits before asking again to evict a pod whose eviction a PodDisruptionBudget
 * refused: {@link #FIRST} after the first refusal, doubling with each further one, never more than
 * {@link #LONGEST}. Without it every reconcile, and each one is triggered by the refusal count the
 * drain itself writes on the node, would ask again within milliseconds, and {@code maxEvictRetries}
 * refusals would be used up before the budget had any chance to allow a disruption.
 */
public final class EvictionBackoff {

    public static final Duration FIRST = Duration.ofSeconds(2);
    public static final Duration LONGEST = Duration.ofMinutes(1);

    private EvictionBackoff() {
    }

    /** The wait after the {@code refusals}-th refusal in a row (1 for the first); none before any. */
    public static Duration after(int refusals) {
        if (refusals <= 0) {
            return Duration.ZERO;
        }
        Duration wait = FIRST;
        for (int i = 1; i < refusals && wait.compareTo(LONGEST) < 0; i++) {
            wait = wait.multipliedBy(2);
        }
        return wait.compareTo(LONGEST) < 0 ? wait : LONGEST;
    }

    /** Whether a pod refused {@code refusals} times, the last at {@code lastRefusal} (unknown: long ago), may be asked again now. */
    public static boolean due(int refusals, Optional<Instant> lastRefusal, Instant now) {
        return lastRefusal.map(t -> !t.plus(after(refusals)).isAfter(now)).orElse(true);
    }
}
