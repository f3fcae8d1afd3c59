package dev.nightshift.strategies.sim;

/**
 * Test helper: the makespan no scheduler can beat, recomputed from the spec values alone (never
 * from the simulator's or LowerBound's figures). C is the creation or in-place update time, D the
 * drain time, s and u the limits resolved against the initial size with the 0/0 rule.
 *
 * <ul>
 *   <li>AutoRollingUpdate (issue): T_canary + (N - 1)(C + D)/(s + u), T_canary = C with surge, else D + C.</li>
 *   <li>Replace: everything drains at once, then everything is created: D + C.</li>
 *   <li>In place without surge: a canary (D + C), then N - 1 updates of D + C on u slots.</li>
 *   <li>In place with surge: the surge machines (C), the N - s unpaired nodes on u + s slots, the paired ones drained (D).</li>
 * </ul>
 * Bastions are never drained, so D is 0 for them.
 */
final class RecomputedBound {

    private RecomputedBound() {
    }

    static double seconds(PoolYaml pool, int n, double c, double d) {
        if (n == 0) {
            return 0;
        }
        if (pool.bastion()) {
            d = 0;
        }
        int s = pool.effectiveMaxSurge().resolve(n, true);
        int u = pool.effectiveMaxUnavailable().resolve(n, false);
        if (s == 0 && u == 0) {
            u = 1;
        }
        switch (pool.strategy()) {
            case "AutoRollingUpdate": {
                double canary = s > 0 ? c : d + c;
                return canary + (n - 1) * (c + d) / (s + u);
            }
            case "Replace":
                return d + c;
            default: {
                if (s == 0) {
                    return (d + c) + (n - 1) * (d + c) / u;
                }
                int unpaired = Math.max(0, n - s);
                return c + unpaired * (d + c) / (u + s) + d;
            }
        }
    }
}
