package dev.nightshift.spec.model;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** Every cluster and pool loaded from one spec directory, in a stable order. */
public record SpecSet(List<ClusterSpec> clusters, List<WorkerPoolSpec> pools) {

    public static final SpecSet EMPTY = new SpecSet(List.of(), List.of());

    public SpecSet {
        clusters = clusters.stream().sorted(Comparator.comparing(ClusterSpec::name)).toList();
        pools = pools.stream()
                .sorted(Comparator.comparing(WorkerPoolSpec::cluster).thenComparing(WorkerPoolSpec::name))
                .toList();
    }

    public Optional<ClusterSpec> cluster(String name) {
        return clusters.stream().filter(c -> c.name().equals(name)).findFirst();
    }

    /** The pools of a cluster with their inherited values resolved. */
    public List<ResolvedPool> resolvedPools(String clusterName) {
        return cluster(clusterName)
                .map(c -> pools.stream().filter(p -> p.cluster().equals(clusterName))
                        .map(p -> new ResolvedPool(c, p)).toList())
                .orElse(List.of());
    }

    /** Only the named cluster and its pools. */
    public SpecSet onlyCluster(String clusterName) {
        return new SpecSet(
                clusters.stream().filter(c -> c.name().equals(clusterName)).toList(),
                pools.stream().filter(p -> p.cluster().equals(clusterName)).toList());
    }
}
