package dev.nightshift.agent.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.eta.PoolDurations;
import dev.nightshift.agent.eta.RolloutEta;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolReport;

/**
 * The estimate of what is left of the rollout, for {@code /status}: simulated again only when
 * what it depends on changed (the spec, a pool's outdated nodes, action or phase, the durations
 * observed) or it is a minute old, not on every reconcile (every two seconds while nodes are in
 * flight), and never on the reconcile's thread: simulating a pool of thousands of nodes through a
 * calendar takes seconds, which would delay every step. A reconcile reports the newest estimate
 * finished; the one it asked for comes with a later reconcile.
 */
final class EtaRefresh implements AutoCloseable {

    static final Duration STALE = Duration.ofMinutes(1);
    private static final Logger LOG = LoggerFactory.getLogger(EtaRefresh.class);

    /** What to estimate: the inputs of one reconcile. */
    private record Request(DesiredCluster desired, Plan plan, Map<String, PoolDurations> history, Instant now) {
    }

    private final RolloutEta eta;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "nightshift-eta");
        t.setDaemon(true);
        return t;
    });
    /** The newest request not taken up yet; older ones are dropped, only the newest matters. */
    private final AtomicReference<Request> pending = new AtomicReference<>();
    private volatile RolloutEta.Estimate last;
    /** Read and written on the reconcile's thread only. */
    private Object inputs;
    private Instant at;

    EtaRefresh(RolloutEta eta) {
        this.eta = eta;
    }

    /** The newest estimate finished (empty before the first), after asking for a new one if its inputs changed. */
    Optional<RolloutEta.Estimate> estimate(DesiredCluster desired, Plan plan, Function<String, PoolDurations> durations, Instant now) {
        Map<String, PoolDurations> history = new TreeMap<>();
        Map<String, List<Object>> work = new TreeMap<>();
        for (PoolReport r : plan.reports().values()) {
            if (r.outdated() > 0) {
                history.put(r.pool(), durations.apply(r.pool()));
                work.put(r.pool(), List.of(r.outdated(), r.updating(), r.pendingAction(), r.phase()));
            }
        }
        Object key = List.of(desired, work, history);
        if (inputs == null || !key.equals(inputs) || !now.isBefore(at.plus(STALE))) {
            inputs = key;
            at = now;
            if (pending.getAndSet(new Request(desired, plan, history, now)) == null) {
                try {
                    worker.execute(this::drain);
                } catch (RejectedExecutionException closing) {
                    pending.set(null);
                }
            }
        }
        return Optional.ofNullable(last);
    }

    private void drain() {
        for (Request r = pending.getAndSet(null); r != null; r = pending.getAndSet(null)) {
            try {
                last = eta.remaining(r.desired(), r.plan(), r.history(), r.now());
            } catch (RuntimeException e) {
                LOG.warn("the rollout's ETA could not be estimated", e);
            }
        }
    }

    /** A new term: estimate afresh. */
    void forget() {
        inputs = null;
        last = null;
    }

    @Override
    public void close() {
        worker.shutdownNow();
    }
}
