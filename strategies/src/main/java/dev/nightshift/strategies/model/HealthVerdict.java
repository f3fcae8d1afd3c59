package dev.nightshift.strategies.model;

/**
 * What a pool's rollout health checks say now, judged by the agent (Prometheus, workloads) and
 * given to the planner, which stays pure. A pool without checks is always {@link Passing}.
 */
public sealed interface HealthVerdict {

    Passing PASSING = new Passing();

    /** Every check answered and is within its bounds. */
    record Passing() implements HealthVerdict {
    }

    /** A check answered outside its bounds: {@code value} against {@code threshold} (e.g. "> 0.01"). */
    record Failing(String check, String value, String threshold) implements HealthVerdict {
    }

    /**
     * A check could not be judged (Prometheus unreachable, a query error, no data, no verdict at
     * all): nothing new starts, and after the soak time of it the rollout has failed. Never passing.
     */
    record Unknown(String check, String why) implements HealthVerdict {
    }
}
