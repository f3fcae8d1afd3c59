package dev.nightshift.strategies;

import static dev.nightshift.strategies.Fixtures.T0;
import static dev.nightshift.strategies.Fixtures.cluster;
import static dev.nightshift.strategies.Fixtures.current;
import static dev.nightshift.strategies.Fixtures.observed;
import static dev.nightshift.strategies.Fixtures.outdated;
import static dev.nightshift.strategies.Fixtures.pool;
import static dev.nightshift.strategies.Fixtures.validated;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.guard.DisruptionGuard;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.Step;

/**
 * The disruption guard against the pools' promises, whatever the planner asks; the first cases are the issue's: a pool
 * of 9 nodes, one at the new spec, 8 outdated, some of them cordoned by an operator and still Ready.
 */
class DisruptionGuardTest {

    private static List<ObservedNode> nineNodesSomeCordonedByAnOperator(DesiredCluster desired, int cordoned) {
        List<ObservedNode> nodes = new ArrayList<>();
        nodes.add(current(desired, "web", "web-0"));
        IntStream.rangeClosed(1, 8).forEach(i -> nodes.add(outdated(desired, "web", "web-" + i).toBuilder().cordoned(i <= cordoned).build()));
        return nodes;
    }

    /** What the guard admits of the steps the real planner asks for, in the plan's order. */
    private static List<Step> admitted(DesiredCluster desired, ObservedCluster observed, List<DisruptionGuard.Refusal> refused) {
        Plan plan = new RolloutPlanner().plan(desired, observed, T0);
        DisruptionGuard guard = new DisruptionGuard(desired, observed, Set.of());
        List<Step> admitted = new ArrayList<>();
        for (Step step : plan.steps()) {
            guard.admit(step).ifPresentOrElse(refused::add, () -> admitted.add(step));
        }
        return admitted;
    }

    private static long count(List<Step> steps, Class<? extends Step> kind) {
        return steps.stream().filter(kind::isInstance).count();
    }

    @Test
    void sixNodesCordonedByAnOperatorAreDrainedOneAtATimeWithMaxUnavailableOne() {
        DesiredCluster desired = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1"));
        ObservedCluster observed = observed(nineNodesSomeCordonedByAnOperator(desired, 6), MaintenanceState.OPEN,
                Map.of("web", validated()));
        List<DisruptionGuard.Refusal> refused = new ArrayList<>();

        List<Step> admitted = admitted(desired, observed, refused);

        assertThat(count(admitted, Step.Drain.class)).isEqualTo(1);
        assertThat(refused).isNotEmpty().allSatisfy(r -> {
            assertThat(r.reason()).isEqualTo(DisruptionGuard.Reason.UNAVAILABLE);
            assertThat(r.detail()).contains("web has 8 available nodes for a count of 9 and maxUnavailable 1");
        });
    }

    @Test
    void withMaxUnavailableZeroNoCordonedNodeIsDrainedBeforeItsStandInIsAvailable() {
        DesiredCluster desired = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0"));
        ObservedCluster observed = observed(nineNodesSomeCordonedByAnOperator(desired, 6), MaintenanceState.OPEN,
                Map.of("web", validated()));
        List<DisruptionGuard.Refusal> refused = new ArrayList<>();

        List<Step> admitted = admitted(desired, observed, refused);

        assertThat(count(admitted, Step.Drain.class)).isZero();
        assertThat(count(admitted, Step.CreateMachine.class)).isLessThanOrEqualTo(1);
    }

    @Test
    void allEightCordonedWithMaxUnavailableTwoAreDrainedTwoAtATime() {
        DesiredCluster desired = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 2"));
        ObservedCluster observed = observed(nineNodesSomeCordonedByAnOperator(desired, 8), MaintenanceState.OPEN,
                Map.of("web", validated()));

        List<Step> admitted = admitted(desired, observed, new ArrayList<>());

        assertThat(count(admitted, Step.Drain.class)).isEqualTo(2);
    }

    @Test
    void aNodeThatIsNotReadyIsReplacedWithoutBudgetItsPodsAreGoneAlready() {
        DesiredCluster desired = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1"));
        ObservedNode notReady = outdated(desired, "web", "web-1").toBuilder().readySince(null).build();
        ObservedNode draining = outdated(desired, "web", "web-2").toBuilder().cordoned(true).drainStartedAt(T0.minusSeconds(5)).build();
        DisruptionGuard guard = new DisruptionGuard(desired, observed(List.of(notReady, draining, current(desired, "web", "web-3"))), Set.of());

        assertThat(guard.admit(new Step.DeleteMachine("web-1", "web", true, desired.pools().get(0)))).isEmpty();
        assertThat(guard.admit(new Step.Drain("web-2", "web"))).as("already draining: costs nothing more").isEmpty();
        assertThat(guard.admit(new Step.Drain("web-3", "web"))).hasValueSatisfying(r ->
                assertThat(r.detail()).isEqualTo("web has 1 available nodes for a count of 3 and maxUnavailable 1: disrupting web-3 would leave 0 < 2"));
    }

    @Test
    void aNodeWithAProblemConditionIsRepairedWithoutBudgetAsANotReadyOneIs() {
        DesiredCluster desired = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0"));
        ObservedNode diskPressure = outdated(desired, "web", "web-1").toBuilder().conditions(List.of(
                dev.nightshift.strategies.model.NodeCondition.of("Ready", "True", T0.minusSeconds(3600)),
                dev.nightshift.strategies.model.NodeCondition.of("DiskPressure", "True", T0.minusSeconds(900)))).build();
        DisruptionGuard guard = new DisruptionGuard(desired, observed(List.of(diskPressure, outdated(desired, "web", "web-2"))), Set.of());

        assertThat(guard.admit(new Step.Repair("web-1", "web", "DiskPressure", T0.minusSeconds(900)))).isEmpty();
        assertThat(guard.admit(new Step.Drain("web-2", "web"))).as("a healthy node still costs budget").isPresent();
    }

    @Test
    void kubeletRestartsGoOneAtATimeWithMaxUnavailableZeroWithoutDrainingAnything() {
        DesiredCluster desired = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0"));
        var web = desired.pools().get(0);
        ObservedNode restarting = current(desired, "web", "web-1").toBuilder().kubeletHash(Fixtures.OLD).kubeletRestartAt(T0.minusSeconds(5))
                .build();
        DisruptionGuard busy = new DisruptionGuard(desired, observed(List.of(restarting, current(desired, "web", "web-2"))), Set.of());
        DisruptionGuard idle = new DisruptionGuard(desired, observed(List.of(current(desired, "web", "web-1"),
                current(desired, "web", "web-2"))), Set.of());

        assertThat(busy.admit(new Step.RestartKubelet("web-2", "web", web))).as("one restart under way").isPresent();
        assertThat(busy.admit(new Step.RestartKubelet("web-1", "web", web, java.util.Optional.of(T0.minusSeconds(5)))))
                .as("the unanswered one asked again").isEmpty();
        assertThat(idle.admit(new Step.RestartKubelet("web-1", "web", web))).isEmpty();
        assertThat(idle.admit(new Step.RestartKubelet("web-2", "web", web))).as("the second in the same pass").isPresent();
    }

    @Test
    void surgeMachinesAreBoundedByCountPlusMaxSurgeAndADeletedMachineFreesItsPlace() {
        DesiredCluster desired = cluster(pool("web", "maxSurge: 2\nmaxUnavailable: 0"));
        List<ObservedNode> nodes = IntStream.rangeClosed(1, 4).mapToObj(i -> outdated(desired, "web", "web-" + i)).toList();
        DisruptionGuard guard = new DisruptionGuard(desired, observed(nodes), Set.of());
        var pool = desired.pools().get(0);

        assertThat(guard.admit(new Step.CreateMachine("s1", "web", "web-1", pool))).isEmpty();
        assertThat(guard.admit(new Step.CreateMachine("s2", "web", "web-2", pool))).isEmpty();
        assertThat(guard.admit(new Step.CreateMachine("s3", "web", "web-3", pool))).hasValueSatisfying(r -> {
            assertThat(r.reason()).isEqualTo(DisruptionGuard.Reason.SURGE);
            assertThat(r.detail()).isEqualTo("web has 6 machines for a count of 4 and maxSurge 2: one more would make 7 > 6");
        });
    }

    @Test
    void aSurgeMachineThatIsAvailableMakesRoomForItsPartnersDrain() {
        DesiredCluster desired = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0"));
        ObservedNode surge = current(desired, "web", "web-1-surge").toBuilder().surgeFor("web-1").build();
        DisruptionGuard guard = new DisruptionGuard(desired, observed(List.of(outdated(desired, "web", "web-1"),
                outdated(desired, "web", "web-2"), surge)), Set.of());

        assertThat(guard.admit(new Step.Drain("web-1", "web"))).isEmpty();
        assertThat(guard.admit(new Step.Drain("web-2", "web"))).isPresent();
    }

    @Test
    void aDisruptionThisAgentStartedCountsEvenBeforeTheObservationShowsIt() {
        DesiredCluster desired = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1"));
        List<ObservedNode> nodes = IntStream.rangeClosed(1, 3).mapToObj(i -> outdated(desired, "web", "web-" + i)).toList();
        DisruptionGuard guard = new DisruptionGuard(desired, observed(nodes), Set.of("web-1"));

        assertThat(guard.admit(new Step.Drain("web-1", "web"))).as("the one it started goes on").isEmpty();
        assertThat(guard.admit(new Step.Drain("web-2", "web"))).isPresent();
    }

    @Test
    void stepsThatDisruptNothingAreAlwaysAdmitted() {
        DesiredCluster desired = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1"));
        DisruptionGuard guard = new DisruptionGuard(desired, observed(List.of(outdated(desired, "web", "web-1"))), Set.of());

        assertThat(guard.admit(new Step.Drain("web-1", "web"))).isEmpty();
        assertThat(guard.admit(new Step.Cordon("web-1", "web"))).isEmpty();
        assertThat(guard.admit(new Step.Taint("web-1", "web"))).isEmpty();
        assertThat(guard.admit(new Step.Validate("web"))).isEmpty();
    }
}
