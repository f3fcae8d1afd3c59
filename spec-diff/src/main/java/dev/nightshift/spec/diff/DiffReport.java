package dev.nightshift.spec.diff;

import java.util.List;

/** Every pool's decision for one change from an old spec to a new one. */
public record DiffReport(List<PoolDecision> pools) {

    public DiffReport {
        pools = List.copyOf(pools);
    }

    public boolean anyRejected() {
        return pools.stream().anyMatch(PoolDecision::rejected);
    }
}
