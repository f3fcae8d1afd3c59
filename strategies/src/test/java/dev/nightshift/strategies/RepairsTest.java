package dev.nightshift.strategies;

import static dev.nightshift.strategies.Fixtures.T0;
import static dev.nightshift.strategies.Fixtures.cluster;
import static dev.nightshift.strategies.Fixtures.current;
import static dev.nightshift.strategies.Fixtures.desired;
import static dev.nightshift.strategies.Fixtures.outdated;
import static dev.nightshift.strategies.Fixtures.pool;
import static dev.nightshift.strategies.Fixtures.validated;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.NodeCondition;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolReport;
import dev.nightshift.strategies.plan.PoolReport.NodeHealth;
import dev.nightshift.strategies.plan.Step;

/** Health-based repair: which nodes are unhealthy, which failed, and what keeps repairs from becoming a disaster. */
class RepairsTest {

    private final RolloutPlanner planner = new RolloutPlanner();

    private static final DesiredCluster ROLLING = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0"));
    /** Past the default healthTimeout of 10 minutes. */
    private static final Instant LONG_AGO = T0.minus(Duration.ofMinutes(11));

    private Plan plan(DesiredCluster desired, List<ObservedNode> nodes) {
        return plan(desired, nodes, MaintenanceState.CLOSED, PoolStatus.NEW, true);
    }

    private Plan plan(DesiredCluster desired, List<ObservedNode> nodes, MaintenanceState maintenance, PoolStatus status,
                      boolean controlPlaneReady) {
        String pool = desired.pools().get(0).name();
        return planner.plan(desired, new ObservedCluster(nodes, controlPlaneReady, maintenance, Map.of(pool, status)), T0);
    }

    private static List<Step.Repair> repairs(Plan plan) {
        return plan.steps().stream().filter(Step.Repair.class::isInstance).map(Step.Repair.class::cast).toList();
    }

    /** A current, Ready node reporting Ready=True and the watched conditions False. */
    private static ObservedNode healthy(DesiredCluster c, String pool, String name) {
        return current(c, pool, name).toBuilder().conditions(List.of(
                NodeCondition.of("Ready", "True", T0.minus(Duration.ofHours(1))),
                NodeCondition.of("DiskPressure", "False", T0.minus(Duration.ofHours(1))))).build();
    }

    private static ObservedNode diskPressure(ObservedNode n, Instant since) {
        return n.toBuilder().conditions(List.of(NodeCondition.of("Ready", "True", T0.minus(Duration.ofHours(1))),
                NodeCondition.of("DiskPressure", "True", since))).build();
    }

    private static ObservedNode notReady(ObservedNode n, String status, Instant since) {
        return n.toBuilder().readySince(null).conditions(List.of(NodeCondition.of("Ready", status, since))).build();
    }

    private static List<ObservedNode> nodes(DesiredCluster c, String pool, int size) {
        List<ObservedNode> nodes = new ArrayList<>();
        for (int i = 1; i <= size; i++) {
            nodes.add(healthy(c, pool, pool + "-" + i));
        }
        return nodes;
    }

    @Test
    void aNodeWithAWatchedConditionTrueForHealthTimeoutIsRepairedWhileTheWindowIsClosed() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 3);
        nodes.set(1, diskPressure(nodes.get(1), LONG_AGO));

        Plan plan = plan(ROLLING, nodes);

        assertThat(repairs(plan)).singleElement().satisfies(r -> {
            assertThat(r.target()).isEqualTo("web-2");
            assertThat(r.condition()).isEqualTo("DiskPressure");
            assertThat(r.since()).isEqualTo(LONG_AGO);
        });
        PoolReport report = plan.report("web");
        assertThat(report.failedNodes()).containsExactly(new NodeHealth("web-2", "DiskPressure", LONG_AGO));
        assertThat(report.failed()).isEqualTo(1);
    }

    @Test
    void aNodeUnhealthyForLessThanHealthTimeoutIsReportedAndWokenForButNotRepaired() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 3);
        Instant since = T0.minus(Duration.ofMinutes(4));
        nodes.set(0, diskPressure(nodes.get(0), since));

        Plan plan = plan(ROLLING, nodes);

        assertThat(repairs(plan)).isEmpty();
        assertThat(plan.report("web").unhealthyNodes()).containsExactly(new NodeHealth("web-1", "DiskPressure", since));
        assertThat(plan.report("web").failed()).isZero();
        assertThat(plan.wakeAt()).contains(since.plus(Duration.ofMinutes(10)));
    }

    @Test
    void readyUnknownForHealthTimeoutIsAFailure() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 3);
        nodes.set(2, notReady(nodes.get(2), "Unknown", LONG_AGO));

        Plan plan = plan(ROLLING, nodes);

        assertThat(repairs(plan)).singleElement().satisfies(r -> assertThat(r.condition()).isEqualTo("Ready=Unknown"));
    }

    @Test
    void aConditionTheSpecDoesNotNameMakesNoNodeUnhealthy() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 3);
        nodes.set(0, nodes.get(0).toBuilder().conditions(List.of(NodeCondition.of("Ready", "True", LONG_AGO),
                NodeCondition.of("MemoryPressure", "True", LONG_AGO))).build());

        Plan plan = plan(ROLLING, nodes);

        assertThat(repairs(plan)).isEmpty();
        assertThat(plan.report("web").unhealthyNodes()).isEmpty();
    }

    @Test
    void anUnhealthyNodeCountsAsUnavailable() {
        DesiredCluster noSurge = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1"));
        List<ObservedNode> nodes = new ArrayList<>();
        nodes.add(diskPressure(healthy(noSurge, "web", "web-1"), T0.minus(Duration.ofMinutes(2))));
        nodes.add(outdated(noSurge, "web", "web-2"));
        nodes.add(outdated(noSurge, "web", "web-3"));

        Plan plan = plan(noSurge, nodes, MaintenanceState.OPEN, validated(), true);

        assertThat(plan.steps()).as("the unhealthy node already uses the one unavailable slot")
                .noneMatch(s -> s instanceof Step.Drain || s instanceof Step.Cordon);
    }

    @Test
    void withDisableHealthTimeoutAnUnhealthyNodeIsOnlyReported() {
        DesiredCluster disabled = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0\nmachineControllerManager: {disableHealthTimeout: true}"));
        List<ObservedNode> nodes = nodes(disabled, "web", 3);
        nodes.set(1, diskPressure(nodes.get(1), T0.minus(Duration.ofDays(2))));

        Plan plan = plan(disabled, nodes);

        assertThat(repairs(plan)).isEmpty();
        assertThat(plan.report("web").failedNodes()).isEmpty();
        assertThat(plan.report("web").unhealthyNodes()).extracting(NodeHealth::node).containsExactly("web-2");
    }

    @Test
    void inPlacePoolsOnlyReportUnhealthyNodesByDefault() {
        DesiredCluster inPlace = cluster(pool("gpu", "updateStrategy: AutoInPlaceUpdate\nmaxUnavailable: 1"));
        List<ObservedNode> nodes = nodes(inPlace, "gpu", 3);
        nodes.set(0, notReady(nodes.get(0), "Unknown", T0.minus(Duration.ofDays(2))));

        Plan plan = plan(inPlace, nodes);

        assertThat(repairs(plan)).isEmpty();
        assertThat(plan.report("gpu").unhealthyNodes()).extracting(NodeHealth::node).containsExactly("gpu-1");
    }

    @Test
    void anInPlacePoolThatEnablesTheHealthTimeoutRepairs() {
        DesiredCluster inPlace = cluster(pool("gpu", "updateStrategy: AutoInPlaceUpdate\nmaxUnavailable: 1\n"
                + "machineControllerManager: {disableHealthTimeout: false}"));
        List<ObservedNode> nodes = nodes(inPlace, "gpu", 3);
        nodes.set(0, notReady(nodes.get(0), "Unknown", LONG_AGO));

        assertThat(repairs(plan(inPlace, nodes))).extracting(Step::target).containsExactly("gpu-1");
    }

    @Test
    void nothingIsRepairedWhileMoreThanFortyPercentOfThePoolIsUnhealthy() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 5);
        for (int i = 0; i < 3; i++) {
            nodes.set(i, notReady(nodes.get(i), "Unknown", LONG_AGO));
        }

        Plan plan = plan(ROLLING, nodes);

        assertThat(repairs(plan)).isEmpty();
        assertThat(plan.report("web").failedNodes()).hasSize(3);
    }

    @Test
    void exactlyFortyPercentUnhealthyIsStillRepaired() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 5);
        for (int i = 0; i < 2; i++) {
            nodes.set(i, notReady(nodes.get(i), "Unknown", LONG_AGO));
        }

        assertThat(repairs(plan(ROLLING, nodes))).isNotEmpty();
    }

    @Test
    void atMostOneRepairIsInFlightWhenMaxUnavailableIsZero() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 10);
        for (int i = 0; i < 3; i++) {
            nodes.set(i, diskPressure(nodes.get(i), LONG_AGO.minusSeconds(i)));
        }

        assertThat(repairs(plan(ROLLING, nodes))).as("the longest failed first").extracting(Step::target).containsExactly("web-3");
    }

    @Test
    void atMostMaxUnavailableRepairsAreInFlightCountingThoseAlreadyDraining() {
        DesiredCluster two = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 2"));
        List<ObservedNode> nodes = nodes(two, "web", 10);
        for (int i = 0; i < 3; i++) {
            nodes.set(i, diskPressure(nodes.get(i), LONG_AGO));
        }
        nodes.set(0, nodes.get(0).toBuilder().cordoned(true).drainStartedAt(T0.minusSeconds(30)).build());

        assertThat(repairs(plan(two, nodes))).extracting(Step::target).containsExactly("web-2");
    }

    /** The machine the provider created to replace a repaired node, at the current spec, a minute ago. */
    private static ObservedNode replacement(DesiredCluster c, String name, boolean registered, Instant readySince) {
        return current(c, "web", name).toBuilder().registered(registered).readySince(readySince)
                .createdAt(T0.minusSeconds(60)).conditions(registered && readySince != null
                        ? List.of(NodeCondition.of("Ready", "True", readySince)) : List.of()).build();
    }

    @Test
    void aRepairWhoseReplacementHasNotRegisteredYetIsStillInFlight() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 9);
        nodes.set(1, diskPressure(nodes.get(1), LONG_AGO));
        // web-1's repair deleted its machine; the provider's replacement is still booting.
        nodes.set(0, replacement(ROLLING, "web-10", false, null));

        assertThat(repairs(plan(ROLLING, nodes))).as("maxUnavailable 0: one repair at a time, until its replacement is available")
                .isEmpty();
    }

    @Test
    void aRepairWhoseReplacementIsReadyForLessThanMinReadySecondsIsStillInFlight() {
        DesiredCluster warm = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0\nminReadySeconds: 60"));
        List<ObservedNode> nodes = nodes(warm, "web", 9);
        nodes.set(1, diskPressure(nodes.get(1), LONG_AGO));
        nodes.set(0, replacement(warm, "web-10", true, T0.minusSeconds(20)));

        assertThat(repairs(plan(warm, nodes))).isEmpty();
    }

    @Test
    void onceTheReplacementIsAvailableTheNextRepairStarts() {
        DesiredCluster warm = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0\nminReadySeconds: 60"));
        List<ObservedNode> nodes = nodes(warm, "web", 9);
        nodes.set(1, diskPressure(nodes.get(1), LONG_AGO));
        nodes.set(0, replacement(warm, "web-10", true, T0.minusSeconds(61)));

        assertThat(repairs(plan(warm, nodes))).extracting(Step::target).containsExactly("web-2");
    }

    @Test
    void withMaxUnavailableTwoAReplacementComingUpLeavesRoomForOneRepair() {
        DesiredCluster two = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 2"));
        List<ObservedNode> nodes = nodes(two, "web", 10);
        nodes.set(1, diskPressure(nodes.get(1), LONG_AGO));
        nodes.set(2, diskPressure(nodes.get(2), LONG_AGO.plusSeconds(1)));
        nodes.set(0, replacement(two, "web-11", false, null));

        assertThat(repairs(plan(two, nodes))).extracting(Step::target).containsExactly("web-2");
    }

    @Test
    void aSurgeMachineWhoseOldNodeIsStillThereDoesNotHoldARepair() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 9);
        nodes.set(1, diskPressure(nodes.get(1), LONG_AGO));
        nodes.add(replacement(ROLLING, "web-10", false, null).toBuilder().surgeFor("web-3").build());

        assertThat(repairs(plan(ROLLING, nodes))).extracting(Step::target).containsExactly("web-2");
    }

    @Test
    void aControlPlanePoolRepairsOneNodeAtATime() {
        DesiredCluster cp = cluster(pool("cp", "role: control-plane\nmaxUnavailable: 3"));
        List<ObservedNode> nodes = nodes(cp, "cp", 9);
        nodes.set(0, diskPressure(nodes.get(0), LONG_AGO));
        nodes.set(1, diskPressure(nodes.get(1), LONG_AGO));

        assertThat(repairs(plan(cp, nodes))).extracting(Step::target).containsExactly("cp-1");
    }

    @Test
    void aControlPlaneNodeIsNotRepairedWhileAnotherControlPlaneNodeIsNotReady() {
        DesiredCluster cp = cluster(pool("cp", "role: control-plane\nmaxUnavailable: 1"));
        List<ObservedNode> nodes = nodes(cp, "cp", 5);
        nodes.set(0, diskPressure(nodes.get(0), LONG_AGO));
        nodes.set(1, notReady(nodes.get(1), "False", T0.minusSeconds(30)));

        assertThat(repairs(plan(cp, nodes))).isEmpty();
    }

    /** Plans with the nodes the cluster labels control-plane, each Ready or not; the control plane is Ready when all are. */
    private Plan planWithLabelled(DesiredCluster desired, List<ObservedNode> nodes, Map<String, Boolean> controlPlaneNodes) {
        String pool = desired.pools().get(0).name();
        boolean ready = !controlPlaneNodes.containsValue(false);
        return planner.plan(desired, new ObservedCluster(nodes, ready, MaintenanceState.CLOSED, Map.of(pool, PoolStatus.NEW),
                controlPlaneNodes), T0);
    }

    private static Map<String, Boolean> labelled(List<ObservedNode> nodes) {
        Map<String, Boolean> labelled = new java.util.HashMap<>();
        nodes.forEach(n -> labelled.put(n.name(), n.ready()));
        return labelled;
    }

    @Test
    void aLabelledControlPlaneNodeThatIsItselfNotReadyIsRepairedWhileEveryOtherIsReady() {
        DesiredCluster cp = cluster(pool("cp", "role: control-plane\nmaxSurge: 0\nmaxUnavailable: 1"));
        List<ObservedNode> nodes = nodes(cp, "cp", 3);
        nodes.set(0, notReady(nodes.get(0), "Unknown", LONG_AGO));

        assertThat(repairs(planWithLabelled(cp, nodes, labelled(nodes)))).as("its own NotReady does not hold its repair")
                .extracting(Step::target).containsExactly("cp-1");
    }

    @Test
    void aControlPlaneNodeIsNotRepairedWhileALabelledControlPlaneNodeOutsideEveryPoolIsNotReady() {
        DesiredCluster cp = cluster(pool("cp", "role: control-plane\nmaxSurge: 0\nmaxUnavailable: 1"));
        List<ObservedNode> nodes = nodes(cp, "cp", 3);
        nodes.set(0, diskPressure(nodes.get(0), LONG_AGO));
        Map<String, Boolean> labelled = labelled(nodes);
        labelled.put("master-0", false);

        assertThat(repairs(planWithLabelled(cp, nodes, labelled))).isEmpty();
    }

    @Test
    void aPoolWhoseNodesTheClusterLabelsControlPlaneRepairsOneNodeAtATime() {
        DesiredCluster masters = cluster(pool("masters", "maxSurge: 0\nmaxUnavailable: 3"));
        List<ObservedNode> nodes = nodes(masters, "masters", 9);
        nodes.set(0, diskPressure(nodes.get(0), LONG_AGO));
        nodes.set(1, diskPressure(nodes.get(1), LONG_AGO));

        assertThat(repairs(planWithLabelled(masters, nodes, labelled(nodes)))).extracting(Step::target).containsExactly("masters-1");
    }

    @Test
    void aNodeTheClusterLabelsControlPlaneIsNotRepairedWhileAnotherLabelledNodeIsNotReady() {
        DesiredCluster masters = cluster(pool("masters", "maxSurge: 0\nmaxUnavailable: 3"));
        List<ObservedNode> nodes = nodes(masters, "masters", 5);
        nodes.set(0, diskPressure(nodes.get(0), LONG_AGO));
        nodes.set(1, notReady(nodes.get(1), "False", T0.minusSeconds(30)));

        assertThat(repairs(planWithLabelled(masters, nodes, labelled(nodes)))).isEmpty();
    }

    @Test
    void aWorkerIsNotRepairedWhileALabelledControlPlaneNodeIsNotReady() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 3);
        nodes.set(1, notReady(nodes.get(1), "Unknown", LONG_AGO));

        assertThat(repairs(planWithLabelled(ROLLING, nodes, Map.of("master-0", false)))).isEmpty();
    }

    @Test
    void aPausedPoolRepairsNothing() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 3);
        nodes.set(1, diskPressure(nodes.get(1), LONG_AGO));

        assertThat(repairs(plan(ROLLING, nodes, MaintenanceState.CLOSED, PoolStatus.NEW.withPaused(true), true))).isEmpty();
    }

    @Test
    void anExclusionStopsRepairs() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 3);
        nodes.set(1, diskPressure(nodes.get(1), LONG_AGO));

        assertThat(repairs(plan(ROLLING, nodes, new MaintenanceState(false, false, true), PoolStatus.NEW, true))).isEmpty();
    }

    @Test
    void repairsWaitForTheControlPlaneToBeReady() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 3);
        nodes.set(1, diskPressure(nodes.get(1), LONG_AGO));

        assertThat(repairs(plan(ROLLING, nodes, MaintenanceState.OPEN, validated(), false))).isEmpty();
    }

    @Test
    void repairsNeedNeitherAValidationStreakNorThePoolsTurn() {
        DesiredCluster two = cluster(pool("a", "maxSurge: 1\nmaxUnavailable: 0"), pool("b", "maxSurge: 1\nmaxUnavailable: 0"));
        List<ObservedNode> nodes = new ArrayList<>();
        nodes.add(outdated(two, "a", "a-1"));
        nodes.add(healthy(two, "b", "b-1"));
        nodes.add(diskPressure(healthy(two, "b", "b-2"), LONG_AGO));
        nodes.add(healthy(two, "b", "b-3"));

        Plan plan = planner.plan(two, new ObservedCluster(nodes, true, MaintenanceState.OPEN,
                Map.of("a", validated(), "b", PoolStatus.NEW)), T0);

        assertThat(plan.report("b").phase()).isEqualTo(dev.nightshift.strategies.plan.PoolPhase.CURRENT);
        assertThat(repairs(plan)).extracting(Step::target).containsExactly("b-2");
    }

    @Test
    void aNodeUpdatingInPlaceIsNotJudgedByHealth() {
        DesiredCluster inPlace = cluster(pool("gpu", "updateStrategy: AutoInPlaceUpdate\nmaxUnavailable: 1\n"
                + "machineControllerManager: {disableHealthTimeout: false}"));
        List<ObservedNode> nodes = nodes(inPlace, "gpu", 3);
        nodes.set(0, notReady(nodes.get(0), "False", LONG_AGO).toBuilder().cordoned(true)
                .drainStartedAt(LONG_AGO).inPlaceStartedAt(LONG_AGO).build());

        Plan plan = plan(inPlace, nodes);

        assertThat(repairs(plan)).isEmpty();
        assertThat(plan.report("gpu").unhealthyNodes()).isEmpty();
    }

    @Test
    void aNodeRestartingItsKubeletIsNotJudgedByHealth() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 3);
        nodes.set(0, notReady(nodes.get(0), "False", LONG_AGO).toBuilder().kubeletRestartAt(T0.minusSeconds(20)).build());

        Plan plan = plan(ROLLING, nodes);

        assertThat(repairs(plan)).isEmpty();
        assertThat(plan.report("web").unhealthyNodes()).isEmpty();
    }

    @Test
    void aNewMachineNotYetReadyIsJudgedByCreationTimeoutNotHealthTimeout() {
        DesiredCluster quick = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0\n"
                + "machineControllerManager: {healthTimeout: 1m, creationTimeout: 10m}"));
        List<ObservedNode> nodes = nodes(quick, "web", 3);
        nodes.set(2, notReady(nodes.get(2), "False", T0.minus(Duration.ofMinutes(5))).toBuilder()
                .createdAt(T0.minus(Duration.ofMinutes(5))).build());

        Plan plan = plan(quick, nodes);

        assertThat(repairs(plan)).isEmpty();
        assertThat(plan.report("web").unhealthyNodes()).isEmpty();
    }

    @Test
    void aNewNodeNotReadyIsWokenForWhenCreationTimeoutEndsAndJudgedByHealthFromThen() {
        DesiredCluster quick = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0\n"
                + "machineControllerManager: {healthTimeout: 1m, creationTimeout: 10m}"));
        List<ObservedNode> nodes = nodes(quick, "web", 3);
        Instant created = T0.minus(Duration.ofMinutes(5));
        nodes.set(2, notReady(nodes.get(2), "Unknown", created).toBuilder().createdAt(created).build());

        assertThat(plan(quick, nodes).wakeAt()).contains(created.plus(Duration.ofMinutes(10)));

        Plan then = planner.plan(quick, new ObservedCluster(nodes, true, MaintenanceState.CLOSED, Map.of()),
                created.plus(Duration.ofMinutes(10)));
        assertThat(then.report("web").failedNodes()).extracting(NodeHealth::node).containsExactly("web-3");
    }

    @Test
    void aFailedOutdatedNodeIsRepairedNotUpdatedAndReplacedAtTheCurrentSpec() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 3);
        nodes.set(0, diskPressure(outdated(ROLLING, "web", "web-1"), LONG_AGO));

        Plan repair = plan(ROLLING, nodes, MaintenanceState.OPEN, validated(), true);

        assertThat(repair.steps()).filteredOn(s -> s.target().startsWith("web-1"))
                .extracting(s -> (Object) s.getClass()).containsExactly(Step.Repair.class);

        nodes.set(0, nodes.get(0).toBuilder().cordoned(true).drainStartedAt(T0.minusSeconds(20)).drained(true).build());
        Plan delete = plan(ROLLING, nodes, MaintenanceState.CLOSED, PoolStatus.NEW, true);

        assertThat(delete.steps()).filteredOn(Step.DeleteMachine.class::isInstance).singleElement().satisfies(s -> {
            Step.DeleteMachine d = (Step.DeleteMachine) s;
            assertThat(d.target()).isEqualTo("web-1");
            assertThat(d.replace()).isTrue();
            assertThat(d.rollHash()).isEqualTo(desired(ROLLING, "web").rollHash());
        });
    }

    @Test
    void aRepairComesBeforeTheUpdateOfOutdatedNodes() {
        DesiredCluster roomy = cluster(pool("web", "maxSurge: 2\nmaxUnavailable: 0"));
        List<ObservedNode> nodes = new ArrayList<>();
        nodes.add(outdated(roomy, "web", "web-1"));
        nodes.add(diskPressure(healthy(roomy, "web", "web-2"), LONG_AGO));
        nodes.add(current(roomy, "web", "web-3"));

        Plan plan = plan(roomy, nodes, MaintenanceState.OPEN, validated(), true);

        List<Class<?>> kinds = plan.steps().stream().filter(s -> !(s instanceof Step.Taint)).<Class<?>>map(Object::getClass).toList();
        assertThat(kinds).contains(Step.Repair.class, Step.CreateMachine.class);
        assertThat(kinds.indexOf(Step.Repair.class)).isLessThan(kinds.indexOf(Step.CreateMachine.class));
    }

    @Test
    void aRepairDrainIsCarriedOnNotReleasedAsACurrentNode() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 3);
        nodes.set(1, diskPressure(nodes.get(1), LONG_AGO).toBuilder().cordoned(true).drainStartedAt(T0.minusSeconds(20)).build());

        Plan plan = plan(ROLLING, nodes, MaintenanceState.CLOSED, PoolStatus.NEW.withPaused(true), true);

        assertThat(plan.steps()).extracting(s -> (Object) s.getClass()).contains(Step.Drain.class).doesNotContain(Step.Uncordon.class);
    }

    @Test
    void theFailedNodeIsLeftOutOfTheValidation() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 3);
        nodes.set(1, notReady(nodes.get(1), "Unknown", LONG_AGO));
        ObservedCluster observed = new ObservedCluster(nodes, true, MaintenanceState.OPEN, Map.of());

        assertThat(RolloutPlanner.healthy(desired(ROLLING, "web"), observed, T0)).isTrue();
    }

    @Test
    void aNodeNotReadyButNotYetFailedStillFailsTheValidation() {
        List<ObservedNode> nodes = nodes(ROLLING, "web", 3);
        nodes.set(1, notReady(nodes.get(1), "Unknown", T0.minusSeconds(30)));
        ObservedCluster observed = new ObservedCluster(nodes, true, MaintenanceState.OPEN, Map.of());

        assertThat(RolloutPlanner.healthy(desired(ROLLING, "web"), observed, T0)).isFalse();
    }
}
