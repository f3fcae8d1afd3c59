package dev.nightshift.strategies.sim;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.nightshift.strategies.model.DesiredCluster;

/**
 * What {@link FleetSimulator} did with every pool of a cluster rolled together.
 *
 * @param completed              every node of every pool ended at the desired spec
 * @param failureReason          why not, when not completed
 * @param makespanSeconds        when the last pool's last node was done
 * @param lowerBoundSeconds      {@link FleetLowerBound}: what no schedule can beat under the same limits
 * @param maxUnavailableNodes    the cluster's budget resolved; -1 without one
 * @param peakUnavailableCluster most nodes of all pools unavailable at once
 * @param violations             limits broken (never expected: a pool's count + maxSurge or count − maxUnavailable, the
 *                               cluster's budget)
 * @param pools                  each pool's start (its first disruptive step) and end (its last node done), in rollout order
 */
public record FleetSimulation(
        boolean completed,
        String failureReason,
        double makespanSeconds,
        double lowerBoundSeconds,
        int maxUnavailableNodes,
        int peakUnavailableCluster,
        List<String> violations,
        List<PoolSpan> pools) {

    public FleetSimulation {
        violations = List.copyOf(violations);
        pools = List.copyOf(pools);
    }

    /** One pool's part: {@code startSeconds} and {@code endSeconds} are -1 for a pool that never started or ended. */
    public record PoolSpan(String pool, String role, int nodes, double startSeconds, double endSeconds, double lowerBoundSeconds) {
    }

    /**
     * What to simulate: every pool of {@code desired} with {@code nodes} outdated nodes each (a pool not named: its
     * {@code minimum}, at least 1), a creation taking {@code create} and a drain {@code drain}.
     */
    public record Setup(DesiredCluster desired, Map<String, Integer> nodes, Duration create, Duration drain, Duration horizon) {

        public Setup {
            nodes = Map.copyOf(nodes);
        }

        public int nodesOf(String pool) {
            return nodes.getOrDefault(pool, Math.max(1, desired.pools().stream().filter(p -> p.name().equals(pool)).findFirst()
                    .orElseThrow().spec().pool().minimum()));
        }
    }
}
