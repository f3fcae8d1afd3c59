package dev.nightshift.strategies;

import static dev.nightshift.strategies.Fixtures.T0;
import static dev.nightshift.strategies.Fixtures.current;
import static dev.nightshift.strategies.Fixtures.fleet;
import static dev.nightshift.strategies.Fixtures.observed;
import static dev.nightshift.strategies.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.guard.DisruptionGuard;
import dev.nightshift.strategies.guard.DisruptionGuard.Reason;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;

/** The cluster's budget ({@code rollout.concurrency.maxUnavailableNodes}) and the repairs' per-zone limit, in the guard. */
class ClusterBudgetTest {

    /** Pools a, b (and c) of four nodes each, every pool allowing two unavailable. */
    private static DesiredCluster twoPools(String concurrency) {
        return fleet("rollout: {concurrency: " + concurrency + "}", pool("a", "maxSurge: 0\nmaxUnavailable: 2"),
                pool("b", "maxSurge: 0\nmaxUnavailable: 2"));
    }

    private static List<ObservedNode> nodes(DesiredCluster desired, int perPool, UnaryOperator<ObservedNode> change) {
        List<ObservedNode> nodes = new ArrayList<>();
        desired.pools().forEach(p -> {
            for (int i = 0; i < perPool; i++) {
                nodes.add(change.apply(current(desired, p.name(), p.name() + "-" + i)));
            }
        });
        return nodes;
    }

    private static ObservedNode notReady(ObservedNode n) {
        return n.toBuilder().readySince(null).build();
    }

    private static Optional<Reason> refusal(DisruptionGuard guard, Step step) {
        return guard.admit(step).map(DisruptionGuard.Refusal::reason);
    }

    private static Step drain(String node) {
        return new Step.Drain(node, node.substring(0, node.indexOf('-')));
    }

    private static Step repair(String node) {
        return new Step.Repair(node, node.substring(0, node.indexOf('-')), "Ready=False", T0.minusSeconds(3600));
    }

    @Test
    void aDisruptionThatWouldTakeTheClusterPastItsBudgetWaitsWhateverThePoolAllows() {
        DesiredCluster desired = twoPools("{pools: 2, maxUnavailableNodes: 1}");
        DisruptionGuard guard = new DisruptionGuard(desired, observed(nodes(desired, 4, n -> n)), Set.of());

        assertThat(refusal(guard, drain("a-0"))).isEmpty();
        Optional<DisruptionGuard.Refusal> refused = guard.admit(drain("b-0"));
        assertThat(refused).get().satisfies(r -> {
            assertThat(r.reason()).isEqualTo(Reason.CLUSTER_BUDGET);
            assertThat(r.reason().fleetWait()).isTrue();
            assertThat(r.detail()).isEqualTo("cluster c has 1 unavailable nodes of 8 and maxUnavailableNodes 1: disrupting b-0 would make 2 > 1");
        });
    }

    @Test
    void aCordonWaitsWithItsDrainSoThatNoNodeStaysCordonedWhileTheClusterHasNoRoom() {
        DesiredCluster desired = twoPools("{pools: 2, maxUnavailableNodes: 1}");
        DisruptionGuard guard = new DisruptionGuard(desired, observed(nodes(desired, 4, n -> n)), Set.of());

        assertThat(refusal(guard, new Step.Cordon("a-0", "a"))).isEmpty();
        assertThat(refusal(guard, drain("a-0"))).as("its cordon took the room").isEmpty();
        assertThat(refusal(guard, new Step.Cordon("b-0", "b"))).contains(Reason.CLUSTER_BUDGET);
        assertThat(refusal(guard, drain("b-0"))).contains(Reason.CLUSTER_BUDGET);
    }

    @Test
    void aPercentageIsOfEveryManagedNodeRoundedDown() {
        DesiredCluster desired = twoPools("{pools: 2, maxUnavailableNodes: \"30%\"}");
        DisruptionGuard guard = new DisruptionGuard(desired, observed(nodes(desired, 4, n -> n)), Set.of());

        assertThat(guard.clusterMaxUnavailable()).isEqualTo(2);
        assertThat(refusal(guard, drain("a-0"))).isEmpty();
        assertThat(refusal(guard, drain("b-0"))).isEmpty();
        assertThat(refusal(guard, drain("b-1"))).contains(Reason.CLUSTER_BUDGET);
    }

    @Test
    void nodesFailingOnTheirOwnCountAgainstTheBudget() {
        DesiredCluster desired = twoPools("{pools: 2, maxUnavailableNodes: 1}");
        List<ObservedNode> nodes = nodes(desired, 4, n -> n.name().equals("b-3") ? notReady(n) : n);

        DisruptionGuard guard = new DisruptionGuard(desired, observed(nodes), Set.of());

        assertThat(refusal(guard, drain("a-0"))).contains(Reason.CLUSTER_BUDGET);
    }

    @Test
    void aStepThePoolRefusesTakesNothingFromTheCluster() {
        DesiredCluster desired = fleet("rollout: {concurrency: {pools: 2, maxUnavailableNodes: 2}}", pool("a", "maxSurge: 0\nmaxUnavailable: 1"),
                pool("b", "maxSurge: 0\nmaxUnavailable: 1"));
        DisruptionGuard guard = new DisruptionGuard(desired, observed(nodes(desired, 4, n -> n)), Set.of());

        assertThat(refusal(guard, drain("a-0"))).isEmpty();
        assertThat(refusal(guard, drain("a-1"))).contains(Reason.UNAVAILABLE);
        assertThat(refusal(guard, drain("b-0"))).isEmpty();
    }

    @Test
    void withoutABudgetOnlyThePoolsLimitsHold() {
        DesiredCluster desired = fleet("rollout: {concurrency: {pools: 2}}", pool("a", "maxSurge: 0\nmaxUnavailable: 2"),
                pool("b", "maxSurge: 0\nmaxUnavailable: 2"));
        DisruptionGuard guard = new DisruptionGuard(desired, observed(nodes(desired, 4, n -> n)), Set.of());

        assertThat(guard.clusterMaxUnavailable()).isEqualTo(Integer.MAX_VALUE);
        for (String node : List.of("a-0", "a-1", "b-0", "b-1")) {
            assertThat(refusal(guard, drain(node))).as(node).isEmpty();
        }
        assertThat(refusal(guard, drain("b-2"))).contains(Reason.UNAVAILABLE);
    }

    @Test
    void repairsShareTheBudgetWithWhatIsUnderWay() {
        DesiredCluster desired = twoPools("{pools: 2, maxUnavailableNodes: 2}");
        List<ObservedNode> nodes = nodes(desired, 4, n -> switch (n.name()) {
            case "a-0" -> n.toBuilder().cordoned(true).drainStartedAt(T0.minusSeconds(5)).build();
            case "b-0", "b-1" -> notReady(n);
            default -> n;
        });

        DisruptionGuard guard = new DisruptionGuard(desired, observed(nodes), Set.of());

        assertThat(refusal(guard, repair("b-0"))).isEmpty();
        assertThat(guard.admit(repair("b-1"))).get().satisfies(r -> {
            assertThat(r.reason()).isEqualTo(Reason.CLUSTER_BUDGET);
            assertThat(r.detail()).contains("cluster c has 2 nodes under way (drains, updates, repairs) and maxUnavailableNodes 2");
        });
    }

    /** Three pools of three nodes, one in each of zones a, b, c; the zone's nodes as {@code change} makes them. */
    private static ObservedCluster threeZones(DesiredCluster desired, String zone, UnaryOperator<ObservedNode> change) {
        List<ObservedNode> nodes = new ArrayList<>();
        Map<String, String> zones = new HashMap<>();
        for (var p : desired.pools()) {
            for (String z : List.of("a", "b", "c")) {
                ObservedNode n = current(desired, p.name(), p.name() + "-" + z);
                nodes.add(z.equals(zone) ? change.apply(n) : n);
                zones.put(n.name(), "eu-1" + z);
            }
        }
        return observed(nodes).withZones(zones);
    }

    @Test
    void aZoneOutageIsRepairedOneNodeAtATimeBudgetOrNot() {
        for (String concurrency : List.of("{pools: 3}", "{pools: 3, maxUnavailableNodes: \"100%\"}")) {
            DesiredCluster desired = fleet("rollout: {concurrency: " + concurrency + "}", pool("web", "maxUnavailable: 1"),
                    pool("api", "maxUnavailable: 1"), pool("db", "maxUnavailable: 1"));
            DisruptionGuard guard = new DisruptionGuard(desired, threeZones(desired, "a", ClusterBudgetTest::notReady), Set.of());

            assertThat(guard.zoneRepairLimit("eu-1a")).as(concurrency).isEqualTo(1);
            assertThat(refusal(guard, repair("api-a"))).as(concurrency).isEmpty();
            assertThat(guard.admit(repair("db-a"))).as(concurrency).get().satisfies(r -> {
                assertThat(r.reason()).isEqualTo(Reason.ZONE_REPAIRS);
                assertThat(r.detail()).isEqualTo("zone eu-1a has 1 nodes under way and allows 1 at a time (3 of 3 failing): repairing db-a waits");
            });
            assertThat(refusal(guard, repair("web-a"))).as(concurrency).contains(Reason.ZONE_REPAIRS);
        }
    }

    @Test
    void outsideAnOutageAZoneRepairsItsShareOfTheBudget() {
        // 4 pools of 3 nodes, zones of 4: a budget of 6 gives each zone 2 repairs at once; 1 of 4 failing is no outage.
        DesiredCluster desired = fleet("rollout: {concurrency: {pools: 4, maxUnavailableNodes: 6}}", pool("web", "maxUnavailable: 1"),
                pool("api", "maxUnavailable: 1"), pool("db", "maxUnavailable: 1"), pool("etl", "maxUnavailable: 1"));
        ObservedCluster observed = threeZones(desired, "a", n -> n.name().startsWith("etl") ? n : n.name().equals("web-a") ? notReady(n) : n);
        List<ObservedNode> failing = observed.nodes().stream().map(n -> n.name().equals("api-a") || n.name().equals("db-a") ? notReady(n) : n).toList();
        DisruptionGuard guard = new DisruptionGuard(desired, observed.withNodes(failing), Set.of());

        assertThat(guard.zoneRepairLimit("eu-1a")).as("3 of 4 failing is an outage").isEqualTo(1);
        DisruptionGuard calm = new DisruptionGuard(desired, observed, Set.of());
        assertThat(calm.zoneRepairLimit("eu-1a")).isEqualTo(2);
        assertThat(calm.zoneRepairLimit("eu-1b")).isEqualTo(2);
        assertThat(refusal(calm, repair("web-a"))).isEmpty();
    }

    @Test
    void aNodeWithoutAZoneIsLimitedByTheBudgetAlone() {
        DesiredCluster desired = twoPools("{pools: 2, maxUnavailableNodes: 3}");
        DisruptionGuard guard = new DisruptionGuard(desired, observed(nodes(desired, 4, n -> n.pool().equals("b") ? notReady(n) : n)), Set.of());

        assertThat(refusal(guard, repair("b-0"))).isEmpty();
        assertThat(refusal(guard, repair("b-1"))).isEmpty();
        assertThat(refusal(guard, repair("b-2"))).isEmpty();
        assertThat(refusal(guard, repair("b-3"))).contains(Reason.CLUSTER_BUDGET);
    }
}
