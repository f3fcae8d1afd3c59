package dev.nightshift.strategies;

import static dev.nightshift.strategies.Fixtures.T0;
import static dev.nightshift.strategies.Fixtures.fleet;
import static dev.nightshift.strategies.Fixtures.observed;
import static dev.nightshift.strategies.Fixtures.outdated;
import static dev.nightshift.strategies.Fixtures.pool;
import static dev.nightshift.strategies.Fixtures.validated;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.fleet.FleetWait;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.Step;

/** The planner with the fleet's turns: concurrency, role order, after, failure isolation, and why a pool waits. */
class FleetPlannerTest {

    private final RolloutPlanner planner = new RolloutPlanner();

    private Plan plan(DesiredCluster desired, Map<String, PoolStatus> statuses) {
        List<ObservedNode> nodes = desired.pools().stream().map(p -> outdated(desired, p.name(), p.name() + "-1")).toList();
        Map<String, PoolStatus> status = new HashMap<>();
        desired.pools().forEach(p -> status.put(p.name(), statuses.getOrDefault(p.name(), validated())));
        return planner.plan(desired, observed(nodes, MaintenanceState.OPEN, status), T0);
    }

    private static List<String> creating(Plan plan) {
        return plan.steps().stream().filter(Step.CreateMachine.class::isInstance).map(Step::pool).toList();
    }

    @Test
    void twoPoolsOfARoleStartTogetherWithConcurrencyTwo() {
        DesiredCluster desired = fleet("rollout: {concurrency: {pools: 2}}", pool("a", "maxSurge: 1"), pool("b", "maxSurge: 1"),
                pool("c", "maxSurge: 1"));

        Plan plan = plan(desired, Map.of());

        assertThat(creating(plan)).containsExactly("a", "b");
        assertThat(plan.report("c").phase()).isEqualTo(PoolPhase.WAITING_FOR_TURN);
        assertThat(plan.report("c").waitingFor()).get().extracting(FleetWait::reason).isEqualTo(FleetWait.Reason.CONCURRENCY);
        assertThat(plan.report("a").waitingFor()).isEmpty();
    }

    @Test
    void withoutConcurrencyOnePoolRollsAndTheNextSaysWhy() {
        DesiredCluster desired = fleet("rollout: {soak: 0s}", pool("a", "maxSurge: 1"), pool("b", "maxSurge: 1"));

        Plan plan = plan(desired, Map.of());

        assertThat(creating(plan)).containsExactly("a");
        assertThat(plan.report("b").waitingFor()).get().satisfies(w -> assertThat(w.detail()).isEqualTo("concurrency: 1 of 1 turns taken (a)"));
    }

    @Test
    void nodePoolsWaitForTheControlPlaneWhateverTheConcurrency() {
        DesiredCluster desired = fleet("rollout: {concurrency: {pools: 10}}", pool("masters", "role: control-plane\nmaxSurge: 0\nmaxUnavailable: 1"),
                pool("web", "maxSurge: 1"));

        Plan plan = plan(desired, Map.of());

        assertThat(plan.steps()).extracting(Step::pool).containsOnly("masters");
        assertThat(plan.report("web").waitingFor()).get().satisfies(w -> {
            assertThat(w.reason()).isEqualTo(FleetWait.Reason.ROLE_ORDER);
            assertThat(w.pool()).contains("masters");
        });
    }

    @Test
    void aPausedPoolHoldsOnlyThePoolsAfterItAndLaterRoles() {
        DesiredCluster desired = fleet("rollout: {concurrency: {pools: 3}}", pool("db", "maxSurge: 1"),
                pool("web", "maxSurge: 1\nrollout: {after: [db]}"), pool("batch", "maxSurge: 1"));

        Plan plan = plan(desired, Map.of("db", validated().withPaused(true)));

        assertThat(creating(plan)).containsExactly("batch");
        assertThat(plan.report("db").phase()).isEqualTo(PoolPhase.PAUSED);
        assertThat(plan.report("web").waitingFor()).get().satisfies(w -> {
            assertThat(w.reason()).isEqualTo(FleetWait.Reason.AFTER);
            assertThat(w.detail()).isEqualTo("after pool db (PAUSED): it must be current and healthy first");
        });
    }

    @Test
    void aPoolAfterAnotherIsPlannedAfterIt() {
        DesiredCluster desired = fleet("rollout: {concurrency: {pools: 3}}", pool("a-web", "maxSurge: 1\nrollout: {after: [z-system]}"),
                pool("z-system", "maxSurge: 1"));

        assertThat(desired.pools()).extracting(p -> p.name()).containsExactly("z-system", "a-web");
        assertThat(creating(plan(desired, Map.of()))).containsExactly("z-system");
    }
}
