package dev.nightshift.strategies;

import static dev.nightshift.strategies.Fixtures.T0;
import static dev.nightshift.strategies.Fixtures.cluster;
import static dev.nightshift.strategies.Fixtures.current;
import static dev.nightshift.strategies.Fixtures.observed;
import static dev.nightshift.strategies.Fixtures.outdated;
import static dev.nightshift.strategies.Fixtures.pool;
import static dev.nightshift.strategies.Fixtures.validated;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolPlan;
import dev.nightshift.strategies.plan.Step;

/** The plan is an ordered list of per-pool plans, and every step carries the pool the planner made it for. */
class PoolScopedPlanTest {

    private static final DesiredCluster TWO = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0"),
            pool("batch", "maxSurge: 0\nmaxUnavailable: 1\nlabels: {tier: batch}"));

    /**
     * Node names a cloud chose: none starts with its pool's name. batch rolls first; web waits for
     * its turn but has labels to propagate, which happens in every pool at once.
     */
    private Plan planWithCloudNames() {
        List<ObservedNode> nodes = List.of(
                outdated(TWO, "web", "ip-10-0-0-1").toBuilder().managedLabels(Map.of()).build(), current(TWO, "web", "ip-10-0-0-2"),
                outdated(TWO, "batch", "ip-10-0-1-1").toBuilder().managedLabels(Map.of()).build(),
                current(TWO, "batch", "ip-10-0-1-2"));
        return new RolloutPlanner().plan(TWO, observed(nodes, MaintenanceState.OPEN,
                Map.of("web", validated(), "batch", validated())), T0);
    }

    @Test
    void everyStepCarriesThePoolItWasPlannedFor() {
        Plan plan = planWithCloudNames();

        assertThat(plan.pools()).allSatisfy(p -> assertThat(p.steps()).allSatisfy(s -> assertThat(s.pool()).isEqualTo(p.pool())));
        assertThat(plan.pool("batch").orElseThrow().steps()).extracting(Step::target).contains("ip-10-0-1-1");
        assertThat(plan.pool("web").orElseThrow().steps()).extracting(Step::target).contains("ip-10-0-0-1")
                .doesNotContain("ip-10-0-1-1");
    }

    @Test
    void poolsAreInRolloutOrderAndTheirStepsFollowOneAnother() {
        Plan plan = planWithCloudNames();

        assertThat(plan.pools()).extracting(PoolPlan::pool).containsExactly("batch", "web");
        assertThat(plan.steps()).containsExactlyElementsOf(plan.pools().stream().flatMap(p -> p.steps().stream()).toList());
        assertThat(plan.reports().keySet()).containsExactly("batch", "web");
    }

    @Test
    void droppingAPoolsStepsKeepsItsReportAndTheOtherPools() {
        Plan plan = planWithCloudNames();

        Plan held = plan.withoutStepsIn(Set.of("web"));

        assertThat(held.pool("web").orElseThrow().steps()).isEmpty();
        assertThat(held.report("web")).isEqualTo(plan.report("web"));
        assertThat(held.pool("batch")).isEqualTo(plan.pool("batch"));
    }

    @Test
    void aPoolPlanRefusesAStepOfAnotherPool() {
        Plan plan = planWithCloudNames();

        assertThatThrownBy(() -> new PoolPlan("web", List.of(new Step.Cordon("ip-10-0-1-1", "batch")), plan.report("web")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("batch");
    }

    @Test
    void aValidationActsOnThePoolItNames() {
        Step.Validate validate = new Step.Validate("web");

        assertThat(validate.pool()).isEqualTo("web");
        assertThat(validate.target()).isEqualTo("web");
    }

    @Test
    void aPlanRefusesAPoolTwice() {
        Plan plan = planWithCloudNames();
        PoolPlan web = plan.pool("web").orElseThrow();

        assertThatThrownBy(() -> new Plan(List.of(web, web), Optional.empty())).isInstanceOf(IllegalArgumentException.class);
    }
}
