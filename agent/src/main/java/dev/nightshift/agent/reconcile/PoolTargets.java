package dev.nightshift.agent.reconcile;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.spec.diff.InPlaceHistory;
import dev.nightshift.spec.diff.PoolTarget;
import dev.nightshift.spec.load.CanonicalYaml;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.strategies.plan.PoolReport;

/**
 * The Reconciler's memory of why each pool's nodes change: the pool's {@link PoolTarget} and the
 * spec at which the pool was last fully current, read from and written to the pool records. The
 * decisions are {@link PoolTarget#next} and {@link PoolReport#fullyCurrent()}; this only keeps their inputs.
 */
final class PoolTargets {

    private static final Logger LOG = LoggerFactory.getLogger(PoolTargets.class);

    /** A spec the pool was fully current at: the texts for its record, and the spec for the next diff. */
    private record Baseline(PoolStatusRecords.Accepted texts, ResolvedPool pool) {
    }

    private final Map<String, Baseline> fullyCurrent = new HashMap<>();
    /** Read by {@code /status} while the loop writes: replaced whole, never changed in place. */
    private volatile Map<String, PoolTarget> targets = Map.of();

    /** Forgets everything, before the records are read again. */
    void clear() {
        fullyCurrent.clear();
        targets = Map.of();
    }

    /** What a pool's record says; a last fully-current spec that cannot be read is left out (the accepted one stands in). */
    void read(String pool, PoolStatusRecords.Why why) {
        why.target().ifPresent(t -> {
            Map<String, PoolTarget> next = new TreeMap<>(targets);
            next.put(pool, t);
            targets = Map.copyOf(next);
        });
        why.fullyCurrent().ifPresent(texts -> {
            LoadResult loaded = CanonicalYaml.read(texts.cluster(), texts.pool());
            if (loaded.valid() && loaded.specs().pools().size() == 1
                    && loaded.specs().cluster(loaded.specs().pools().get(0).cluster()).isPresent()) {
                WorkerPoolSpec spec = loaded.specs().pools().get(0);
                fullyCurrent.put(pool, new Baseline(texts, new ResolvedPool(loaded.specs().cluster(spec.cluster()).orElseThrow(), spec)));
            } else {
                LOG.warn("{}: the spec it was last fully current at cannot be read; its next target's reasons start from the spec it accepted",
                        pool);
            }
        });
    }

    /**
     * A commit was accepted: each offered pool's target follows from the spec it was last fully
     * current at (or, without one, the spec it accepted before).
     *
     * @param before what each pool accepted before: its spec and its record's texts
     * @return the pools whose target changed, with their new target, in name order
     */
    Map<String, PoolTarget> accept(String commit, Map<String, ResolvedPool> offered, Map<String, ResolvedPool> before,
                                   Map<String, PoolStatusRecords.Accepted> beforeTexts, InPlaceHistory history, String cluster) {
        Map<String, PoolTarget> next = new TreeMap<>();
        Map<String, PoolTarget> changed = new LinkedHashMap<>();
        new TreeMap<>(offered).forEach((pool, spec) -> {
            Optional<PoolTarget> previous = Optional.ofNullable(targets.get(pool));
            Baseline b = fullyCurrent.get(pool);
            Optional<ResolvedPool> baseline = b != null ? Optional.of(b.pool()) : Optional.ofNullable(before.get(pool));
            boolean current = b != null && beforeTexts.containsKey(pool) && b.texts().cluster().equals(beforeTexts.get(pool).cluster())
                    && b.texts().pool().equals(beforeTexts.get(pool).pool());
            PoolTarget t = PoolTarget.next(previous, baseline, current, commit, spec, history.of(cluster, pool));
            next.put(pool, t);
            if (previous.isEmpty() || !previous.get().equals(t)) {
                changed.put(pool, t);
            }
        });
        fullyCurrent.keySet().retainAll(offered.keySet());
        targets = Map.copyOf(next);
        return changed;
    }

    /** Pools the plan found fully current at what they accepted: that spec is where their next target's reasons start. */
    void observed(Map<String, PoolReport> reports, Map<String, PoolStatusRecords.Accepted> acceptedTexts, Map<String, ResolvedPool> accepted) {
        reports.forEach((pool, report) -> {
            if (report.fullyCurrent() && acceptedTexts.containsKey(pool) && accepted.containsKey(pool)) {
                fullyCurrent.put(pool, new Baseline(acceptedTexts.get(pool), accepted.get(pool)));
            }
        });
    }

    /** The spec the pool was last fully current at, with its record's texts; empty when it never was. */
    Optional<Map.Entry<PoolStatusRecords.Accepted, ResolvedPool>> fullyCurrent(String pool) {
        return Optional.ofNullable(fullyCurrent.get(pool)).map(b -> Map.entry(b.texts(), b.pool()));
    }

    /** The pool's target is {@code target} now (a rollback), the others' as they were. */
    void set(String pool, PoolTarget target) {
        Map<String, PoolTarget> next = new TreeMap<>(targets);
        next.put(pool, target);
        targets = Map.copyOf(next);
    }

    PoolStatusRecords.Why why(String pool) {
        return new PoolStatusRecords.Why(Optional.ofNullable(targets.get(pool)),
                Optional.ofNullable(fullyCurrent.get(pool)).map(Baseline::texts));
    }

    Map<String, PoolTarget> targets() {
        return targets;
    }

    /** The log line's list: each pool with its action and reasons. */
    static String describe(Map<String, PoolTarget> targets) {
        StringBuilder line = new StringBuilder();
        targets.forEach((pool, t) -> line.append(line.length() == 0 ? "" : "; ").append(pool).append(": ").append(t.action())
                .append(" (").append(t.summary(5)).append(")"));
        return line.toString();
    }
}
