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
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.model.BlockedEviction;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.Step;

class RolloutPlannerTest {

    private final RolloutPlanner planner = new RolloutPlanner();

    private static final DesiredCluster ROLLING = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0"));

    private Plan plan(DesiredCluster desired, List<ObservedNode> nodes, Map<String, PoolStatus> status) {
        return planner.plan(desired, observed(nodes, MaintenanceState.OPEN, status), T0);
    }

    private static List<Step> of(Plan plan, Class<? extends Step> type) {
        return plan.steps().stream().filter(type::isInstance).toList();
    }

    @Test
    void nodesWithoutHashesAreAdoptedNotDisrupted() {
        ObservedNode unstamped = ObservedNode.ready("web-1", "web", T0.minusSeconds(60));

        Plan plan = plan(ROLLING, List.of(unstamped), Map.of("web", validated()));

        assertThat(plan.steps()).extracting(Step::getClass).doesNotContain(Step.Cordon.class, Step.Drain.class,
                Step.CreateMachine.class, Step.DeleteMachine.class, Step.Taint.class);
        assertThat(of(plan, Step.Stamp.class)).singleElement()
                .satisfies(s -> assertThat(((Step.Stamp) s).adopted()).isTrue());
        assertThat(plan.report("web").adopted()).containsExactly("web-1");
    }

    @Test
    void aPoolWithEveryNodeCurrentHasNothingToDo() {
        Plan plan = plan(ROLLING, List.of(current(ROLLING, "web", "web-1"), current(ROLLING, "web", "web-2")), Map.of());

        assertThat(plan.steps()).isEmpty();
        assertThat(plan.report("web").phase()).isEqualTo(PoolPhase.CURRENT);
        assertThat(plan.report("web").progress()).isEqualTo(1.0);
    }

    @Test
    void labelsAreProposedToNodesWhoseManagedLabelsDiffer() {
        DesiredCluster labelled = cluster(pool("web", "labels: {team: a}"));
        ObservedNode node = current(ROLLING, "web", "web-1").toBuilder().rollHash(Fixtures.desired(labelled, "web").rollHash())
                .kubeletHash(Fixtures.desired(labelled, "web").kubeletHash()).build();

        Plan plan = plan(labelled, List.of(node), Map.of());

        assertThat(of(plan, Step.Propagate.class)).singleElement()
                .satisfies(s -> assertThat(((Step.Propagate) s).labels()).containsEntry("team", "a").containsEntry("nightshift.dev/pool", "web"));
        assertThat(plan.steps()).extracting(Step::getClass).doesNotContain(Step.Cordon.class, Step.Drain.class);
    }

    private static DesiredCluster annotated(String annotations) {
        return cluster(pool("web", "maxSurge: 1").replace("cluster: c}", "cluster: c, annotations: {" + annotations + "}}"));
    }

    /** A node at the pool's hashes whose propagation was done for {@code before}: its labels and taints, and those annotations. */
    private static ObservedNode propagatedFor(DesiredCluster now, Map<String, String> before) {
        return current(now, "web", "web-1").toBuilder().managedAnnotations(before).build();
    }

    @Test
    void aNewPoolAnnotationIsPropagatedWithTheLabelsAndTaints() {
        DesiredCluster annotated = annotated("example.com/owner: team-web");

        Plan plan = plan(annotated, List.of(propagatedFor(annotated, Map.of())), Map.of());

        assertThat(of(plan, Step.Propagate.class)).singleElement().satisfies(s -> {
            Step.Propagate p = (Step.Propagate) s;
            assertThat(p.annotations()).containsExactly(Map.entry("example.com/owner", "team-web"));
            assertThat(p.labels()).containsEntry("nightshift.dev/pool", "web");
        });
        assertThat(plan.steps()).extracting(Step::getClass).doesNotContain(Step.Cordon.class, Step.Drain.class,
                Step.CreateMachine.class, Step.Taint.class);
    }

    @Test
    void aChangedPoolAnnotationIsPropagated() {
        DesiredCluster annotated = annotated("example.com/owner: team-api");

        Plan plan = plan(annotated, List.of(propagatedFor(annotated, Map.of("example.com/owner", "team-web"))), Map.of());

        assertThat(of(plan, Step.Propagate.class)).singleElement()
                .satisfies(s -> assertThat(((Step.Propagate) s).annotations()).containsExactly(Map.entry("example.com/owner", "team-api")));
    }

    @Test
    void aRemovedPoolAnnotationIsPropagatedAsNoLongerWanted() {
        DesiredCluster plain = cluster(pool("web", "maxSurge: 1"));

        Plan plan = plan(plain, List.of(propagatedFor(plain, Map.of("example.com/owner", "team-web"))), Map.of());

        assertThat(of(plan, Step.Propagate.class)).singleElement()
                .satisfies(s -> assertThat(((Step.Propagate) s).annotations()).isEmpty());
    }

    @Test
    void aNodeCarryingThePoolsAnnotationsIsLeftAlone() {
        DesiredCluster annotated = annotated("example.com/owner: team-web");

        Plan plan = plan(annotated, List.of(propagatedFor(annotated, Map.of("example.com/owner", "team-web"))), Map.of());

        assertThat(plan.steps()).isEmpty();
    }

    @Test
    void controlAnnotationsAreNeverPropagated() {
        DesiredCluster controlled = annotated("nightshift.dev/rollout-outside-window: \"true\", "
                + "nightshift.dev/force-in-place-update: t-1, example.com/owner: team-web");

        assertThat(Fixtures.desired(controlled, "web").annotations()).containsExactly(Map.entry("example.com/owner", "team-web"));
        Plan plan = plan(controlled, List.of(propagatedFor(controlled, Map.of())), Map.of());
        assertThat(of(plan, Step.Propagate.class)).singleElement()
                .satisfies(s -> assertThat(((Step.Propagate) s).annotations()).containsOnlyKeys("example.com/owner"));
    }

    @Test
    void aChangeOfOnlyAControlAnnotationPropagatesNothing() {
        DesiredCluster before = annotated("example.com/owner: team-web");
        DesiredCluster after = annotated("example.com/owner: team-web, nightshift.dev/rollout-outside-window: \"true\"");
        ObservedNode node = propagatedFor(before, Map.of("example.com/owner", "team-web"));

        Plan plan = plan(after, List.of(node), Map.of());

        assertThat(plan.steps()).isEmpty();
    }

    @Test
    void theCanaryWithSurgeCreatesExactlyOneMachineAndTaintsTheOutdatedNodes() {
        List<ObservedNode> nodes = List.of(outdated(ROLLING, "web", "web-1"), outdated(ROLLING, "web", "web-2"),
                outdated(ROLLING, "web", "web-3"));

        Plan plan = plan(ROLLING, nodes, Map.of("web", validated()));

        assertThat(of(plan, Step.CreateMachine.class)).singleElement()
                .satisfies(s -> assertThat(((Step.CreateMachine) s).surgeFor()).isEqualTo("web-1"));
        assertThat(of(plan, Step.Taint.class)).extracting(Step::target).containsExactlyInAnyOrder("web-1", "web-2", "web-3");
        assertThat(of(plan, Step.Drain.class)).isEmpty();
    }

    @Test
    void withoutSurgeTheCanaryDrainsExactlyOneNode() {
        DesiredCluster wide = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 3"));
        List<ObservedNode> nodes = List.of(outdated(wide, "web", "web-1"), outdated(wide, "web", "web-2"), outdated(wide, "web", "web-3"));

        Plan plan = plan(wide, nodes, Map.of("web", validated()));

        assertThat(of(plan, Step.Drain.class)).extracting(Step::target).containsExactly("web-1");
    }

    @Test
    void afterTheCanaryTheRolloutGoesAsWideAsTheLimitsAllow() {
        DesiredCluster wide = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 2"));
        List<ObservedNode> nodes = List.of(current(wide, "web", "web-0"), outdated(wide, "web", "web-1"),
                outdated(wide, "web", "web-2"), outdated(wide, "web", "web-3"));

        Plan plan = plan(wide, nodes, Map.of("web", validated()));

        assertThat(of(plan, Step.Drain.class)).extracting(Step::target).containsExactly("web-1", "web-2");
    }

    @Test
    void anOldNodeIsDrainedOnceItsSurgeReplacementIsAvailable() {
        ObservedNode surge = current(ROLLING, "web", "web-new-1").toBuilder().surgeFor("web-1").build();
        List<ObservedNode> nodes = List.of(outdated(ROLLING, "web", "web-1"), outdated(ROLLING, "web", "web-2"), surge);

        Plan plan = plan(ROLLING, nodes, Map.of("web", validated()));

        assertThat(of(plan, Step.Drain.class)).extracting(Step::target).containsExactly("web-1");
        assertThat(of(plan, Step.CreateMachine.class)).as("the surge slot is still taken by web-new-1").isEmpty();
    }

    @Test
    void aMachineBeingDeletedStillTakesItsSurgeSlotUntilItIsGone() {
        // web-1 left (its Cluster API Machine is being deleted); its stand-in web-new-1 runs. Until web-1's machine is
        // gone, 3 + 1 machines exist: another surge machine would make 5.
        ObservedNode leaving = outdated(ROLLING, "web", "web-1").toBuilder().cordoned(true).drainStartedAt(T0.minusSeconds(30))
                .drained(true).terminating(true).build();
        ObservedNode surge = current(ROLLING, "web", "web-new-1").toBuilder().surgeFor("web-1").build();
        List<ObservedNode> nodes = List.of(leaving, surge, outdated(ROLLING, "web", "web-2"), outdated(ROLLING, "web", "web-3"));

        Plan plan = plan(ROLLING, nodes, Map.of("web", validated()));

        assertThat(of(plan, Step.CreateMachine.class)).as("no surge machine while web-1's machine still exists").isEmpty();
        assertThat(of(plan, Step.Drain.class)).as("maxUnavailable 0: nothing drained without a stand-in").isEmpty();
    }

    @Test
    void aDrainedNodeWithASurgePartnerIsDeletedWithoutReplacement() {
        ObservedNode surge = current(ROLLING, "web", "web-new-1").toBuilder().surgeFor("web-1").build();
        ObservedNode drained = outdated(ROLLING, "web", "web-1").toBuilder().cordoned(true).drainStartedAt(T0.minusSeconds(30))
                .drained(true).build();

        Plan plan = plan(ROLLING, List.of(drained, surge), Map.of("web", validated()));

        assertThat(of(plan, Step.DeleteMachine.class)).singleElement()
                .satisfies(s -> assertThat(((Step.DeleteMachine) s).replace()).isFalse());
    }

    @Test
    void aDrainedNodeWithoutAPartnerIsReplacedByTheProvider() {
        DesiredCluster noSurge = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1"));
        ObservedNode drained = outdated(noSurge, "web", "web-1").toBuilder().cordoned(true).drainStartedAt(T0.minusSeconds(30))
                .drained(true).build();

        Plan plan = plan(noSurge, List.of(drained), Map.of("web", validated()));

        assertThat(of(plan, Step.DeleteMachine.class)).singleElement()
                .satisfies(s -> assertThat(((Step.DeleteMachine) s).replace()).isTrue());
    }

    @Test
    void aClosedWindowStartsNothingButFinishesTheNodeInFlight() {
        DesiredCluster noSurge = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1"));
        ObservedNode draining = outdated(noSurge, "web", "web-1").toBuilder().cordoned(true).updateTainted(true)
                .drainStartedAt(T0.minusSeconds(10)).build();
        ObservedNode waiting = outdated(noSurge, "web", "web-2").toBuilder().updateTainted(true).build();

        Plan plan = planner.plan(noSurge, observed(List.of(draining, waiting, current(noSurge, "web", "web-0")),
                MaintenanceState.CLOSED, Map.of("web", validated())), T0);

        assertThat(of(plan, Step.Drain.class)).extracting(Step::target).containsExactly("web-1");
        assertThat(of(plan, Step.Cordon.class)).isEmpty();
        assertThat(of(plan, Step.Untaint.class)).extracting(Step::target).containsExactly("web-2");
    }

    @Test
    void aClosedWindowReportsWaitingForTheWindow() {
        Plan plan = planner.plan(ROLLING, observed(List.of(outdated(ROLLING, "web", "web-1")), MaintenanceState.CLOSED,
                Map.of("web", validated())), T0);

        assertThat(plan.report("web").phase()).isEqualTo(PoolPhase.WAITING_FOR_WINDOW);
        assertThat(plan.steps()).isEmpty();
    }

    @Test
    void needsUpdateMarksWaitForAWindowEvenWhenSpecChangesMayRollAtOnce() {
        ObservedNode marked = current(ROLLING, "web", "web-1").toBuilder().needsUpdate(true).build();
        MaintenanceState specOnly = new MaintenanceState(true, false);

        Plan plan = planner.plan(ROLLING, observed(List.of(marked), specOnly, Map.of("web", validated())), T0);

        assertThat(of(plan, Step.CreateMachine.class)).isEmpty();
        assertThat(plan.report("web").outdated()).isEqualTo(1);
    }

    @Test
    void anEmergencyPoolRollsOutsideTheWindow() {
        DesiredCluster emergency = cluster(pool("web", "maxSurge: 1").replace("cluster: c}",
                "cluster: c, annotations: {nightshift.dev/rollout-outside-window: \"true\"}}"));

        Plan plan = planner.plan(emergency, observed(List.of(outdated(emergency, "web", "web-1")), MaintenanceState.CLOSED,
                Map.of("web", validated())), T0);

        assertThat(of(plan, Step.CreateMachine.class)).hasSize(1);
    }

    @Test
    void anExclusionHoldsEvenAnEmergencyPool() {
        DesiredCluster emergency = cluster(pool("web", "maxSurge: 1").replace("cluster: c}",
                "cluster: c, annotations: {nightshift.dev/rollout-outside-window: \"true\"}}"));

        Plan plan = planner.plan(emergency, observed(List.of(outdated(emergency, "web", "web-1")),
                new MaintenanceState(false, false, true), Map.of("web", validated())), T0);

        assertThat(of(plan, Step.CreateMachine.class)).isEmpty();
    }

    @Test
    void poolsRollOneAtATimeBastionsFirstThenByName() {
        DesiredCluster three = cluster(pool("b-web", "maxSurge: 1"), pool("a-web", "maxSurge: 1"),
                pool("jump", "role: bastion"));
        List<ObservedNode> nodes = List.of(outdated(three, "a-web", "a-1"), outdated(three, "b-web", "b-1"),
                outdated(three, "jump", "jump-1").toBuilder().registered(false).build());
        Map<String, PoolStatus> status = Map.of("a-web", validated(), "b-web", validated(), "jump", validated());

        Plan plan = plan(three, nodes, status);

        assertThat(plan.report("jump").phase()).isEqualTo(PoolPhase.UPDATING);
        assertThat(plan.report("a-web").phase()).isEqualTo(PoolPhase.WAITING_FOR_TURN);
        assertThat(plan.report("b-web").phase()).isEqualTo(PoolPhase.WAITING_FOR_TURN);
        assertThat(plan.steps()).extracting(Step::target).allMatch(t -> t.startsWith("jump"));
    }

    @Test
    void bastionsAreReplacedWithoutTaintCordonOrDrain() {
        DesiredCluster bastion = cluster(pool("jump", "role: bastion"));
        ObservedNode machine = outdated(bastion, "jump", "jump-1").toBuilder().registered(false).build();

        Plan plan = plan(bastion, List.of(machine), Map.of("jump", validated()));

        assertThat(plan.steps()).extracting(Step::getClass).containsExactly(Step.DeleteMachine.class);
    }

    @Test
    void aBastionRunsNoKubeletSoAKubeletOnlyChangeRestampsItsMachineWithoutDisruptingIt() {
        DesiredCluster bastion = cluster(pool("jump", "role: bastion"));
        DesiredPool jump = Fixtures.desired(bastion, "jump");
        ObservedNode machine = current(bastion, "jump", "jump-1").toBuilder().registered(false).kubeletHash(Fixtures.OLD).build();

        Plan plan = plan(bastion, List.of(machine), Map.of("jump", validated()));

        assertThat(plan.steps()).containsExactly(new Step.Stamp("jump-1", "jump", jump.rollHash(), jump.kubeletHash(), false));
        Plan afterwards = plan(bastion, List.of(machine.toBuilder().kubeletHash(jump.kubeletHash()).build()), Map.of("jump", validated()));
        assertThat(afterwards.steps()).isEmpty();
        assertThat(afterwards.report("jump").outdated()).isZero();
        assertThat(afterwards.report("jump").phase()).isEqualTo(PoolPhase.CURRENT);
    }

    @Test
    void withDrainAndTerminateFalseOutdatedNodesAreTaintedAndReportedOnly() {
        DesiredCluster reportOnly = cluster(pool("web", "drainAndTerminate: false"));

        Plan plan = plan(reportOnly, List.of(outdated(reportOnly, "web", "web-1")), Map.of("web", validated()));

        assertThat(plan.steps()).extracting(Step::getClass).containsExactly(Step.Taint.class);
        assertThat(plan.report("web").phase()).isEqualTo(PoolPhase.REPORT_ONLY);
    }

    @Test
    void nothingStartsBeforeTheClusterValidates() {
        Plan plan = plan(ROLLING, List.of(outdated(ROLLING, "web", "web-1")), Map.of());

        assertThat(of(plan, Step.CreateMachine.class)).isEmpty();
        assertThat(of(plan, Step.Validate.class)).extracting(Step::target).containsExactly("web");
    }

    @Test
    void aNotReadyNodeInThePoolBlocksNewWork() {
        ObservedNode notReady = current(ROLLING, "web", "web-0").toBuilder().readySince(null).build();

        Plan plan = plan(ROLLING, List.of(notReady, outdated(ROLLING, "web", "web-1")), Map.of("web", validated()));

        assertThat(of(plan, Step.CreateMachine.class)).isEmpty();
        assertThat(plan.report("web").phase()).isEqualTo(PoolPhase.WAITING_FOR_VALIDATION);
    }

    /**
     * {@code rolling-update --fail-on-validate-error=false} past {@code --validation-timeout}: the pool goes on as kops
     * does ("proceeding since fail-on-validate-error is set to false"), within its own limits; without the waiver the
     * same cluster starts nothing (the test above).
     */
    @Test
    void aPoolWhoseValidationIsWaivedStartsItsNextBatchThoughTheClusterDoesNotValidate() {
        List<ObservedNode> nodes = List.of(current(ROLLING, "web", "web-0"), outdated(ROLLING, "web", "web-1"));
        // The control plane not Ready: no pool validates.
        Plan waiting = planner.plan(ROLLING, new dev.nightshift.strategies.model.ObservedCluster(nodes, false, MaintenanceState.OPEN,
                Map.of("web", validated())), T0);
        Plan waived = planner.plan(ROLLING.withValidationWaived(java.util.Set.of("web")), new dev.nightshift.strategies.model.ObservedCluster(
                nodes, false, MaintenanceState.OPEN, Map.of("web", validated())), T0);

        assertThat(of(waiting, Step.CreateMachine.class)).isEmpty();
        assertThat(waiting.report("web").phase()).isEqualTo(PoolPhase.WAITING_FOR_VALIDATION);
        assertThat(of(waived, Step.CreateMachine.class)).as("the surge machine for web-1").singleElement();
        assertThat(waived.report("web").phase()).isEqualTo(PoolPhase.UPDATING);
    }

    /**
     * A streak completed, then a node went NotReady: the planner asks for a validation again, whose failure ends the
     * streak, so that once the pool is healthy again it needs its consecutive validations anew (kops's validate-count).
     * Before, the complete streak was kept, no validation was asked, and the loop idled at its slow resync.
     */
    @Test
    void aCompleteStreakIsCheckedAgainWhileThePoolIsUnhealthy() {
        ObservedNode notReady = current(ROLLING, "web", "web-0").toBuilder().readySince(null).build();

        Plan plan = plan(ROLLING, List.of(notReady, outdated(ROLLING, "web", "web-1")), Map.of("web", validated()));

        assertThat(of(plan, Step.Validate.class)).extracting(Step::target).containsExactly("web");
        assertThat(of(plan, Step.CreateMachine.class)).isEmpty();
        Plan healthy = plan(ROLLING, List.of(current(ROLLING, "web", "web-0"), outdated(ROLLING, "web", "web-1")), Map.of("web", validated()));
        assertThat(of(healthy, Step.Validate.class)).as("a complete streak on a healthy pool is not checked again").isEmpty();
    }

    @Test
    void aPausedPoolStartsNothing() {
        Plan plan = plan(ROLLING, List.of(outdated(ROLLING, "web", "web-1")), Map.of("web", validated().withPaused(true)));

        assertThat(of(plan, Step.CreateMachine.class)).isEmpty();
        assertThat(plan.report("web").phase()).isEqualTo(PoolPhase.PAUSED);
    }

    @Test
    void intervalAfterATerminationHoldsNewWorkAndSetsAWakeUp() {
        DesiredCluster withInterval = cluster(pool("web", "maxSurge: 1\ninterval: 30s"));
        PoolStatus justTerminated = validated().withLastTermination(T0.minusSeconds(10));

        Plan plan = plan(withInterval, List.of(current(withInterval, "web", "web-0"), outdated(withInterval, "web", "web-1")),
                Map.of("web", justTerminated));

        assertThat(of(plan, Step.CreateMachine.class)).isEmpty();
        assertThat(plan.wakeAt()).contains(T0.plusSeconds(20));
    }

    @Test
    void blockedEvictionsAreForcedAfterMaxEvictRetriesWithForceDelete() {
        DesiredCluster force = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1\nmachineControllerManager: {maxEvictRetries: 3}"));
        ObservedNode draining = outdated(force, "web", "web-1").toBuilder().cordoned(true).drainStartedAt(T0.minusSeconds(60))
                .blockedEvictions(List.of(new BlockedEviction("db-0", "db-pdb", 3))).build();

        Plan plan = plan(force, List.of(draining), Map.of("web", validated()));

        assertThat(of(plan, Step.ForceDeletePod.class)).singleElement()
                .satisfies(s -> assertThat(((Step.ForceDeletePod) s).pod()).isEqualTo("db-0"));
    }

    @Test
    void aForcedDeletionComesBeforeTheDrainPassOfItsNode() {
        // The agent's forced deletion waits for the node's running drain pass: asked for after the pass, it never ran.
        DesiredCluster force = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1\nmachineControllerManager: {maxEvictRetries: 2}"));
        ObservedNode draining = outdated(force, "web", "web-1").toBuilder().cordoned(true).drainStartedAt(T0.minusSeconds(60))
                .blockedEvictions(List.of(new BlockedEviction("db-0", "db-pdb", 2))).build();

        Plan plan = plan(force, List.of(draining), Map.of("web", validated()));

        assertThat(plan.steps()).filteredOn(s -> s.target().equals("web-1"))
                .filteredOn(s -> s instanceof Step.ForceDeletePod || s instanceof Step.Drain)
                .extracting(s -> s.getClass().getSimpleName()).containsExactly("ForceDeletePod", "Drain");
    }

    @Test
    void withWaitABlockedEvictionIsReportedAndNeverForced() {
        DesiredCluster wait = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1\nmachineControllerManager: {maxEvictRetries: 3, onEvictionBlocked: Wait}"));
        ObservedNode draining = outdated(wait, "web", "web-1").toBuilder().cordoned(true).drainStartedAt(T0.minus(Duration.ofHours(5)))
                .blockedEvictions(List.of(new BlockedEviction("db-0", "db-pdb", 300))).build();

        Plan plan = plan(wait, List.of(draining), Map.of("web", validated()));

        assertThat(of(plan, Step.ForceDeletePod.class)).isEmpty();
        assertThat(of(plan, Step.DeleteMachine.class)).as("drainTimeout never deletes with Wait").isEmpty();
        assertThat(plan.report("web").blockedDrains()).singleElement()
                .satisfies(b -> assertThat(b.eviction().disruptionBudget()).isEqualTo("db-pdb"));
    }

    @Test
    void afterDrainTimeoutForceDeleteDeletesTheMachineAnyway() {
        DesiredCluster force = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1\nmachineControllerManager: {drainTimeout: 10m}"));
        ObservedNode draining = outdated(force, "web", "web-1").toBuilder().cordoned(true).drainStartedAt(T0.minus(Duration.ofMinutes(11)))
                .blockedEvictions(List.of(new BlockedEviction("db-0", "db-pdb", 1))).build();

        Plan plan = plan(force, List.of(draining), Map.of("web", validated()));

        assertThat(of(plan, Step.DeleteMachine.class)).extracting(Step::target).containsExactly("web-1");
    }

    @Test
    void aTargetRevertedMidRolloutReleasesTheNodeBeingDrained() {
        ObservedNode draining = current(ROLLING, "web", "web-1").toBuilder().cordoned(true).updateTainted(true)
                .drainStartedAt(T0.minusSeconds(5)).build();

        Plan plan = plan(ROLLING, List.of(draining), Map.of("web", validated()));

        assertThat(plan.steps()).extracting(Step::getClass).contains(Step.Uncordon.class, Step.Untaint.class);
    }

    @Test
    void aKubeletOnlyChangeRestartsAtMostMaxOfOneAndMaxUnavailableAtATime() {
        DesiredCluster kubelet = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 2"));
        List<ObservedNode> nodes = List.of(
                current(kubelet, "web", "web-1").toBuilder().kubeletHash(Fixtures.OLD).build(),
                current(kubelet, "web", "web-2").toBuilder().kubeletHash(Fixtures.OLD).build(),
                current(kubelet, "web", "web-3").toBuilder().kubeletHash(Fixtures.OLD).build());

        Plan plan = plan(kubelet, nodes, Map.of("web", validated()));

        assertThat(of(plan, Step.RestartKubelet.class)).hasSize(2);
        assertThat(plan.steps()).extracting(Step::getClass).doesNotContain(Step.Cordon.class, Step.Drain.class);
        assertThat(plan.report("web").phase()).isEqualTo(PoolPhase.RESTARTING_KUBELETS);
        assertThat(plan.report("web").pendingAction()).isEqualTo(PendingAction.KUBELET_RESTART);
    }

    @Test
    void aKubeletRestartUnansweredForTheHealthTimeoutIsAskedForAgainAndOnlyThen() {
        DesiredCluster kubelet = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1\nmachineControllerManager: {healthTimeout: 10m}"));
        Instant askedRecently = T0.minus(Duration.ofMinutes(9));
        Instant askedLongAgo = T0.minus(Duration.ofMinutes(10));
        List<ObservedNode> waiting = List.of(
                current(kubelet, "web", "web-1").toBuilder().kubeletHash(Fixtures.OLD).kubeletRestartAt(askedRecently).build(),
                current(kubelet, "web", "web-2").toBuilder().kubeletHash(Fixtures.OLD).build());
        List<ObservedNode> unanswered = List.of(
                current(kubelet, "web", "web-1").toBuilder().kubeletHash(Fixtures.OLD).kubeletRestartAt(askedLongAgo).build(),
                current(kubelet, "web", "web-2").toBuilder().kubeletHash(Fixtures.OLD).build());

        Plan stillWaiting = plan(kubelet, waiting, Map.of("web", validated()));
        Plan askAgain = plan(kubelet, unanswered, Map.of("web", validated()));

        assertThat(of(stillWaiting, Step.RestartKubelet.class)).as("the one restart allowed is pending").isEmpty();
        assertThat(stillWaiting.wakeAt()).contains(askedRecently.plus(Duration.ofMinutes(10)));
        assertThat(of(askAgain, Step.RestartKubelet.class)).singleElement()
                .isEqualTo(new Step.RestartKubelet("web-1", "web", kubelet.pools().get(0), Optional.of(askedLongAgo)));
    }

    @Test
    void aKubeletRestartTheNodeUpdaterMarkedFailedIsNeitherAskedAgainNorReleasedAndStopsThePool() {
        DesiredCluster kubelet = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 2\nmachineControllerManager: {healthTimeout: 10m}"));
        List<ObservedNode> nodes = List.of(
                current(kubelet, "web", "web-1").toBuilder().kubeletHash(Fixtures.OLD).kubeletRestartAt(T0.minus(Duration.ofHours(1)))
                        .inPlaceFailed(true).build(),
                current(kubelet, "web", "web-2").toBuilder().kubeletHash(Fixtures.OLD).build(),
                current(kubelet, "web", "web-3").toBuilder().kubeletHash(Fixtures.OLD).build());

        Plan plan = plan(kubelet, nodes, Map.of("web", validated()));

        assertThat(plan.steps()).extracting(Step::getClass).doesNotContain(Step.RestartKubelet.class, Step.Uncordon.class);
        assertThat(plan.report("web").phase()).isEqualTo(PoolPhase.FAILED);
        assertThat(plan.report("web").failed()).isEqualTo(1);
    }

    @Test
    void thePendingActionSaysWhatOutdatedNodesNeedEvenWhileTheyWait() {
        DesiredCluster inPlace = cluster(pool("gpu", "updateStrategy: AutoInPlaceUpdate\nmaxUnavailable: 1"));
        MaintenanceState closed = new MaintenanceState(false, false, false);

        Plan rolling = planner.plan(ROLLING, observed(List.of(outdated(ROLLING, "web", "web-1")), closed, Map.of()), T0);
        Plan updating = planner.plan(inPlace, observed(List.of(outdated(inPlace, "gpu", "gpu-1")), closed, Map.of()), T0);
        Plan done = plan(ROLLING, List.of(current(ROLLING, "web", "web-1")), Map.of());

        assertThat(rolling.report("web").phase()).isEqualTo(PoolPhase.WAITING_FOR_WINDOW);
        assertThat(rolling.report("web").pendingAction()).isEqualTo(PendingAction.ROLL);
        assertThat(updating.report("gpu").pendingAction()).isEqualTo(PendingAction.IN_PLACE);
        assertThat(done.report("web").pendingAction()).isEqualTo(PendingAction.NONE);
    }

    @Test
    void aMachineThatNeverRegisteredWithinCreationTimeoutIsRetried() {
        DesiredCluster noSurge = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1\nmachineControllerManager: {creationTimeout: 10m}"));
        ObservedNode stuck = current(noSurge, "web", "web-new-1").toBuilder().registered(false).readySince(null)
                .createdAt(T0.minus(Duration.ofMinutes(11))).build();

        Plan plan = plan(noSurge, List.of(stuck, current(noSurge, "web", "web-2")), Map.of("web", validated()));

        assertThat(of(plan, Step.DeleteMachine.class)).singleElement()
                .satisfies(s -> assertThat(((Step.DeleteMachine) s).replace()).isTrue());
        assertThat(plan.report("web").failed()).isEqualTo(1);
    }

    @Test
    void progressDeadlineExceededIsReportedWhenNoNodeFinishedForTooLong() {
        DesiredCluster deadline = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1\nprogressDeadlineSeconds: 600"));
        ObservedNode draining = outdated(deadline, "web", "web-1").toBuilder().cordoned(true).drainStartedAt(T0.minusSeconds(900)).build();
        PoolStatus status = new PoolStatus(1, java.util.Optional.of(T0.minusSeconds(601)), java.util.Optional.empty(), 1,
                java.util.Set.of(), false);

        Plan plan = plan(deadline, List.of(draining), Map.of("web", status));

        assertThat(plan.report("web").progressing()).isFalse();
        assertThat(plan.report("web").progressReason()).isEqualTo("ProgressDeadlineExceeded");
    }

    @Test
    void progressResetsTheDeadlineWhenANodeFinished() {
        DesiredCluster deadline = cluster(pool("web", "maxSurge: 0\nmaxUnavailable: 1\nprogressDeadlineSeconds: 600"));
        PoolStatus twoOutdatedBefore = new PoolStatus(2, java.util.Optional.of(T0.minusSeconds(601)), java.util.Optional.empty(), 1,
                java.util.Set.of(), false);

        Plan plan = plan(deadline, List.of(current(deadline, "web", "web-0"), outdated(deadline, "web", "web-1")),
                Map.of("web", twoOutdatedBefore));

        assertThat(plan.report("web").progressing()).isTrue();
        assertThat(plan.report("web").status().lastProgressAt()).contains(T0);
    }

    @Test
    void manualInPlaceLabelsCandidatesAndUpdatesOnlySelectedNodes() {
        DesiredCluster manual = cluster(pool("gpu", "updateStrategy: ManualInPlaceUpdate\nmaxUnavailable: 2"));
        List<ObservedNode> nodes = List.of(outdated(manual, "gpu", "gpu-1"),
                outdated(manual, "gpu", "gpu-2").toBuilder().candidateForUpdate(true).selectedForUpdate(true).build());

        Plan plan = plan(manual, nodes, Map.of("gpu", validated()));

        assertThat(of(plan, Step.LabelCandidate.class)).extracting(Step::target).containsExactly("gpu-1");
        assertThat(of(plan, Step.Drain.class)).extracting(Step::target).containsExactly("gpu-2");
        assertThat(plan.report("gpu").awaitingSelection()).containsExactly("gpu-1");
    }

    @Test
    void anInPlaceUpdateThatTimesOutLeavesTheNodeCordonedAndFailed() {
        DesiredCluster inPlace = cluster(pool("gpu", "updateStrategy: AutoInPlaceUpdate\nmaxUnavailable: 1\nmachineControllerManager: {inPlaceUpdateTimeout: 30m}"));
        ObservedNode stuck = outdated(inPlace, "gpu", "gpu-1").toBuilder().cordoned(true).drainStartedAt(T0.minus(Duration.ofMinutes(40)))
                .drained(true).inPlaceStartedAt(T0.minus(Duration.ofMinutes(31))).readySince(null).build();

        Plan plan = plan(inPlace, List.of(stuck), Map.of("gpu", validated()));

        assertThat(of(plan, Step.Uncordon.class)).isEmpty();
        assertThat(plan.report("gpu").phase()).isEqualTo(PoolPhase.FAILED);
    }

    @Test
    void replaceDrainsEveryOutdatedNodeAtOnce() {
        DesiredCluster replace = cluster(pool("batch", "updateStrategy: Replace"));
        List<ObservedNode> nodes = List.of(outdated(replace, "batch", "b-1"), outdated(replace, "batch", "b-2"), outdated(replace, "batch", "b-3"));

        Plan plan = plan(replace, nodes, Map.of("batch", validated()));

        assertThat(of(plan, Step.Drain.class)).extracting(Step::target).containsExactly("b-1", "b-2", "b-3");
    }

    @Test
    void theSamePlanComesFromTheSameObservation() {
        List<ObservedNode> nodes = List.of(outdated(ROLLING, "web", "web-1"), outdated(ROLLING, "web", "web-2"));

        assertThat(plan(ROLLING, nodes, Map.of("web", validated()))).isEqualTo(plan(ROLLING, nodes, Map.of("web", validated())));
    }
}
