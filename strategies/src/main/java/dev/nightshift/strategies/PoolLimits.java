package dev.nightshift.strategies;

import dev.nightshift.spec.model.ResolvedPool;

/**
 * A pool's maxSurge and maxUnavailable resolved against its size, the one rule the planner, the
 * simulator, the lower bounds and every report use: surge percentages round up, unavailable
 * percentages round down, and with both 0 after rounding one node may be unavailable (the
 * Deployment rule).
 */
public record PoolLimits(int maxSurge, int maxUnavailable) {

    /** @param count the machines that count (see {@link PoolAccount}) */
    public static PoolLimits of(ResolvedPool pool, int count) {
        int surge = pool.maxSurge().resolve(count, true);
        int unavailable = pool.maxUnavailable().resolve(count, false);
        return new PoolLimits(surge, unavailable == 0 && surge == 0 ? 1 : unavailable);
    }
}
