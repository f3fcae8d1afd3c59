package dev.nightshift.agent.kube;

/** What one eviction request came to. */
public sealed interface EvictionResult {

    record Evicted() implements EvictionResult {
    }

    /** Gone already. */
    record NotFound() implements EvictionResult {
    }

    /** A PodDisruptionBudget refused it (429 with a DisruptionBudget cause). */
    record BlockedByBudget(String budget, String message) implements EvictionResult {
    }

    /** Throttled or failed for another reason (429 without a budget cause, 5xx): try again later. */
    record Retry(int status, String message) implements EvictionResult {
    }
}
