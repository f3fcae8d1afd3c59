package dev.nightshift.strategies.sim;

import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.strategies.PoolLimits;

/**
 * What no scheduler can beat under the same limits, with C the creation (or in-place update) time,
 * D the drain time, s and u the resolved limits. Interval and minReadySeconds only add waiting, so
 * leaving them out keeps the bound a bound. Derivations are in docs/concepts/planner.md (Lower bounds).
 */
public final class LowerBound {

    private LowerBound() {
    }

    public static double seconds(ResolvedPool pool, int n, double c, double d) {
        if (n == 0) {
            return 0;
        }
        if (pool.pool().role() == PoolRole.BASTION) {
            // Bastions are replaced without a drain.
            d = 0;
        }
        PoolLimits limits = PoolLimits.of(pool, n);
        int s = limits.maxSurge();
        int u = limits.maxUnavailable();
        return switch (pool.pool().updateStrategy()) {
            // The canary must be available before anything else starts; every other replacement
            // holds one surge-or-unavailable slot for at least C + D.
            case AutoRollingUpdate -> (s > 0 ? c : d + c) + (n - 1) * (c + d) / (s + u);
            // Everything at once: drain, then the replacements are created.
            case Replace -> d + c;
            case AutoInPlaceUpdate, ManualInPlaceUpdate -> inPlace(n, s, u, c, d);
        };
    }

    /**
     * Without surge: a canary (D + C), then the other n − 1 updates, each holding one of u slots for
     * D + C. With surge: the s surge machines (C) come first as canary; the n − s other nodes are
     * updated with at most u + s unavailable at once; the s old nodes paired with the surge machines
     * are drained last (D).
     */
    private static double inPlace(int n, int s, int u, double c, double d) {
        if (s == 0) {
            return (d + c) + (n - 1) * (d + c) / u;
        }
        int others = Math.max(0, n - s);
        return c + others * (d + c) / (u + s) + d;
    }
}
