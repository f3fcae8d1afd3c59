package dev.nightshift.strategies.sim;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.strategies.PoolLimits;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;

/**
 * What no schedule of a whole fleet can beat, from each pool's own bound ({@link LowerBound}), the turns, the
 * cluster's budget and the role order; the derivation is in docs/commands/simulate.md ("The fleet's lower bound").
 *
 * <p>Roles go one after the other, so the bound is the sum over roles of each role's bound, the largest of:
 * <ul>
 *   <li>the <b>longest {@code after} chain</b> of the role, each pool costing its own bound (a pool cannot start
 *       before the pools it names are done);</li>
 *   <li>the <b>turns</b>: every pool holds one of {@code pools} turns for at least its own bound, so the role takes
 *       at least the sum of its pools' bounds divided by {@code pools};</li>
 *   <li>the <b>budget</b>: every node replaced is unavailable for at least D (with surge, its replacement is up
 *       first) or D + C (without: drained, then replaced; in place: drained and updated), so the role takes at least
 *       the sum of those node-seconds divided by {@code maxUnavailableNodes}.</li>
 * </ul>
 * Windows, validation, interval and minReadySeconds only add waiting: leaving them out keeps it a bound.
 */
public final class FleetLowerBound {

    private FleetLowerBound() {
    }

    public static double seconds(DesiredCluster desired, ToIntFunction<String> nodes, double c, double d) {
        int pools = desired.cluster().concurrency().pools();
        int managed = desired.pools().stream().mapToInt(p -> nodes.applyAsInt(p.name())).sum();
        int budget = desired.cluster().concurrency().resolveMaxUnavailable(managed);
        double total = 0;
        for (PoolRole role : PoolRole.values()) {
            List<DesiredPool> ofRole = desired.pools().stream().filter(p -> p.spec().pool().role() == role).toList();
            if (ofRole.isEmpty()) {
                continue;
            }
            Map<String, Double> own = new HashMap<>();
            double sum = 0;
            double nodeSeconds = 0;
            for (DesiredPool p : ofRole) {
                int n = nodes.applyAsInt(p.name());
                double bound = LowerBound.seconds(p.spec(), n, c, d);
                own.put(p.name(), bound);
                sum += bound;
                boolean bastion = role == PoolRole.BASTION;
                int surge = PoolLimits.of(p.spec(), n).maxSurge();
                double down = bastion ? (surge > 0 ? 0 : c) : surge > 0 ? d : d + c;
                nodeSeconds += n * down;
            }
            // DesiredCluster is in rollout order: a pool comes after those its after names, so one pass finds the chains.
            Map<String, Double> chain = new HashMap<>();
            double longest = 0;
            for (DesiredPool p : ofRole) {
                double before = p.spec().pool().after().stream().mapToDouble(a -> chain.getOrDefault(a, 0.0)).max().orElse(0);
                chain.put(p.name(), before + own.get(p.name()));
                longest = Math.max(longest, chain.get(p.name()));
            }
            double turns = sum / pools;
            double byBudget = budget == Integer.MAX_VALUE ? 0 : nodeSeconds / budget;
            total += Math.max(longest, Math.max(turns, byBudget));
        }
        return total;
    }
}
