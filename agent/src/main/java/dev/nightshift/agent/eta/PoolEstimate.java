package dev.nightshift.agent.eta;

import java.time.ZoneId;
import java.util.Optional;

/**
 * What an estimate says of one pool, as {@code nightshift plan}, {@code nightshift diff} and
 * {@code /status} show it: its ETA ({@link PoolEta}, shown in {@code zone}, its cluster calendar's),
 * or why the estimate leaves out a pool with work (paused, report-only, ManualInPlaceUpdate);
 * neither for a pool with nothing to do.
 */
public record PoolEstimate(Optional<PoolEta> eta, Optional<String> leftOut, ZoneId zone) {

    public static final PoolEstimate NONE = new PoolEstimate(Optional.empty(), Optional.empty(), ZoneId.of("UTC"));

    /** The pool's part of {@code estimate}. */
    public static PoolEstimate of(String pool, RolloutEta.Estimate estimate) {
        return new PoolEstimate(estimate.pool(pool), estimate.leftOut(pool), estimate.zone());
    }
}
