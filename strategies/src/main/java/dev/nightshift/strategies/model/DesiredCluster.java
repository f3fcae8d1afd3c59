package dev.nightshift.strategies.model;

import java.util.Comparator;
import java.util.List;

import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.SpecSet;

/**
 * The desired state of one cluster.
 *
 * @param validationsRequired consecutive successful validations needed before a pool starts and between batches
 */
public record DesiredCluster(ClusterSpec cluster, List<DesiredPool> pools, int validationsRequired) {

    public DesiredCluster {
        if (validationsRequired < 1) {
            throw new IllegalArgumentException("validationsRequired must be at least 1");
        }
        // Rollout order: bastions, control planes, apiservers, nodes; alphabetical within a role.
        pools = pools.stream()
                .sorted(Comparator.comparing((DesiredPool p) -> p.spec().pool().role()).thenComparing(DesiredPool::name))
                .toList();
    }

    public static DesiredCluster of(SpecSet specs, String clusterName, int validationsRequired) {
        ClusterSpec cluster = specs.cluster(clusterName)
                .orElseThrow(() -> new IllegalArgumentException("no cluster " + clusterName));
        return new DesiredCluster(cluster, specs.resolvedPools(clusterName).stream().map(DesiredPool::of).toList(),
                validationsRequired);
    }
}
