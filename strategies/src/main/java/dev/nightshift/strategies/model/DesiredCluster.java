package dev.nightshift.strategies.model;

import java.util.List;

import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.strategies.fleet.FleetOrder;

/**
 * The desired state of one cluster.
 *
 * @param validationsRequired consecutive successful validations needed before a pool starts and between batches
 * @param refillsPools        a pool short of its {@code minimum} machines (lost behind Nightshift's back) is brought back
 *                            to it by Nightshift: true unless the machine backend restores pool sizes itself (Cluster
 *                            API's MachineSets), where a second replacement would leave the pool too large
 */
public record DesiredCluster(ClusterSpec cluster, List<DesiredPool> pools, int validationsRequired, boolean refillsPools) {

    public DesiredCluster {
        if (validationsRequired < 1) {
            throw new IllegalArgumentException("validationsRequired must be at least 1");
        }
        // Rollout order: bastions, control planes, apiservers, nodes; alphabetical within a role, a pool after those its
        // rollout.after names.
        pools = List.copyOf(FleetOrder.sort(pools, DesiredPool::name, p -> p.spec().pool().role(), p -> p.spec().pool().after()));
    }

    /** Without refilling: what the backend does about lost machines is not Nightshift's to do. */
    public DesiredCluster(ClusterSpec cluster, List<DesiredPool> pools, int validationsRequired) {
        this(cluster, pools, validationsRequired, false);
    }

    /** The same cluster with only {@code kept} of its pools. */
    public DesiredCluster withPools(List<DesiredPool> kept) {
        return new DesiredCluster(cluster, kept, validationsRequired, refillsPools);
    }

    public static DesiredCluster of(SpecSet specs, String clusterName, int validationsRequired) {
        ClusterSpec cluster = specs.cluster(clusterName)
                .orElseThrow(() -> new IllegalArgumentException("no cluster " + clusterName));
        return new DesiredCluster(cluster, specs.resolvedPools(clusterName).stream().map(DesiredPool::of).toList(),
                validationsRequired);
    }
}
