package dev.nightshift.agent.reconcile;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

import dev.nightshift.agent.eta.PoolDurations;

/**
 * Each pool's observed durations ({@link PoolDurations}) during one term as leader: read from the
 * pool's status record the first time a pool is asked for, then kept here and added to as the
 * tracker sees work finish, and written back with the record. The record's cached copy may lag
 * the write just made, so it is read once a term, never again.
 */
final class ObservedDurations {

    private final Function<String, PoolDurations> recorded;
    private final Map<String, PoolDurations> byPool = new HashMap<>();

    /** @param recorded what a pool's status record holds (NONE without a record) */
    ObservedDurations(Function<String, PoolDurations> recorded) {
        this.recorded = recorded;
    }

    PoolDurations of(String pool) {
        return byPool.computeIfAbsent(pool, recorded);
    }

    /** Adds what finished in one reconcile: creations, drains, and in-place updates and kubelet restarts that succeeded. */
    void add(NodeUpdateTracker.Finished finished) {
        finished.creations().forEach(c -> add(c.pool(), PoolDurations.Kind.CREATE, c.took()));
        finished.drains().forEach(d -> add(d.pool(), PoolDurations.Kind.DRAIN, d.took()));
        for (NodeUpdate u : finished.updates()) {
            if (!u.succeeded()) {
                continue;
            }
            switch (u.kind()) {
                case IN_PLACE -> add(u.pool(), PoolDurations.Kind.IN_PLACE, u.took());
                case KUBELET_RESTART -> add(u.pool(), PoolDurations.Kind.KUBELET_RESTART, u.took());
                // A roll's time includes waits between its steps: the creation and drain it is made of are timed alone.
                case ROLL -> { }
            }
        }
    }

    private void add(String pool, PoolDurations.Kind kind, java.time.Duration took) {
        byPool.put(pool, of(pool).with(kind, took));
    }

    /** A new term: the records are read again. */
    void forget() {
        byPool.clear();
    }
}
