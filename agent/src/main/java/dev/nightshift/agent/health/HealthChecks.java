package dev.nightshift.agent.health;

import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.spec.model.HealthCheck;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.HealthVerdict;
import dev.nightshift.strategies.model.ObservedCluster;

/**
 * Judges the rollout health checks of the pools that are rolling (outdated nodes, or a rollout
 * recorded): a failing check wins, then an unknown one, else passing. Pools at rest are not asked
 * about, so that Prometheus is queried only while a rollout can use the answer, and the workloads
 * their drains evicted are no longer followed; nor are those of a rollout to another target than the pool's now.
 */
public final class HealthChecks implements HealthJudge {

    private final PrometheusQueries prometheus;
    private final WorkloadsCheck workloads;

    public HealthChecks(PrometheusQueries prometheus, WorkloadsCheck workloads) {
        this.prometheus = prometheus;
        this.workloads = workloads;
    }

    @Override
    public Map<String, HealthVerdict> verdicts(DesiredCluster desired, ObservedCluster observed, Instant now) {
        Map<String, HealthVerdict> verdicts = new LinkedHashMap<>();
        for (DesiredPool pool : desired.pools()) {
            boolean rolling = observed.status(pool.name()).rollout().isPresent()
                    || observed.nodesOf(pool.name()).stream().anyMatch(pool::outdated);
            if (!rolling) {
                // Whatever its spec now (a rolled-back pool acts without its checks): evictions of a rollout
                // that is over must not fail the next one, which starts long after them.
                workloads.atRest(pool.name());
                continue;
            }
            if (observed.status(pool.name()).rollout().filter(r -> !r.target().equals(pool.rollHash().toString())).isPresent()) {
                // A new target is a new rollout (a halt of the last one does not hold it either): the workloads the last one
                // evicted, perhaps still broken by the image this target replaces, must not fail it before it moves a node.
                workloads.atRest(pool.name());
            }
            List<HealthCheck> checks = pool.spec().rollout().healthChecks();
            if (!checks.isEmpty()) {
                verdicts.put(pool.name(), judge(pool.name(), checks, now));
            }
        }
        return verdicts;
    }

    /** Every check of one pool: the first failing one, else the first unknown one, else passing. */
    HealthVerdict judge(String pool, List<HealthCheck> checks, Instant now) {
        Optional<HealthVerdict> unknown = Optional.empty();
        for (HealthCheck check : checks) {
            HealthVerdict v = check instanceof HealthCheck.Prometheus p ? prometheus(p)
                    : workloads.judge(pool, (HealthCheck.WorkloadsAvailable) check, now);
            if (v instanceof HealthVerdict.Failing) {
                return v;
            }
            if (v instanceof HealthVerdict.Unknown && unknown.isEmpty()) {
                unknown = Optional.of(v);
            }
        }
        return unknown.orElse(HealthVerdict.PASSING);
    }

    private HealthVerdict prometheus(HealthCheck.Prometheus check) {
        QueryAnswer answer = prometheus.query(check.query());
        if (answer instanceof QueryAnswer.Unknown u) {
            return new HealthVerdict.Unknown(check.name(), u.why());
        }
        double value = ((QueryAnswer.Value) answer).value();
        BigDecimal v = BigDecimal.valueOf(value);
        if (check.max().isPresent() && v.compareTo(check.max().get()) > 0) {
            return new HealthVerdict.Failing(check.name(), text(value), "<= " + check.max().get().toPlainString());
        }
        if (check.min().isPresent() && v.compareTo(check.min().get()) < 0) {
            return new HealthVerdict.Failing(check.name(), text(value), ">= " + check.min().get().toPlainString());
        }
        return HealthVerdict.PASSING;
    }

    /** Six significant digits, no exponent: 0.0712345 → "0.0712345", 1/3 → "0.333333". */
    static String text(double value) {
        return new BigDecimal(value, new MathContext(6)).stripTrailingZeros().toPlainString();
    }
}
