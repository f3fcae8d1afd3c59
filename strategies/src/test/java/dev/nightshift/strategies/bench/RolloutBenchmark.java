package dev.nightshift.strategies.bench;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.sim.SimulationResult;
import dev.nightshift.strategies.sim.SimulationSetup;
import dev.nightshift.strategies.sim.Simulator;

/**
 * On demand, never in CI: rolls 1,000-node pools across limit combinations in the simulator and
 * prints a Markdown table of makespan against the lower bound. Exit 1 if any ratio is above the
 * target. Run: {@code mvn -B -q install -DskipTests && mvn -B -pl strategies -Pbench test-compile exec:exec}
 */
public final class RolloutBenchmark {

    static final double TARGET = 1.05;

    /** The table of docs/contributing/benchmarks.md: strategy, maxSurge, maxUnavailable as YAML values. */
    public static final List<String[]> CASES = List.of(
            new String[] {"AutoRollingUpdate", "1", "0"},
            new String[] {"AutoRollingUpdate", "0", "1"},
            new String[] {"AutoRollingUpdate", "1", "1"},
            new String[] {"AutoRollingUpdate", "2", "0"},
            new String[] {"AutoRollingUpdate", "3", "2"},
            new String[] {"AutoRollingUpdate", "10", "0"},
            new String[] {"AutoRollingUpdate", "\"10%\"", "0"},
            new String[] {"AutoRollingUpdate", "\"25%\"", "\"25%\""},
            new String[] {"AutoRollingUpdate", "0", "\"10%\""},
            new String[] {"AutoInPlaceUpdate", "0", "1"},
            new String[] {"AutoInPlaceUpdate", "0", "\"10%\""},
            new String[] {"AutoInPlaceUpdate", "2", "\"10%\""},
            new String[] {"ManualInPlaceUpdate", "0", "\"25%\""},
            new String[] {"Replace", "0", "1"});

    private RolloutBenchmark() {
    }

    public static void main(String[] args) {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        double create = 120;
        double drain = 30;
        System.out.printf(Locale.ROOT, "%d nodes, create %.0fs, drain %.0fs, interval 0s, minReadySeconds 0%n%n", nodes, create, drain);
        System.out.println("| strategy | maxSurge | maxUnavailable | s | u | makespan (s) | lower bound (s) | ratio | peak nodes | peak unavailable | run (ms) |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
        List<String> misses = new ArrayList<>();
        for (String[] c : CASES) {
            DesiredCluster desired = cluster(c[0], c[1], c[2]);
            long start = System.nanoTime();
            SimulationResult r = new Simulator(new RolloutPlanner()).run(SimulationSetup.of(desired, "pool", nodes,
                    Duration.ofSeconds((long) create), Duration.ofSeconds((long) drain)));
            long ms = (System.nanoTime() - start) / 1_000_000;
            double ratio = r.makespanSeconds() / r.lowerBoundSeconds();
            System.out.printf(Locale.ROOT, "| %s | %s | %s | %d | %d | %.0f | %.0f | %.3f | %d | %d | %d |%n", c[0],
                    c[1].replace("\"", ""), c[2].replace("\"", ""), r.resolvedMaxSurge(), r.resolvedMaxUnavailable(),
                    r.makespanSeconds(), r.lowerBoundSeconds(), ratio, r.peakNodes(), r.peakUnavailable(), ms);
            if (!r.completed() || ratio > TARGET || !r.violations().isEmpty()) {
                misses.add(String.join("/", c) + ": ratio " + ratio + (r.completed() ? "" : " not completed") + " " + r.violations());
            }
        }
        if (!misses.isEmpty()) {
            System.out.println();
            misses.forEach(m -> System.out.println("MISSED: " + m));
            System.exit(1);
        }
    }

    /** The benchmark's one-pool cluster ({@code bench}, pool {@code pool}) with the given strategy and limits. */
    public static DesiredCluster cluster(String strategy, String surge, String unavailable) {
        String yaml = """
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: bench}
                spec:
                  kubernetes: {version: "1.31.4"}
                ---
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: pool, cluster: bench}
                spec:
                  minimum: 1
                  maximum: 2000
                  updateStrategy: %s
                  maxSurge: %s
                  maxUnavailable: %s
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                """.formatted(strategy, surge, unavailable);
        LoadResult loaded = new SpecLoader().load(Map.of("bench.yaml", yaml.getBytes(StandardCharsets.UTF_8)));
        if (!loaded.valid()) {
            throw new IllegalArgumentException(loaded.errors().toString());
        }
        return DesiredCluster.of(loaded.specs(), "bench", 1);
    }
}
