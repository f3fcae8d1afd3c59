package dev.nightshift.strategies.plan;

import java.util.List;

/**
 * One pool's part of a plan: its next steps, in order, each acting in this pool, and its report.
 */
public record PoolPlan(String pool, List<Step> steps, PoolReport report) {

    public PoolPlan {
        steps = List.copyOf(steps);
        for (Step step : steps) {
            if (!step.pool().equals(pool)) {
                throw new IllegalArgumentException("step " + step + " acts in pool " + step.pool() + ", not in " + pool);
            }
        }
        if (!report.pool().equals(pool)) {
            throw new IllegalArgumentException("the report of pool " + report.pool() + " is not " + pool + "'s");
        }
    }

    /** The same pool with no steps: nothing is done in it now, and it still reports. */
    public PoolPlan withoutSteps() {
        return new PoolPlan(pool, List.of(), report);
    }
}
