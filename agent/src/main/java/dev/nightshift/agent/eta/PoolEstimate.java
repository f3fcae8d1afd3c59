package dev.nightshift.agent.eta;

import java.time.ZoneId;
import java.util.Optional;

/**
 * What an estimate says of one pool, as {@code nightshift plan}, {@code nightshift diff} and
 * {@code /status} show it: its ETA ({@link PoolEta}, shown in {@code zone}, its cluster calendar's),
 * or why the estimate leaves out a pool with work (paused, report-only, ManualInPlaceUpdate, held
 * for good by another pool); neither for a pool with nothing to do. {@code rolls} says how the
 * cluster's pools take turns ({@link RolloutEta.Estimate#rolls()}).
 */
public record PoolEstimate(Optional<PoolEta> eta, Optional<String> leftOut, ZoneId zone, String rolls) {

    public static final PoolEstimate NONE = new PoolEstimate(Optional.empty(), Optional.empty(), ZoneId.of("UTC"));

    /** Of a cluster whose pools roll one at a time. */
    public PoolEstimate(Optional<PoolEta> eta, Optional<String> leftOut, ZoneId zone) {
        this(eta, leftOut, zone, RolloutEta.ONE_AT_A_TIME);
    }

    /** The pool's part of {@code estimate}. */
    public static PoolEstimate of(String pool, RolloutEta.Estimate estimate) {
        return new PoolEstimate(estimate.pool(pool), estimate.leftOut(pool), estimate.zone(), estimate.rolls());
    }

    /** Pools of the cluster roll several at a time, or after the pools they name: each pool's start is worth a line. */
    public boolean fleet() {
        return !rolls.equals(RolloutEta.ONE_AT_A_TIME);
    }
}
