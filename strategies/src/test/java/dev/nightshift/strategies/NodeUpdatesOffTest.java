package dev.nightshift.strategies;

import static dev.nightshift.strategies.Fixtures.T0;
import static dev.nightshift.strategies.Fixtures.cluster;
import static dev.nightshift.strategies.Fixtures.current;
import static dev.nightshift.strategies.Fixtures.observed;
import static dev.nightshift.strategies.Fixtures.outdated;
import static dev.nightshift.strategies.Fixtures.pool;
import static dev.nightshift.strategies.Fixtures.validated;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.Step;

/** {@link NodeUpdates#OFF}: changes that need a node update are reported, never executed, and hold nothing up. */
class NodeUpdatesOffTest {

    private static final RolloutPlanner OFF = new RolloutPlanner(NodeUpdates.OFF);
    private static final RolloutPlanner ON = new RolloutPlanner(NodeUpdates.ON);

    /** Two worker pools, "a-web" first in order: a kubelet-only change in it, an image change in "b-web". */
    private static final DesiredCluster TWO = cluster(pool("a-web", "maxSurge: 0\nmaxUnavailable: 1"),
            pool("b-web", "maxSurge: 1\nmaxUnavailable: 0"));
    private static final List<ObservedNode> KUBELET_THEN_IMAGE = List.of(
            current(TWO, "a-web", "a-1").toBuilder().kubeletHash(Fixtures.OLD).build(),
            current(TWO, "a-web", "a-2").toBuilder().kubeletHash(Fixtures.OLD).build(),
            outdated(TWO, "b-web", "b-1"), outdated(TWO, "b-web", "b-2"));

    private static final DesiredCluster IN_PLACE = cluster(pool("gpu", "updateStrategy: AutoInPlaceUpdate\nmaxSurge: 1\nmaxUnavailable: 1"));

    private static Plan plan(RolloutPlanner planner, DesiredCluster desired, List<ObservedNode> nodes) {
        Map<String, PoolStatus> status = Map.of("a-web", validated(), "b-web", validated(), "gpu", validated(),
                "web", validated());
        return planner.plan(desired, observed(nodes, MaintenanceState.OPEN, status), T0);
    }

    private static List<Step> stepsIn(Plan plan, String pool) {
        return plan.steps().stream().filter(s -> s.pool().equals(pool)).toList();
    }

    @Test
    void aKubeletOnlyChangeIsReportedAsNotExecutedAndRestartsNoKubelet() {
        Plan plan = plan(OFF, TWO, KUBELET_THEN_IMAGE);

        assertThat(stepsIn(plan, "a-web")).isEmpty();
        assertThat(plan.report("a-web").phase()).isEqualTo(PoolPhase.NODE_UPDATES_OFF);
        assertThat(plan.report("a-web").pendingAction()).isEqualTo(PendingAction.KUBELET_RESTART);
        assertThat(plan.report("a-web").outdated()).isEqualTo(2);
        assertThat(plan.report("a-web").rolloutInProgress()).isFalse();
        assertThat(plan.report("a-web").progressing()).isTrue();
    }

    @Test
    void aPoolWithAKubeletOnlyChangeNotExecutedDoesNotHoldUpTheNextPool() {
        Plan plan = plan(OFF, TWO, KUBELET_THEN_IMAGE);

        assertThat(plan.report("b-web").phase()).isEqualTo(PoolPhase.UPDATING);
        assertThat(stepsIn(plan, "b-web")).extracting(Step::getClass).contains(Step.CreateMachine.class);
    }

    @Test
    void withNodeUpdatesOnTheKubeletOnlyChangeRestartsKubeletsAndTheNextPoolWaits() {
        Plan plan = plan(ON, TWO, KUBELET_THEN_IMAGE);

        assertThat(stepsIn(plan, "a-web")).extracting(Step::getClass).containsExactly(Step.RestartKubelet.class);
        assertThat(plan.report("a-web").phase()).isEqualTo(PoolPhase.RESTARTING_KUBELETS);
        assertThat(plan.report("b-web").phase()).isEqualTo(PoolPhase.WAITING_FOR_TURN);
        assertThat(stepsIn(plan, "b-web")).isEmpty();
    }

    @Test
    void anInPlacePoolsRollChangeIsNotUpdatedTaintedCordonedOrDrained() {
        List<ObservedNode> nodes = List.of(outdated(IN_PLACE, "gpu", "gpu-1"), outdated(IN_PLACE, "gpu", "gpu-2"));

        Plan plan = plan(OFF, IN_PLACE, nodes);

        assertThat(plan.steps()).isEmpty();
        assertThat(plan.report("gpu").phase()).isEqualTo(PoolPhase.NODE_UPDATES_OFF);
        assertThat(plan.report("gpu").pendingAction()).isEqualTo(PendingAction.IN_PLACE);
        assertThat(plan.report("gpu").rolloutInProgress()).isFalse();
    }

    @Test
    void withNodeUpdatesOnTheInPlacePoolIsUpdatedAsBefore() {
        List<ObservedNode> nodes = List.of(outdated(IN_PLACE, "gpu", "gpu-1"), outdated(IN_PLACE, "gpu", "gpu-2"));

        Plan plan = plan(ON, IN_PLACE, nodes);

        assertThat(plan.steps()).extracting(Step::getClass).contains(Step.Taint.class, Step.CreateMachine.class);
        assertThat(plan.report("gpu").phase()).isEqualTo(PoolPhase.UPDATING);
    }

    @Test
    void anInPlaceNodeDrainedAndDoneWithNodeUpdatesOnIsUpdatedButWithThemOffIsReleased() {
        ObservedNode drained = outdated(IN_PLACE, "gpu", "gpu-1").toBuilder().cordoned(true).updateTainted(true)
                .drainStartedAt(T0.minus(Duration.ofMinutes(5))).drained(true).build();

        Plan on = plan(ON, IN_PLACE, List.of(drained, outdated(IN_PLACE, "gpu", "gpu-2")));
        Plan off = plan(OFF, IN_PLACE, List.of(drained, outdated(IN_PLACE, "gpu", "gpu-2")));

        assertThat(on.steps()).extracting(Step::getClass).contains(Step.UpdateInPlace.class);
        assertThat(off.steps()).containsExactly(new Step.Uncordon("gpu-1", "gpu"));
        ObservedNode released = drained.toBuilder().cordoned(false).drainStartedAt(null).drained(false).build();
        assertThat(plan(OFF, IN_PLACE, List.of(released, outdated(IN_PLACE, "gpu", "gpu-2"))).steps())
                .as("then its update taint goes").containsExactly(new Step.Untaint("gpu-1", "gpu"));
    }

    @Test
    void aKubeletRestartAskedForBeforeNodeUpdatesWereTurnedOffIsNotAskedAgainButItsMarkRemoved() {
        DesiredCluster kubelet = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1\nmachineControllerManager: {healthTimeout: 10m}"));
        ObservedNode unanswered = current(kubelet, "web", "web-1").toBuilder().kubeletHash(Fixtures.OLD)
                .kubeletRestartAt(T0.minus(Duration.ofMinutes(11))).build();

        Plan plan = plan(OFF, kubelet, List.of(unanswered));

        assertThat(plan.steps()).containsExactly(new Step.Uncordon("web-1", "web"));
        assertThat(plan.report("web").phase()).isEqualTo(PoolPhase.NODE_UPDATES_OFF);
    }

    @Test
    void aReplacingPoolsRollChangeStillReplacesItsNodes() {
        DesiredCluster rolling = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0"));
        List<ObservedNode> nodes = List.of(outdated(rolling, "web", "web-1"),
                outdated(rolling, "web", "web-2").toBuilder().kubeletHash(Fixtures.OLD).build());

        Plan off = plan(OFF, rolling, nodes);

        assertThat(off).isEqualTo(plan(ON, rolling, nodes));
        assertThat(off.report("web").phase()).isEqualTo(PoolPhase.UPDATING);
        assertThat(off.steps()).extracting(Step::getClass).contains(Step.CreateMachine.class);
    }

    @Test
    void aManualInPlacePoolWithNodeUpdatesOffAsksNobodyToSelectNodes() {
        DesiredCluster manual = cluster(pool("gpu", "updateStrategy: ManualInPlaceUpdate\nmaxUnavailable: 1"));

        Plan plan = plan(OFF, manual, List.of(outdated(manual, "gpu", "gpu-1")));

        assertThat(plan.steps()).isEmpty();
        assertThat(plan.report("gpu").awaitingSelection()).isEmpty();
        assertThat(plan.report("gpu").phase()).isEqualTo(PoolPhase.NODE_UPDATES_OFF);
    }
}
