package dev.nightshift.strategies;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;

/** Specs and observed states for planner tests. */
final class Fixtures {

    static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    static final StampedHash OLD = new StampedHash(1, "0".repeat(32));

    private Fixtures() {
    }

    static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: c}
            spec:
              kubernetes: {version: "1.31.4"}
            """;

    /** A cluster with one pool per given body (each a WorkerPool spec block, indented by two). */
    static DesiredCluster cluster(String... pools) {
        StringBuilder yaml = new StringBuilder(CLUSTER);
        for (String pool : pools) {
            yaml.append("---\n").append(pool);
        }
        LoadResult loaded = new SpecLoader().load(Map.of("spec.yaml", yaml.toString().getBytes(StandardCharsets.UTF_8)));
        assertThat(loaded.errors()).as("fixture spec").isEmpty();
        return DesiredCluster.of(loaded.specs(), "c", 1);
    }

    /** A cluster whose spec also has {@code clusterSpec} (e.g. {@code rollout: {concurrency: {pools: 2}}}), with these pools. */
    static DesiredCluster fleet(String clusterSpec, String... pools) {
        StringBuilder yaml = new StringBuilder(CLUSTER).append(clusterSpec.indent(2));
        for (String pool : pools) {
            yaml.append("---\n").append(pool);
        }
        LoadResult loaded = new SpecLoader().load(Map.of("spec.yaml", yaml.toString().getBytes(StandardCharsets.UTF_8)));
        assertThat(loaded.errors()).as("fixture spec").isEmpty();
        return DesiredCluster.of(loaded.specs(), "c", 1);
    }

    static String pool(String name, String extra) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: %s, cluster: c}
                spec:
                  minimum: 1
                  maximum: 10
                %s  machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                %s
                """.formatted(name, extra.contains("interval:") ? "" : "  interval: 0s\n", extra.indent(2));
    }

    static DesiredPool desired(DesiredCluster cluster, String pool) {
        return cluster.pools().stream().filter(p -> p.name().equals(pool)).findFirst().orElseThrow();
    }

    /** A Ready node of the pool at the desired hashes with its labels propagated. */
    static ObservedNode current(DesiredCluster cluster, String pool, String name) {
        DesiredPool p = desired(cluster, pool);
        return ObservedNode.ready(name, pool, T0.minusSeconds(3600)).toBuilder()
                .rollHash(p.rollHash()).kubeletHash(p.kubeletHash())
                .managedLabels(p.labels()).managedTaints(p.spec().pool().taints())
                .managedAnnotations(p.annotations()).build();
    }

    /** A Ready node of the pool running an older spec. */
    static ObservedNode outdated(DesiredCluster cluster, String pool, String name) {
        return current(cluster, pool, name).toBuilder().rollHash(OLD).build();
    }

    static ObservedCluster observed(List<ObservedNode> nodes) {
        return observed(nodes, MaintenanceState.OPEN, Map.of());
    }

    static ObservedCluster observed(List<ObservedNode> nodes, MaintenanceState maintenance, Map<String, PoolStatus> status) {
        return new ObservedCluster(nodes, true, maintenance, status);
    }

    /** A status whose validation has passed, as the agent records it. */
    static PoolStatus validated() {
        return PoolStatus.NEW.withValidationStreak(1);
    }
}
