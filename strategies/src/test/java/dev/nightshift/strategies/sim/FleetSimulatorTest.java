package dev.nightshift.strategies.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.model.DesiredCluster;

/** Every pool of a cluster simulated together: turns, roles, the cluster's budget, the fleet's lower bound. */
class FleetSimulatorTest {

    private static final Duration C = Duration.ofSeconds(120);
    private static final Duration D = Duration.ofSeconds(30);

    private static DesiredCluster fleet(String concurrency, String... pools) {
        StringBuilder yaml = new StringBuilder("""
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: c}
                spec:
                  kubernetes: {version: "1.31.4"}
                  rollout: {concurrency: %s}
                """.formatted(concurrency));
        for (String p : pools) {
            String[] parts = p.split(":", 2);
            yaml.append("""
                    ---
                    apiVersion: nightshift.dev/v1alpha1
                    kind: WorkerPool
                    metadata: {name: %s, cluster: c}
                    spec:
                      minimum: 4
                      maximum: 10
                      interval: 0s
                      machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                    %s
                    """.formatted(parts[0], parts[1].indent(2)));
        }
        LoadResult loaded = new SpecLoader().load(Map.of("spec.yaml", yaml.toString().getBytes(StandardCharsets.UTF_8)));
        assertThat(loaded.errors()).isEmpty();
        return DesiredCluster.of(loaded.specs(), "c", 1);
    }

    private static FleetSimulation run(DesiredCluster desired) {
        return new FleetSimulator(new RolloutPlanner()).run(new FleetSimulation.Setup(desired, Map.of(), C, D, Duration.ofDays(7)));
    }

    private static FleetSimulation.PoolSpan span(FleetSimulation s, String pool) {
        return s.pools().stream().filter(p -> p.pool().equals(pool)).findFirst().orElseThrow();
    }

    @Test
    void oneAtATimePoolsRollOneAfterTheOther() {
        FleetSimulation s = run(fleet("{pools: 1}", "a:maxSurge: 1\nmaxUnavailable: 0", "b:maxSurge: 1\nmaxUnavailable: 0"));

        assertThat(s.completed()).as(s.failureReason()).isTrue();
        assertThat(s.violations()).isEmpty();
        assertThat(span(s, "b").startSeconds()).isGreaterThanOrEqualTo(span(s, "a").endSeconds());
        assertThat(s.makespanSeconds()).isGreaterThanOrEqualTo(s.lowerBoundSeconds());
        assertThat(s.maxUnavailableNodes()).isEqualTo(-1);
    }

    @Test
    void poolsRollAtOnceWithinTheClustersBudget() {
        FleetSimulation s = run(fleet("{pools: 4, maxUnavailableNodes: 2}", "a:maxSurge: 0\nmaxUnavailable: 2",
                "b:maxSurge: 0\nmaxUnavailable: 2", "c:maxSurge: 0\nmaxUnavailable: 2", "d:maxSurge: 0\nmaxUnavailable: 2"));

        assertThat(s.completed()).as(s.failureReason()).isTrue();
        assertThat(s.violations()).isEmpty();
        assertThat(s.peakUnavailableCluster()).isEqualTo(2);
        assertThat(span(s, "b").startSeconds()).as("b started before a ended").isLessThan(span(s, "a").endSeconds());
        assertThat(s.makespanSeconds()).isGreaterThanOrEqualTo(s.lowerBoundSeconds());
    }

    @Test
    void controlPlanePoolsAreDoneBeforeNodePoolsStart() {
        FleetSimulation s = run(fleet("{pools: 10}", "masters:role: control-plane\nmaxSurge: 0\nmaxUnavailable: 1",
                "web:maxSurge: 1\nmaxUnavailable: 0"));

        assertThat(s.completed()).as(s.failureReason()).isTrue();
        assertThat(span(s, "web").startSeconds()).isGreaterThanOrEqualTo(span(s, "masters").endSeconds());
        // Roles add up: the bound is the control plane's plus the nodes'.
        assertThat(s.lowerBoundSeconds()).isEqualTo(span(s, "masters").lowerBoundSeconds() + span(s, "web").lowerBoundSeconds());
    }

    @Test
    void theFleetsLowerBoundTakesTheLargestOfChainTurnsAndBudget() {
        // Four pools of 4 with surge 1: each pool's own bound is C + 3(C + D)/1 = 570 s.
        DesiredCluster turns = fleet("{pools: 2}", "a:maxSurge: 1\nmaxUnavailable: 0", "b:maxSurge: 1\nmaxUnavailable: 0",
                "c:maxSurge: 1\nmaxUnavailable: 0", "d:maxSurge: 1\nmaxUnavailable: 0");
        assertThat(FleetLowerBound.seconds(turns, p -> 4, 120, 30)).as("4 × 570 / 2 turns").isEqualTo(1140);
        DesiredCluster chain = fleet("{pools: 4}", "a:maxSurge: 1\nmaxUnavailable: 0", "b:maxSurge: 1\nmaxUnavailable: 0\nrollout: {after: [a]}",
                "c:maxSurge: 1\nmaxUnavailable: 0\nrollout: {after: [b]}", "d:maxSurge: 1\nmaxUnavailable: 0");
        assertThat(FleetLowerBound.seconds(chain, p -> 4, 120, 30)).as("a, b, c one after the other").isEqualTo(1710);
        DesiredCluster budget = fleet("{pools: 4, maxUnavailableNodes: 1}", "a:maxSurge: 0\nmaxUnavailable: 1",
                "b:maxSurge: 0\nmaxUnavailable: 1", "c:maxSurge: 0\nmaxUnavailable: 1", "d:maxSurge: 0\nmaxUnavailable: 1");
        assertThat(FleetLowerBound.seconds(budget, p -> 4, 120, 30)).as("16 nodes × 150 s down / 1").isEqualTo(2400);
        FleetSimulation s = run(budget);
        assertThat(s.completed()).as(s.failureReason()).isTrue();
        assertThat(s.makespanSeconds()).isGreaterThanOrEqualTo(s.lowerBoundSeconds());
        assertThat(s.peakUnavailableCluster()).isEqualTo(1);
    }

    @Test
    void aPoolAfterAnotherStartsOnceThatOneIsDone() {
        FleetSimulation s = run(fleet("{pools: 3}", "a:maxSurge: 1\nmaxUnavailable: 0\nrollout: {after: [z]}", "z:maxSurge: 1\nmaxUnavailable: 0",
                "m:maxSurge: 1\nmaxUnavailable: 0"));

        assertThat(s.completed()).as(s.failureReason()).isTrue();
        assertThat(span(s, "a").startSeconds()).isGreaterThanOrEqualTo(span(s, "z").endSeconds());
        assertThat(span(s, "m").startSeconds()).isLessThan(span(s, "z").endSeconds());
        assertThat(s.pools()).extracting(FleetSimulation.PoolSpan::pool).isEqualTo(List.of("m", "z", "a"));
    }
}
