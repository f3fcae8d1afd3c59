package dev.nightshift.strategies.plan;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The next steps, in order, and every pool's report.
 *
 * @param wakeAt the earliest time at which the plan would change with nothing else happening
 *               (minReadySeconds passing, an interval ending, a deadline); empty if none
 */
public record Plan(List<Step> steps, Map<String, PoolReport> pools, Optional<Instant> wakeAt) {

    public Plan {
        steps = List.copyOf(steps);
        pools = Map.copyOf(pools);
    }
}
