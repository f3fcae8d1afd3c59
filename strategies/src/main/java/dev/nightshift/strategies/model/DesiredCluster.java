package dev.nightshift.strategies.model;

import java.util.List;
import java.util.Set;

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
 * @param validationWaived    pools that may start their next batch without a passing validation: {@code nightshift
 *                            rolling-update --fail-on-validate-error=false} once a pool has failed validation for
 *                            {@code --validation-timeout} (kops: "proceeding since fail-on-validate-error is set to
 *                            false"); the agent never waives one. The pool's own limits and the disruption guard hold
 *                            all the same
 */
public record DesiredCluster(ClusterSpec cluster, List<DesiredPool> pools, int validationsRequired, boolean refillsPools,
                             Set<String> validationWaived) {

    public DesiredCluster {
        if (validationsRequired < 1) {
            throw new IllegalArgumentException("validationsRequired must be at least 1");
        }
        // Rollout order: bastions, control planes, apiservers, nodes; alphabetical within a role, a pool after those its
        // rollout.after names.
        pools = List.copyOf(FleetOrder.sort(pools, DesiredPool::name, p -> p.spec().pool().role(), p -> p.spec().pool().after()));
        validationWaived = Set.copyOf(validationWaived);
    }

    /** No validation waived: the agent's. */
    public DesiredCluster(ClusterSpec cluster, List<DesiredPool> pools, int validationsRequired, boolean refillsPools) {
        this(cluster, pools, validationsRequired, refillsPools, Set.of());
    }

    /** Without refilling: what the backend does about lost machines is not Nightshift's to do. */
    public DesiredCluster(ClusterSpec cluster, List<DesiredPool> pools, int validationsRequired) {
        this(cluster, pools, validationsRequired, false);
    }

    /** The same cluster with only {@code kept} of its pools. */
    public DesiredCluster withPools(List<DesiredPool> kept) {
        return new DesiredCluster(cluster, kept, validationsRequired, refillsPools, validationWaived);
    }

    /** The same cluster with these pools' validation waived. */
    public DesiredCluster withValidationWaived(Set<String> value) {
        return new DesiredCluster(cluster, pools, validationsRequired, refillsPools, value);
    }

    public static DesiredCluster of(SpecSet specs, String clusterName, int validationsRequired) {
        ClusterSpec cluster = specs.cluster(clusterName)
                .orElseThrow(() -> new IllegalArgumentException("no cluster " + clusterName));
        return new DesiredCluster(cluster, specs.resolvedPools(clusterName).stream().map(DesiredPool::of).toList(),
                validationsRequired);
    }
}
