package dev.nightshift.strategies.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;

class NodesByPoolTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    private static List<DesiredPool> pools(String... names) {
        StringBuilder yaml = new StringBuilder("""
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: c}
                spec:
                  kubernetes: {version: "1.31.4"}
                """);
        for (String name : names) {
            yaml.append("""
                    ---
                    apiVersion: nightshift.dev/v1alpha1
                    kind: WorkerPool
                    metadata: {name: %s, cluster: c}
                    spec:
                      minimum: 1
                      maximum: 10
                      machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                    """.formatted(name));
        }
        LoadResult loaded = new SpecLoader().load(Map.of("spec.yaml", yaml.toString().getBytes(StandardCharsets.UTF_8)));
        assertThat(loaded.errors()).isEmpty();
        return DesiredCluster.of(loaded.specs(), "c", 1).pools();
    }

    private static ObservedNode node(String name, String pool) {
        return ObservedNode.ready(name, pool, T0);
    }

    private static List<String> names(List<ObservedNode> nodes) {
        return nodes.stream().map(ObservedNode::name).toList();
    }

    @Test
    void eachPoolGetsItsNodesInTheOrderObservedWhereverTheyAre() {
        List<DesiredPool> pools = pools("a", "b");
        List<ObservedNode> nodes = List.of(node("1", "a"), node("2", "b"), node("3", "a"), node("4", "x"), node("5", "a"));

        List<List<ObservedNode>> byPool = NodesByPool.of(pools, nodes);

        assertThat(names(byPool.get(0))).containsExactly("1", "3", "5");
        assertThat(names(byPool.get(1))).containsExactly("2");
    }

    @Test
    void aPoolWithoutNodesGetsNoneAndOthersNodesAreLeftOut() {
        List<List<ObservedNode>> byPool = NodesByPool.of(pools("a", "b"), List.of(node("1", "x"), node("2", "a")));

        assertThat(names(byPool.get(0))).containsExactly("2");
        assertThat(byPool.get(1)).isEmpty();
    }

    @Test
    void groupingWithTheMemoEqualsGroupingWithoutItThroughRandomChanges() {
        List<DesiredPool> pools = pools("a", "b", "c");
        List<String> poolNames = List.of("a", "b", "c", "other");
        NodesByPool memo = new NodesByPool();
        for (long seed = 1; seed <= 20; seed++) {
            Random random = new Random(seed);
            List<ObservedNode> nodes = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                nodes.add(node("n" + i, poolNames.get(random.nextInt(poolNames.size()))));
            }
            for (int step = 0; step < 200; step++) {
                List<ObservedNode> observed = List.copyOf(nodes);
                assertThat(memo.group(pools, observed)).as("seed " + seed + " step " + step).isEqualTo(NodesByPool.of(pools, observed));
                int at = random.nextInt(nodes.size());
                switch (random.nextInt(5)) {
                    case 0 -> nodes.add(at, node("m" + step, poolNames.get(random.nextInt(poolNames.size()))));
                    case 1 -> {
                        if (nodes.size() > 2) {
                            nodes.remove(at);
                        }
                    }
                    // The same name, another object (changed), perhaps of another pool.
                    case 2 -> nodes.set(at, node(nodes.get(at).name(), poolNames.get(random.nextInt(poolNames.size()))));
                    case 3 -> nodes.add(random.nextInt(nodes.size()), nodes.remove(at));
                    default -> {
                        // Nothing changed: the same nodes again.
                    }
                }
            }
        }
    }
}
