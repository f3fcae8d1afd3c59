package dev.nightshift.agent.eta;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.agent.TestClusters;
import dev.nightshift.strategies.fleet.FleetWait;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolPlan;
import dev.nightshift.strategies.plan.PoolReport;

/**
 * The ETA of a fleet: each pool's turn comes as the planner's fleet schedule gives it ({@code rollout.concurrency.pools}
 * turns per role, roles in order, {@code rollout.after}), not one pool after the other.
 */
class FleetEtaTest {

    /** Saturday 7 March 2026, 02:00 UTC. */
    private static final Instant SAT_0200 = Instant.parse("2026-03-07T02:00:00Z");

    /** Machines take 60 s from creation to Ready, drains 30 s: a node replaced one at a time takes 90 s. */
    private static final PoolDurations SIXTY_AND_THIRTY = PoolDurations.NONE
            .with(PoolDurations.Kind.CREATE, Duration.ofSeconds(60)).with(PoolDurations.Kind.DRAIN, Duration.ofSeconds(30));

    private static String cluster(String rollout) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: c}
                spec:
                  kubernetes: {version: "1.31.4"}
                  rollout: %s
                """.formatted(rollout);
    }

    /** A pool replaced one node at a time, no wait between nodes: 90 s a node. */
    private static String pool(String name, String extra) {
        return """
                ---
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: %s, cluster: c}
                spec:
                  minimum: 1
                  maximum: 10
                  maxSurge: 0
                  maxUnavailable: 1
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                %s""".formatted(name, extra.indent(2));
    }

    private static Map<String, PoolDurations> history(String... pools) {
        return java.util.Arrays.stream(pools).collect(java.util.stream.Collectors.toMap(p -> p, p -> SIXTY_AND_THIRTY));
    }

    private static PoolWork roll(String pool, int nodes) {
        return new PoolWork(pool, nodes, PendingAction.ROLL);
    }

    @Test
    void poolsOfAFleetStartAsTurnsFreeUpNotOneAfterTheOther() {
        DesiredCluster desired = TestClusters.load(cluster("{concurrency: {pools: 2}}") + pool("a", "") + pool("b", "") + pool("c", "")
                + pool("d", ""));

        RolloutEta.Estimate estimate = new RolloutEta().estimate(desired, List.of(roll("a", 2), roll("b", 2), roll("c", 2), roll("d", 2)),
                history("a", "b", "c", "d"), SAT_0200);

        // Two turns: a and b from 02:00, 2 × 90 s each, done at 02:03; c and d take their turns then, done at 02:06.
        assertThat(estimate.pools()).extracting(PoolEta::pool, PoolEta::startsAt).containsExactly(
                org.assertj.core.groups.Tuple.tuple("a", SAT_0200), org.assertj.core.groups.Tuple.tuple("b", SAT_0200),
                org.assertj.core.groups.Tuple.tuple("c", SAT_0200.plusSeconds(180)),
                org.assertj.core.groups.Tuple.tuple("d", SAT_0200.plusSeconds(180)));
        PoolEta c = estimate.pool("c").orElseThrow();
        assertThat(c.completesAt()).contains(SAT_0200.plusSeconds(360));
        assertThat(c.waited()).contains(new PoolEta.Wait(FleetWait.Reason.CONCURRENCY, "a", 2));
        assertThat(c.assumptions()).contains(
                "starts when a finishes and frees one of the 2 turns of rollout.concurrency.pools (2 pools of the rollout done by then)");
        assertThat(c.startText(ZoneId.of("UTC"))).contains("starts Sat 2026-03-07 02:03 (UTC) when 2 pools are done (a frees a turn)");
        assertThat(estimate.pool("a").orElseThrow().waited()).isEmpty();
        assertThat(estimate.pool("a").orElseThrow().assumptions()).contains("starts at " + SAT_0200);
        assertThat(estimate.rolls()).isEqualTo("pools roll in role order, 2 of a role at a time, each after the pools its rollout.after names");
    }

    @Test
    void nodePoolsStartOnlyOnceEveryControlPlanePoolIsDoneWhateverTheTurns() {
        DesiredCluster desired = TestClusters.load(cluster("{concurrency: {pools: 10}}") + pool("cp1", "role: control-plane")
                + pool("cp2", "role: control-plane") + pool("web", ""));

        RolloutEta.Estimate estimate = new RolloutEta().estimate(desired, List.of(roll("cp1", 3), roll("cp2", 1), roll("web", 2)),
                history("cp1", "cp2", "web"), SAT_0200);

        // cp1 and cp2 roll together (ten turns): cp2 is done at 02:01:30, cp1 at 02:04:30; web waits for both.
        assertThat(estimate.pool("cp2").orElseThrow().startsAt()).isEqualTo(SAT_0200);
        assertThat(estimate.pool("cp1").orElseThrow().completesAt()).contains(SAT_0200.plusSeconds(270));
        PoolEta web = estimate.pool("web").orElseThrow();
        assertThat(web.startsAt()).isEqualTo(SAT_0200.plusSeconds(270));
        assertThat(web.waited()).contains(new PoolEta.Wait(FleetWait.Reason.ROLE_ORDER, "cp1", 2));
        assertThat(web.completesAt()).contains(SAT_0200.plusSeconds(450));
    }

    @Test
    void aPoolAfterAnotherStartsWhenThatOneIsDoneWhileOthersRollAtOnce() {
        DesiredCluster desired = TestClusters.load(cluster("{concurrency: {pools: 3}}") + pool("a", "rollout: {after: [z]}")
                + pool("m", "") + pool("z", ""));

        RolloutEta.Estimate estimate = new RolloutEta().estimate(desired, List.of(roll("a", 1), roll("m", 4), roll("z", 2)),
                history("a", "m", "z"), SAT_0200);

        assertThat(estimate.pools()).extracting(PoolEta::pool).containsExactly("m", "z", "a");
        assertThat(estimate.pool("m").orElseThrow().startsAt()).isEqualTo(SAT_0200);
        PoolEta a = estimate.pool("a").orElseThrow();
        assertThat(a.startsAt()).isEqualTo(SAT_0200.plusSeconds(180));
        assertThat(a.waited()).contains(new PoolEta.Wait(FleetWait.Reason.AFTER, "z", 1));
        assertThat(a.assumptions()).contains("starts when z finishes: rollout.after names it (1 pool of the rollout done by then)");
    }

    @Test
    void aPoolAfterOneThatOnlyReportsNeverStartsAndSaysWhy() {
        DesiredCluster desired = TestClusters.load(cluster("{concurrency: {pools: 2}}") + pool("a", "rollout: {after: [w]}")
                + pool("w", "drainAndTerminate: false"));

        RolloutEta.Estimate estimate = new RolloutEta().estimate(desired, List.of(roll("a", 1), roll("w", 1)), history("a", "w"), SAT_0200);

        assertThat(estimate.pools()).isEmpty();
        assertThat(estimate.leftOut("w")).contains("drainAndTerminate is false: outdated nodes are reported only");
        assertThat(estimate.leftOut("a")).contains("does not start: after pool w (REPORT_ONLY): it must be current and healthy first");
    }

    @Test
    void aClusterBudgetIsSaidToBeLeftOutOfTheEstimate() {
        DesiredCluster desired = TestClusters.load(cluster("{concurrency: {pools: 2, maxUnavailableNodes: 1}}") + pool("a", "")
                + pool("b", ""));

        RolloutEta.Estimate estimate = new RolloutEta().estimate(desired, List.of(roll("a", 2), roll("b", 2)), history("a", "b"), SAT_0200);

        assertThat(estimate.pool("b").orElseThrow().assumptions())
                .contains("the cluster's maxUnavailableNodes is not simulated: each pool within its own limits only");
    }

    private static PoolReport report(String pool, PoolPhase phase, int current, int outdated) {
        return new PoolReport(pool, phase, outdated == 0 ? PendingAction.NONE : PendingAction.ROLL, current + outdated, current, outdated,
                0, 0, 0, 1, true, "", List.of(), List.of(), List.of(), PoolStatus.NEW);
    }

    @Test
    void aPoolRollingNowKeepsItsTurnAndThePoolsWaitingStartWhenItIsDone() {
        DesiredCluster desired = TestClusters.load(cluster("{concurrency: {pools: 1}}") + pool("a", "") + pool("b", ""));
        // b took the turn when a had nothing to do; a became outdated since, and waits (a rollout is not left half done).
        Plan plan = new Plan(List.of(new PoolPlan("a", List.of(), report("a", PoolPhase.WAITING_FOR_TURN, 0, 2)),
                new PoolPlan("b", List.of(), report("b", PoolPhase.UPDATING, 1, 2))), Optional.empty());

        RolloutEta.Estimate estimate = new RolloutEta().remaining(desired, plan, history("a", "b"), SAT_0200);

        assertThat(estimate.pool("b").orElseThrow().startsAt()).isEqualTo(SAT_0200);
        PoolEta a = estimate.pool("a").orElseThrow();
        assertThat(a.startsAt()).isEqualTo(SAT_0200.plusSeconds(180));
        assertThat(a.assumptions()).contains("starts when b finishes (pools roll one at a time, in role order)");
    }

    @Test
    void aPausedPoolHoldsTheLaterRolesInTheEstimateAsInThePlanner() {
        DesiredCluster desired = TestClusters.load(cluster("{concurrency: {pools: 5}}") + pool("cp", "role: control-plane")
                + pool("web", "") + pool("db", ""));
        Plan plan = new Plan(List.of(new PoolPlan("cp", List.of(), report("cp", PoolPhase.PAUSED, 1, 1)),
                new PoolPlan("db", List.of(), report("db", PoolPhase.WAITING_FOR_TURN, 0, 2)),
                new PoolPlan("web", List.of(), report("web", PoolPhase.WAITING_FOR_TURN, 0, 2))), Optional.empty());

        RolloutEta.Estimate estimate = new RolloutEta().remaining(desired, plan, history("cp", "web", "db"), SAT_0200);

        assertThat(estimate.pools()).isEmpty();
        assertThat(estimate.leftOut("cp")).contains("the rollout is paused");
        assertThat(estimate.leftOut("web")).contains("does not start: role order: control-plane pool cp (PAUSED) goes before node pools");
    }

    @Test
    void theStartIsWrittenBesideTheEtaInEveryJson() {
        DesiredCluster desired = TestClusters.load(cluster("{concurrency: {pools: 2}}") + pool("a", "") + pool("b", "") + pool("c", ""));
        RolloutEta.Estimate estimate = new RolloutEta().estimate(desired, List.of(roll("a", 2), roll("b", 1), roll("c", 1)),
                history("a", "b", "c"), SAT_0200);

        ObjectNode c = JsonNodeFactory.instance.objectNode();
        EtaJson.putPool(c, PoolEstimate.of("c", estimate));
        ObjectNode a = JsonNodeFactory.instance.objectNode();
        EtaJson.putPool(a, PoolEstimate.of("a", estimate));

        // b is done first (one node, 90 s): c takes its turn at 02:01:30.
        assertThat(c.path("etaStart").toString()).isEqualTo("{\"at\":\"2026-03-07T02:01:30Z\",\"reason\":\"concurrency\",\"after\":\"b\","
                + "\"poolsDone\":1}");
        assertThat(a.path("etaStart").toString()).isEqualTo("{\"at\":\"2026-03-07T02:00:00Z\",\"reason\":null,\"after\":null,\"poolsDone\":0}");
        assertThat(c.path("eta").has("workSeconds")).as("the eta itself as before").isTrue();
    }
}
