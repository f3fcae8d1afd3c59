package dev.nightshift.agent.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import dev.nightshift.agent.eta.PoolDurations;
import dev.nightshift.agent.eta.RolloutEta;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolReport;

/**
 * The estimate of what is left of the rollout, for {@code /status}: simulated again only when
 * what it depends on changed (the spec, a pool's outdated nodes, action or phase, the durations
 * observed) or it is a minute old, not on every reconcile (every two seconds while nodes are in
 * flight).
 */
final class EtaRefresh {

    static final Duration STALE = Duration.ofMinutes(1);

    private final RolloutEta eta;
    private Object inputs;
    private Instant at;
    private RolloutEta.Estimate last;

    EtaRefresh(RolloutEta eta) {
        this.eta = eta;
    }

    RolloutEta.Estimate estimate(DesiredCluster desired, Plan plan, Function<String, PoolDurations> durations, Instant now) {
        Map<String, PoolDurations> history = new TreeMap<>();
        Map<String, List<Object>> work = new TreeMap<>();
        for (PoolReport r : plan.reports().values()) {
            if (r.outdated() > 0) {
                history.put(r.pool(), durations.apply(r.pool()));
                work.put(r.pool(), List.of(r.outdated(), r.updating(), r.pendingAction(), r.phase()));
            }
        }
        Object key = List.of(desired, work, history);
        if (last == null || !key.equals(inputs) || !now.isBefore(at.plus(STALE))) {
            last = eta.remaining(desired, plan, history, now);
            inputs = key;
            at = now;
        }
        return last;
    }

    /** A new term: estimate afresh. */
    void forget() {
        last = null;
    }
}
