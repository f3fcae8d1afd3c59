package dev.nightshift.strategies;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.nightshift.spec.model.MachineControllerManager;
import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.spec.model.Taint;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedNode;

/**
 * What a plan asks of one node that depends on nothing but the node and its pool's desired state,
 * judged once per observed node: an {@link ObservedNode} is immutable, so the same object judged
 * again gives the same answers ({@link PlanMemo} keeps them from one plan to the next). What
 * depends on the time is kept as the instants it turns on (when the node becomes available, its
 * latest timer); what depends on other nodes (surge partners, health) is judged by {@link PoolView}
 * in every plan.
 */
final class NodeFacts {

    final ObservedNode node;
    /** Of the judged pool (by its pool field). */
    final boolean inPool;
    final boolean terminating;
    final boolean registered;
    final boolean ready;
    final boolean outdated;
    /** At the desired roll hash, not at the desired kubelet hash. */
    final boolean kubeletOutdated;
    /** {@link PoolView#inFlight(ObservedNode)}. */
    final boolean inFlight;
    final boolean draining;
    final boolean kubeletRestart;
    final boolean updateTainted;
    final boolean inPlaceFailed;
    /** Reports conditions: judged by health in every plan ({@link Repairs#judge}). */
    final boolean hasConditions;
    /** {@link PoolView#alreadyDown(ObservedNode)} of a node that is not unhealthy. */
    final boolean downUnlessUnhealthy;
    /** May need a stamp or a propagation; the others certainly need neither. */
    final boolean stampOrPropagate;
    /** Registered and outdated or tainted for update: the only nodes whose taint may change. */
    final boolean taintCandidate;
    /** A machine still coming up (not registered; for a bastion not Ready) with a creation time. */
    final boolean pendingCreation;
    /** In flight in the phase's sense: drained or updated, restarting, or a new machine not registered yet. */
    final boolean phaseInFlight;
    final boolean hasRollHash;
    final String name;
    /** The node's name's hash code: names are looked up without reading them. */
    final int nameHash;
    /** The old node a surge machine stands in for, or null. */
    final String surgeFor;
    final int surgeForHash;
    final int removalOrder;
    /**
     * From when the node is available unless it is unhealthy ({@link PoolView#available(ObservedNode)}):
     * Ready for minReadySeconds; null if it is not available however long one waits.
     */
    final Instant availableFrom;
    /**
     * The latest of the instants at which the node changes by itself ({@link PoolView}'s timer),
     * health aside; null if none. A node whose latest timer is not after now has none to wait for.
     */
    final Instant lastTimer;
    /** {@link #availableFrom} and {@link #lastTimer} in {@link #epochNanos}: compared without reading the instants. */
    private final long availableFromNanos;
    private final long lastTimerNanos;

    private NodeFacts(Judge judge, ObservedNode n) {
        this.node = n;
        boolean bastion = judge.bastion;
        inPool = n.pool().equals(judge.pool.name());
        terminating = n.terminating();
        registered = n.registered();
        ready = n.ready();
        outdated = judge.pool.outdated(n);
        kubeletOutdated = !outdated && judge.pool.kubeletOutdated(n);
        inFlight = PoolView.inFlight(n);
        draining = n.draining();
        kubeletRestart = n.kubeletRestartAt().isPresent();
        updateTainted = n.updateTainted();
        inPlaceFailed = n.inPlaceFailed();
        hasConditions = !n.conditions().isEmpty();
        downUnlessUnhealthy = bastion ? !ready : !ready || (n.cordoned() && !inFlight);
        stampOrPropagate = PoolView.needsStamp(judge.pool, bastion, n) || (registered && !bastion
                && (!judge.labels.equals(n.managedLabels()) || !judge.annotations.equals(n.managedAnnotations())
                || !judge.taints.equals(n.managedTaints())));
        taintCandidate = registered && (outdated || updateTainted);
        pendingCreation = (bastion ? !ready : !registered) && n.createdAt().isPresent();
        phaseInFlight = inFlight || kubeletRestart || (!registered && !bastion && !outdated);
        hasRollHash = n.rollHash().isPresent();
        name = n.name();
        nameHash = name.hashCode();
        surgeFor = n.surgeFor().orElse(null);
        surgeForHash = surgeFor == null ? 0 : surgeFor.hashCode();
        removalOrder = n.removalOrder();
        Instant readyFor = n.readySince().map(since -> since.plus(judge.minReady)).orElse(null);
        boolean mayServe = bastion ? !terminating : registered && !terminating && !n.cordoned() && !inFlight;
        availableFrom = mayServe ? readyFor : null;
        // The same instants as PoolView's timer, but for health, which is judged per plan.
        Instant last = readyFor;
        if (draining) {
            last = latest(last, n.drainStartedAt().get().plus(judge.mcm.drainTimeout()));
        }
        if (n.inPlaceStartedAt().isPresent()) {
            last = latest(last, n.inPlaceStartedAt().get().plus(judge.mcm.inPlaceUpdateTimeout()));
        }
        if (kubeletRestart) {
            last = latest(last, n.kubeletRestartAt().get().plus(judge.mcm.healthTimeout()));
        }
        if (registered && !bastion && !ready && n.createdAt().isPresent()) {
            last = latest(last, n.createdAt().get().plus(judge.mcm.creationTimeout()));
        }
        lastTimer = last;
        availableFromNanos = epochNanos(availableFrom);
        lastTimerNanos = epochNanos(lastTimer);
    }

    private static Instant latest(Instant a, Instant b) {
        return a == null || b.isAfter(a) ? b : a;
    }

    /** No instant, or one too far from 1970 for nanoseconds in a long (then the instants are compared). */
    static final long NO_NANOS = Long.MIN_VALUE;
    private static final long MAX_SECONDS = Long.MAX_VALUE / 1_000_000_000L - 1;

    /** The instant as nanoseconds since the epoch, exact within about 292 years of 1970; otherwise {@link #NO_NANOS}. */
    static long epochNanos(Instant t) {
        if (t == null || Math.abs(t.getEpochSecond()) > MAX_SECONDS) {
            return NO_NANOS;
        }
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    /** Available at {@code now} ({@code nowNanos} its {@link #epochNanos}), unless it is unhealthy. */
    boolean availableAt(Instant now, long nowNanos) {
        if (availableFromNanos != NO_NANOS && nowNanos != NO_NANOS) {
            return availableFromNanos <= nowNanos;
        }
        return availableFrom != null && !availableFrom.isAfter(now);
    }

    /** Some timer of the node, health aside, is after {@code now} ({@code nowNanos} its {@link #epochNanos}). */
    boolean timerAfter(Instant now, long nowNanos) {
        if (lastTimerNanos != NO_NANOS && nowNanos != NO_NANOS) {
            return lastTimerNanos > nowNanos;
        }
        return lastTimer != null && lastTimer.isAfter(now);
    }

    /** Judges nodes for one pool's desired state, with what it takes from the spec taken once. */
    static final class Judge {
        private final DesiredPool pool;
        private final boolean bastion;
        private final Duration minReady;
        private final MachineControllerManager mcm;
        private final Map<String, String> labels;
        private final Map<String, String> annotations;
        private final List<Taint> taints;

        Judge(DesiredPool pool) {
            this.pool = pool;
            this.bastion = pool.spec().pool().role() == PoolRole.BASTION;
            this.minReady = Duration.ofSeconds(pool.spec().pool().minReadySeconds());
            this.mcm = pool.spec().pool().machineControllerManager();
            this.labels = Map.copyOf(pool.labels());
            this.annotations = Map.copyOf(pool.annotations());
            this.taints = pool.spec().pool().taints();
        }

        DesiredPool pool() {
            return pool;
        }

        NodeFacts judge(ObservedNode n) {
            return new NodeFacts(this, n);
        }
    }
}
