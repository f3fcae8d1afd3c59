package dev.nightshift.agent.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.nightshift.agent.TestClusters;
import dev.nightshift.agent.eta.PoolDurations;
import dev.nightshift.agent.eta.RolloutEta;
import dev.nightshift.agent.git.SpecRevision;
import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.spec.diff.PoolTarget;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.PoolReport;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.Step;

/**
 * One reconcile pass, its stages faked (acceptance, the cluster, the guard, the executor, the records) and the planner
 * real: the stages run in order, the guard is asked before each step at that moment, a validation counts in the pool's
 * streak, and what a dry run or a replica that does not lead does is nothing.
 */
class ReconcilePassTest {

    private static final Instant NOW = Instant.parse("2026-11-27T10:00:00Z");
    private static final StampedHash OLD = new StampedHash(1, "0".repeat(32));
    private static final DesiredCluster DESIRED = TestClusters.oneWebPool();
    private static final DesiredPool WEB = DESIRED.pools().get(0);

    /** What every fake did, in order: the stages' order is read from it. */
    private final List<String> log = new ArrayList<>();
    private final FakeAcceptance acceptance = new FakeAcceptance();
    private final FakeCluster cluster = new FakeCluster();
    private final List<Step> executed = new ArrayList<>();
    /** Drain passes that finished off the pass's thread since the executor was last asked. */
    private final List<StepExecutor.Outcome> finishedDrains = new ArrayList<>();
    private final List<Map<String, PoolStatus>> written = new ArrayList<>();
    private StepGuard guard = step -> {
        log.add("guard " + name(step));
        return StepGuard.Verdict.ADMIT;
    };
    private boolean leading = true;
    private boolean apiServerReady = true;
    private int apiServerAsked;
    private final EtaRefresh eta = new EtaRefresh(new RolloutEta());
    /** The pass's clock; a step moves it on by {@link #stepTakes}. */
    private Instant clockNow = NOW;
    private Duration stepTakes = Duration.ZERO;
    private final Clock clock = new Clock() {
        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return clockNow;
        }
    };

    @AfterEach
    void closeEstimates() {
        eta.close();
    }

    private ReconcilePass pass(boolean dryRun) {
        return pass(new ReconcilePass.Settings(1, dryRun, Optional.empty()));
    }

    private ReconcilePass pass(ReconcilePass.Settings settings) {
        StepRunner runner = new StepRunner() {
            @Override
            public Optional<StepExecutor.Outcome> execute(Step step) {
                log.add("execute " + name(step));
                executed.add(step);
                clockNow = clockNow.plus(stepTakes);
                return Optional.of(new StepExecutor.Outcome(step, "did " + name(step)));
            }

            @Override
            public List<StepExecutor.Outcome> finished() {
                List<StepExecutor.Outcome> done = List.copyOf(finishedDrains);
                finishedDrains.clear();
                return done;
            }
        };
        return new ReconcilePass(settings, acceptance, cluster, new RolloutPlanner(),
                (desired, observed, now) -> step -> guard.check(step), runner, StepNotes.NONE, (statuses, observed, durations) -> {
                    log.add("record");
                    written.add(Map.copyOf(statuses));
                }, () -> {
                    apiServerAsked++;
                    return apiServerReady;
                }, Duration.ZERO, () -> leading, eta, clock);
    }

    private static String name(Step step) {
        return step.getClass().getSimpleName() + (step instanceof Step.Validate ? "" : " " + step.target());
    }

    /** {@code n} Ready nodes of pool web at an old image, the pool's streak at {@code streak}. */
    private void outdatedNodes(int n, int streak) {
        List<ObservedNode> nodes = IntStream.rangeClosed(1, n).mapToObj(i -> ObservedNode.ready("web-" + i, "web", NOW.minusSeconds(3600))
                .toBuilder().rollHash(OLD).kubeletHash(WEB.kubeletHash()).managedLabels(WEB.labels()).build()).toList();
        cluster.observed = new ObservedCluster(nodes, true, MaintenanceState.OPEN,
                Map.of("web", PoolStatus.NEW.withValidationStreak(streak)));
    }

    /** {@code n} Ready nodes of pool web that Nightshift never stamped: adopted. */
    private void unstampedNodes(int n) {
        List<ObservedNode> nodes = IntStream.rangeClosed(1, n).mapToObj(i -> ObservedNode.ready("web-" + i, "web", NOW.minusSeconds(3600))
                .toBuilder().managedLabels(WEB.labels()).build()).toList();
        cluster.observed = new ObservedCluster(nodes, true, MaintenanceState.OPEN, Map.of("web", PoolStatus.NEW));
    }

    private SpecRevision offered() {
        return new SpecRevision("abc123", null, NOW);
    }

    @Test
    void whileNothingIsAcceptedAPassObservesNothingAndTouchesNothing() {
        acceptance.acting = Optional.empty();

        Optional<ReconcileReport> report = pass(false).run(offered(), NOW);

        assertThat(report).isEmpty();
        assertThat(log).containsExactly("rebuild", "take abc123");
        assertThat(executed).isEmpty();
    }

    @Test
    void theStagesRunInOrderAcceptObservePlanGuardExecuteRecordAndReport() {
        outdatedNodes(3, 1);

        ReconcileReport report = pass(false).run(offered(), NOW).orElseThrow();

        assertThat(executed).as("a pool that validated once starts its rollout").isNotEmpty();
        int firstGuard = log.indexOf(log.stream().filter(e -> e.startsWith("guard")).findFirst().orElseThrow());
        assertThat(log.subList(0, firstGuard)).containsExactly("rebuild", "take abc123", "refresh acting", "observe", "refusals", "plan observed");
        assertThat(log.get(log.size() - 1)).isEqualTo("record");
        // Each step is guarded just before it is executed, not all at once up front.
        for (int i = firstGuard; i < log.size() - 1; i += 2) {
            assertThat(log.get(i)).startsWith("guard ");
            assertThat(log.get(i + 1)).isEqualTo("execute " + log.get(i).substring("guard ".length()));
        }
        assertThat(report.revision()).isEqualTo("abc123");
        assertThat(report.outcomes()).extracting(StepExecutor.Outcome::step).containsExactlyElementsOf(executed);
        assertThat(report.plan().steps()).containsAll(executed);
    }

    @Test
    void whatTheDrainPassesThatFinishedSinceTheLastPassDidIsReportedOnceBesideThisPassesSteps() {
        outdatedNodes(3, 1);
        StepExecutor.Outcome drained = new StepExecutor.Outcome(new Step.Drain("web-9", "web"), "draining web-9: 18 pod(s) evicted",
                new StepExecutor.Evictions(18, 0, 0));
        finishedDrains.add(drained);
        ReconcilePass pass = pass(false);

        ReconcileReport first = pass.run(offered(), NOW).orElseThrow();
        List<Step> stepsOfTheFirst = List.copyOf(executed);
        ReconcileReport second = pass.run(offered(), NOW).orElseThrow();

        assertThat(stepsOfTheFirst).isNotEmpty();
        assertThat(first.outcomes()).first().isEqualTo(drained);
        assertThat(first.outcomes()).extracting(StepExecutor.Outcome::step).containsExactlyElementsOf(
                java.util.stream.Stream.concat(java.util.stream.Stream.of(drained.step()), stepsOfTheFirst.stream()).toList());
        assertThat(second.outcomes()).doesNotContain(drained);
    }

    @Test
    void aPassStartsNoStepOnceItsTimeForStepsIsUpAndLeavesTheRestToTheNextPass() {
        outdatedNodes(3, 1);
        stepTakes = ReconcilePass.STEP_TIME.dividedBy(2);
        ReconcilePass pass = pass(false);

        ReconcileReport report = pass.run(offered(), NOW).orElseThrow();

        // Two steps fill the second; the third is not started.
        List<Step> steps = report.plan().steps();
        assertThat(steps.stream().filter(st -> !(st instanceof Step.Validate)).count()).as("enough steps to be cut").isGreaterThan(2);
        assertThat(executed).hasSize(2);
        assertThat(report.outcomes()).hasSize(2);
        assertThat(pass.stepsLeft()).isEqualTo(steps.size() - steps.indexOf(executed.get(1)) - 1);
    }

    @Test
    void aPoolWhoseAdoptionAPassLeftUnfinishedIsNotReportedCurrent() {
        unstampedNodes(4);
        stepTakes = ReconcilePass.STEP_TIME.dividedBy(2);

        ReconcileReport cut = pass(false).run(offered(), NOW).orElseThrow();

        assertThat(cut.plan().steps()).as("stamps to write").filteredOn(st -> st instanceof Step.Stamp).hasSize(4);
        assertThat(executed).hasSize(2);
        assertThat(cut.plan().report("web").phase()).as("stamps left for the next pass").isEqualTo(PoolPhase.UPDATING);
        assertThat(cut.plan().report("web").fullyCurrent()).as("nothing outdated or in flight").isTrue();

        executed.clear();
        stepTakes = Duration.ZERO;
        ReconcileReport whole = pass(false).run(offered(), clockNow).orElseThrow();
        assertThat(executed).hasSize(whole.plan().steps().size());
        assertThat(whole.plan().report("web").phase()).as("every step carried out").isEqualTo(PoolPhase.CURRENT);
    }

    @Test
    void aSlowObserveLeavesThePassItsTimeForSteps() {
        outdatedNodes(3, 1);
        stepTakes = ReconcilePass.STEP_TIME.dividedBy(2);
        // The pass started at NOW; its observe and plan took ten seconds (a machine API answering slowly).
        clockNow = NOW.plusSeconds(10);

        pass(false).run(offered(), NOW).orElseThrow();

        assertThat(executed).as("a second of steps from the first, not one step").hasSize(2);
    }

    @Test
    void aPassWhoseFirstStepOutlastsItsTimeStillCarriesItOut() {
        outdatedNodes(3, 1);
        stepTakes = ReconcilePass.STEP_TIME.multipliedBy(5);
        clockNow = NOW.plus(ReconcilePass.STEP_TIME);

        ReconcileReport report = pass(false).run(offered(), NOW).orElseThrow();

        assertThat(executed).hasSize(1);
        assertThat(report.plan().steps()).hasSizeGreaterThan(1);
    }

    @Test
    void aPassWithinItsTimeLeavesNothing() {
        outdatedNodes(3, 1);
        ReconcilePass pass = pass(false);

        ReconcileReport report = pass.run(offered(), NOW).orElseThrow();

        assertThat(pass.stepsLeft()).isZero();
        assertThat(executed).hasSize((int) report.plan().steps().stream().filter(st -> !(st instanceof Step.Validate)).count());
    }

    @Test
    void aValidationIsExecutedByThePassAndCountsInThePoolsStreakWithoutReachingTheExecutor() {
        outdatedNodes(3, 0);

        ReconcileReport report = pass(false).run(offered(), NOW).orElseThrow();

        assertThat(report.plan().steps()).contains(new Step.Validate("web"));
        assertThat(executed).noneMatch(s -> s instanceof Step.Validate);
        assertThat(apiServerAsked).isEqualTo(1);
        assertThat(written).singleElement().satisfies(statuses -> assertThat(statuses.get("web").validationStreak()).isEqualTo(1));
    }

    @Test
    void aValidationWhileTheApiServerIsNotReadyDoesNotCount() {
        outdatedNodes(3, 0);
        apiServerReady = false;

        pass(false).run(offered(), NOW);

        assertThat(written).singleElement().satisfies(statuses -> assertThat(statuses.get("web").validationStreak()).isZero());
    }

    @Test
    void aGuardThatStopsThePassLeavesEveryLaterStepUndoneAndTheRecordsAreStillWritten() {
        outdatedNodes(3, 1);
        guard = step -> StepGuard.Verdict.stop("the lease is gone");

        ReconcileReport report = pass(false).run(offered(), NOW).orElseThrow();

        assertThat(report.plan().steps()).isNotEmpty();
        assertThat(executed).isEmpty();
        assertThat(report.outcomes()).isEmpty();
        assertThat(log).contains("record");
    }

    @Test
    void aSkippedStepIsNotExecutedAndTheStepsAfterItAre() {
        outdatedNodes(3, 1);
        List<Step> planned = pass(false).run(offered(), NOW).orElseThrow().plan().steps().stream()
                .filter(s -> !(s instanceof Step.Validate)).toList();
        assertThat(planned).as("a plan with two steps or more").hasSizeGreaterThan(1);
        Step first = planned.get(0);
        executed.clear();
        guard = step -> step.equals(first) ? StepGuard.Verdict.refuse("test", "not this one") : StepGuard.Verdict.ADMIT;

        pass(false).run(offered(), NOW);

        assertThat(executed).doesNotContain(first).containsExactlyElementsOf(planned.subList(1, planned.size()));
    }

    @Test
    void aRefusedStepIsReportedWithItsReasonAndNumbersAndNotExecuted() {
        outdatedNodes(3, 1);
        guard = step -> step instanceof Step.Validate || !DisruptionGuardSteps.disruptive(step) ? StepGuard.Verdict.ADMIT
                : StepGuard.Verdict.refuse("unavailable", "web has 3 available nodes");

        ReconcileReport report = pass(false).run(offered(), NOW).orElseThrow();

        List<Step> disruptive = report.plan().steps().stream().filter(DisruptionGuardSteps::disruptive).toList();
        assertThat(disruptive).isNotEmpty();
        assertThat(executed).doesNotContainAnyElementsOf(disruptive);
        assertThat(report.refusals()).extracting(StepRefusal::node).containsExactlyElementsOf(disruptive.stream().map(Step::target).toList());
        assertThat(report.refusals()).allSatisfy(r -> {
            assertThat(r.pool()).isEqualTo("web");
            assertThat(r.reason()).isEqualTo("unavailable");
            assertThat(r.detail()).isEqualTo("web has 3 available nodes");
        });
    }

    @Test
    void aStepWaitingForTheClustersBudgetIsNotExecutedNorRefusedAndThePoolSaysWhyItWaits() {
        outdatedNodes(3, 1);
        guard = step -> step instanceof Step.Validate || !DisruptionGuardSteps.disruptive(step) ? StepGuard.Verdict.ADMIT
                : StepGuard.Verdict.await("cluster-budget", "cluster prod has 5 unavailable nodes of 100 and maxUnavailableNodes 5%");

        ReconcileReport report = pass(false).run(offered(), NOW).orElseThrow();

        assertThat(executed).noneMatch(DisruptionGuardSteps::disruptive);
        assertThat(report.refusals()).as("room in the fleet is waited for, not a broken promise").isEmpty();
        assertThat(report.plan().report("web").waitingFor()).get().satisfies(w -> {
            assertThat(w.reason()).isEqualTo(dev.nightshift.strategies.fleet.FleetWait.Reason.CLUSTER_BUDGET);
            assertThat(w.detail()).contains("maxUnavailableNodes 5%");
        });
    }

    /** Which steps take capacity away or add a machine: the disruption guard's own list. */
    private static final class DisruptionGuardSteps {
        static boolean disruptive(Step step) {
            return dev.nightshift.strategies.guard.DisruptionGuard.disruptive(step);
        }
    }

    @Test
    void aReplicaThatDoesNotLeadSettlesNothingExecutesNothingAndWritesNoRecord() {
        outdatedNodes(3, 1);
        leading = false;

        ReconcileReport report = pass(false).run(offered(), NOW).orElseThrow();

        assertThat(report.plan().steps()).isNotEmpty();
        assertThat(log).contains("refresh standing by").doesNotContain("record");
        assertThat(executed).isEmpty();
    }

    @Test
    void aDryRunPlansAndReportsButExecutesAndRecordsNothing() {
        outdatedNodes(3, 1);

        ReconcileReport report = pass(true).run(offered(), NOW).orElseThrow();

        assertThat(report.plan().steps()).isNotEmpty();
        assertThat(log).contains("refresh standing by").noneMatch(e -> e.startsWith("guard") || e.equals("record"));
        assertThat(executed).isEmpty();
    }

    @Test
    void aPoolTheProviderRefusesGetsNoStepsAndIsNamedInTheNotices() {
        outdatedNodes(3, 1);
        cluster.refusals = Map.of("web", "its MachineDeployment is paused");

        ReconcileReport report = pass(false).run(offered(), NOW).orElseThrow();

        assertThat(report.plan().steps()).isEmpty();
        assertThat(executed).isEmpty();
        assertThat(report.notices()).contains("web: its MachineDeployment is paused");
    }

    @Test
    void aPoolWhoseProviderFailedIsHeldAndReportedWhileTheOtherPoolGoesOn() {
        DesiredCluster two = TestClusters.clusterWith(TestClusters.pool("web", TestClusters.WEB), TestClusters.pool("db", TestClusters.WEB));
        Map<String, ResolvedPool> pools = new HashMap<>();
        two.pools().forEach(p -> pools.put(p.name(), p.spec()));
        acceptance.acting = Optional.of(new AcceptedSpecs.Acting("abc123", two.cluster(), pools));
        List<ObservedNode> nodes = new ArrayList<>();
        for (DesiredPool p : two.pools()) {
            IntStream.rangeClosed(1, 3).forEach(i -> nodes.add(ObservedNode.ready(p.name() + "-" + i, p.name(), NOW.minusSeconds(3600))
                    .toBuilder().rollHash(OLD).kubeletHash(p.kubeletHash()).managedLabels(p.labels()).build()));
        }
        cluster.observed = new ObservedCluster(nodes, true, MaintenanceState.OPEN,
                Map.of("web", PoolStatus.NEW.withValidationStreak(1), "db", PoolStatus.NEW.withValidationStreak(1)));
        cluster.providerFailures = Map.of("db", "MachineApiException: GET https://cloud.example/v1/pools/db/machines answered 503");

        ReconcileReport report = pass(false).run(offered(), NOW).orElseThrow();

        assertThat(executed).isNotEmpty().allSatisfy(s -> assertThat(s.pool()).isEqualTo("web"));
        assertThat(report.plan().steps()).noneMatch(s -> s.pool().equals("db"));
        assertThat(report.providerFailures()).containsOnlyKeys("db");
        assertThat(report.notices()).contains("db: its machine provider failed: MachineApiException: GET"
                + " https://cloud.example/v1/pools/db/machines answered 503");
    }

    @Test
    void whatWasAcceptedIsReadFromTheRecordsOnlyAtTheFirstPassOfATerm() {
        outdatedNodes(1, 0);
        ReconcilePass pass = pass(false);

        pass.run(offered(), NOW);
        pass.run(offered(), NOW.plusSeconds(2));
        pass.rebuildAcceptance();
        pass.run(offered(), NOW.plusSeconds(4));

        assertThat(log.stream().filter(Predicate.isEqual("rebuild"))).hasSize(2);
    }

    @Test
    void aNodeWhoseInPlaceUpdateFailedIsReportedWithTheReasonTheNodeGives() {
        outdatedNodes(2, 0);
        List<ObservedNode> nodes = new ArrayList<>(cluster.observed.nodes());
        nodes.set(0, nodes.get(0).toBuilder().inPlaceFailed(true).build());
        cluster.observed = new ObservedCluster(nodes, true, MaintenanceState.OPEN, cluster.observed.poolStatus());
        cluster.failures = Map.of("web-1", "the image could not be pulled");

        ReconcileReport report = pass(false).run(offered(), NOW).orElseThrow();

        assertThat(report.updateFailures()).containsExactly(new ReconcileReport.UpdateFailure("web", "web-1", "the image could not be pulled"));
    }

    /**
     * A machine whose node registered without the pool label is observed under the machine's name, and under the node's once
     * the pass labelled it. Before, the forced set lost it at that moment: a run after {@code --cloudonly} ended at once with
     * nothing updated (RollingUpdateIT).
     */
    @Test
    void aForcedMachineStaysForcedWhenItIsObservedUnderItsNodesNameOnceLabelled() {
        ObservedNode machine = ObservedNode.ready("m-1", "web", NOW.minusSeconds(3600)).toBuilder().registered(false)
                .rollHash(WEB.rollHash()).kubeletHash(WEB.kubeletHash()).build();
        ObservedNode node = ObservedNode.ready("node-1", "web", NOW.minusSeconds(3600)).toBuilder().rollHash(WEB.rollHash())
                .kubeletHash(WEB.kubeletHash()).managedLabels(WEB.labels()).build();
        ReconcilePass forcing = pass(new ReconcilePass.Settings(1, false, Optional.empty(), ManagedPools.ALL,
                Optional.of(new HandRun(true, Map.of(), Optional.empty(), Optional.empty()))));
        cluster.observed = new ObservedCluster(List.of(machine), true, MaintenanceState.OPEN, Map.of("web", PoolStatus.NEW.withValidationStreak(1)));
        forcing.run(offered(), NOW);

        cluster.observed = cluster.observed.withNodes(List.of(node));
        cluster.machineNodes = Map.of("m-1", "node-1");
        ReconcileReport labelled = forcing.run(offered(), NOW.plusSeconds(2)).orElseThrow();

        assertThat(labelled.plan().reports().get("web").outdated()).isEqualTo(1);
    }

    /** Pool web of 2 machines replaced one at a time (no surge), acted on instead of {@link TestClusters#oneWebPool()}. */
    private static final DesiredCluster SWAP = TestClusters.clusterWith(TestClusters.pool("web", """
            minimum: 2
            maximum: 2
            maxSurge: 0
            maxUnavailable: 1
            interval: 0s
            machineControllerManager: {onEvictionBlocked: Wait}
            machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
            """));

    private void actOn(DesiredCluster desired) {
        Map<String, ResolvedPool> pools = new HashMap<>();
        desired.pools().forEach(p -> pools.put(p.name(), p.spec()));
        acceptance.acting = Optional.of(new AcceptedSpecs.Acting("abc123", desired.cluster(), pools));
    }

    private static HandRun byHand(Map<dev.nightshift.spec.model.PoolRole, Duration> intervals, Optional<Duration> drainGiveUp,
                                  Optional<Duration> validationGiveUp) {
        return new HandRun(false, intervals, drainGiveUp, validationGiveUp);
    }

    private ReconcilePass pass(HandRun byHand) {
        return pass(new ReconcilePass.Settings(1, false, Optional.empty(), ManagedPools.ALL, Optional.of(byHand)));
    }

    /** web-1 cordoned and draining for a minute, its pod's eviction refused by a budget; web-2 outdated and Ready. */
    private void aDrainBlockedForAMinute() {
        actOn(SWAP);
        DesiredPool web = SWAP.pools().get(0);
        ObservedNode draining = ObservedNode.ready("web-1", "web", NOW.minusSeconds(3600)).toBuilder().rollHash(OLD)
                .kubeletHash(web.kubeletHash()).managedLabels(web.labels()).cordoned(true).drainStartedAt(NOW.minusSeconds(60))
                .blockedEvictions(List.of(new dev.nightshift.strategies.model.BlockedEviction("shop/web-a", "web", 4)))
                .build();
        ObservedNode other = ObservedNode.ready("web-2", "web", NOW.minusSeconds(3600)).toBuilder().rollHash(OLD)
                .kubeletHash(web.kubeletHash()).managedLabels(web.labels()).build();
        cluster.observed = new ObservedCluster(List.of(draining, other), true, MaintenanceState.OPEN,
                Map.of("web", PoolStatus.NEW.withValidationStreak(1)));
    }

    @Test
    void aDrainBlockedPastTheDrainGiveUpOfARunByHandEndsAndTheMachineIsDeletedWithItsPods() {
        aDrainBlockedForAMinute();

        pass(false).run(offered(), NOW);
        List<Step> agent = List.copyOf(executed);
        executed.clear();
        pass(byHand(Map.of(), Optional.of(Duration.ofSeconds(60)), Optional.empty())).run(offered(), NOW);

        assertThat(agent).as("the agent drains on, waiting for the budget").contains(new Step.Drain("web-1", "web"))
                .noneMatch(s -> s instanceof Step.DeleteMachine);
        assertThat(executed).as("rolling-update --fail-on-drain-error=false past --drain-timeout")
                .anyMatch(s -> s instanceof Step.DeleteMachine && s.target().equals("web-1"))
                .noneMatch(s -> s instanceof Step.Drain);
    }

    @Test
    void aDrainShorterThanTheGiveUpGoesOnAsTheAgentsDoes() {
        aDrainBlockedForAMinute();

        pass(byHand(Map.of(), Optional.of(Duration.ofSeconds(61)), Optional.empty())).run(offered(), NOW);

        assertThat(executed).contains(new Step.Drain("web-1", "web")).noneMatch(s -> s instanceof Step.DeleteMachine);
    }

    @Test
    void aPoolFailingValidationForTheGiveUpOfARunByHandStartsItsNextBatchOnceAndThenWaitsAgain() {
        actOn(SWAP);
        outdatedNodes(2, 0);
        apiServerReady = false;
        ReconcilePass byHand = pass(byHand(Map.of(), Optional.empty(), Optional.of(Duration.ofSeconds(30))));
        ReconcilePass agent = pass(false);

        byHand.run(offered(), NOW);
        agent.run(offered(), NOW);
        assertThat(executed).as("the first failed check starts the clock; nothing disrupted").noneMatch(DisruptionGuardSteps::disruptive);
        byHand.run(offered(), NOW.plusSeconds(29));
        agent.run(offered(), NOW.plusSeconds(31));
        assertThat(executed).as("before the give-up, and the agent at any time").noneMatch(DisruptionGuardSteps::disruptive);

        byHand.run(offered(), NOW.plusSeconds(30));

        assertThat(executed).as("past --validation-timeout with --fail-on-validate-error=false")
                .contains(new Step.Cordon("web-1", "web")).filteredOn(DisruptionGuardSteps::disruptive).allMatch(s -> s.target().equals("web-1"));
        // The batch goes on: web-1 drained, its machine deleted; then the next batch waits for a validation again.
        executed.clear();
        List<ObservedNode> nodes = new ArrayList<>(cluster.observed.nodes());
        nodes.set(0, nodes.get(0).toBuilder().cordoned(true).drainStartedAt(NOW.plusSeconds(30)).drained(true).build());
        cluster.observed = cluster.observed.withNodes(nodes);
        byHand.run(offered(), NOW.plusSeconds(31));
        assertThat(executed).anyMatch(s -> s instanceof Step.DeleteMachine && s.target().equals("web-1"));
        executed.clear();
        cluster.observed = cluster.observed.withNodes(nodes.subList(1, 2));
        byHand.run(offered(), NOW.plusSeconds(32));
        assertThat(executed).as("the next batch, before its own give-up").noneMatch(DisruptionGuardSteps::disruptive);
    }

    @Test
    void aRunByHandWaitsItsRolesIntervalAfterADeletionWhenThePoolsOwnIsShorter() {
        actOn(SWAP);
        outdatedNodes(2, 1);
        cluster.observed = new ObservedCluster(cluster.observed.nodes(), true, MaintenanceState.OPEN,
                Map.of("web", PoolStatus.NEW.withValidationStreak(1).withLastTermination(NOW.minusSeconds(5))));

        pass(false).run(offered(), NOW);
        List<Step> agent = List.copyOf(executed);
        executed.clear();
        ReconcileReport paced = pass(byHand(Map.of(dev.nightshift.spec.model.PoolRole.NODE, Duration.ofSeconds(20)), Optional.empty(),
                Optional.empty())).run(offered(), NOW).orElseThrow();

        assertThat(agent).as("the pool's own interval (0s) is over").anyMatch(DisruptionGuardSteps::disruptive);
        assertThat(executed).as("--node-interval 20s, 5 s after the last deletion").noneMatch(DisruptionGuardSteps::disruptive);
        assertThat(paced.plan().wakeAt()).contains(NOW.plusSeconds(15));
    }

    @Test
    void aDeletionLateInAPassIsRecordedAtItsOwnTimeSoThatTheIntervalRunsFromIt() {
        actOn(SWAP);
        outdatedNodes(2, 1);
        List<ObservedNode> nodes = new ArrayList<>(cluster.observed.nodes());
        nodes.set(0, nodes.get(0).toBuilder().cordoned(true).drainStartedAt(NOW.minusSeconds(30)).drained(true).build());
        cluster.observed = cluster.observed.withNodes(nodes);
        stepTakes = Duration.ofMillis(300);

        pass(false).run(offered(), NOW);

        int deletion = executed.indexOf(executed.stream().filter(s -> s instanceof Step.DeleteMachine).findFirst().orElseThrow());
        assertThat(deletion).as("steps before the deletion in its pass: %s", executed).isPositive();
        assertThat(written).singleElement().satisfies(statuses -> assertThat(statuses.get("web").lastTerminationAt())
                .contains(NOW.plus(stepTakes.multipliedBy(deletion))));
    }

    /** Acts on pool web of {@link TestClusters#oneWebPool()} unless told otherwise. */
    private final class FakeAcceptance implements Acceptance {
        Optional<AcceptedSpecs.Acting> acting;

        FakeAcceptance() {
            Map<String, ResolvedPool> pools = new HashMap<>();
            DESIRED.pools().forEach(p -> pools.put(p.name(), p.spec()));
            acting = Optional.of(new AcceptedSpecs.Acting("abc123", DESIRED.cluster(), pools));
        }

        @Override
        public void rebuildFromRecords() {
            log.add("rebuild");
        }

        @Override
        public void takeOffered(SpecRevision offered) {
            log.add("take " + offered.commit());
        }

        @Override
        public Optional<AcceptedSpecs.Acting> acting() {
            return acting;
        }

        @Override
        public void observed(Map<String, PoolReport> reports) {
            log.add("plan observed");
        }

        @Override
        public List<String> rejected() {
            return List.of();
        }

        @Override
        public Map<String, PoolTarget> targets() {
            return Map.of();
        }
    }

    private final class FakeCluster implements ClusterView {
        ObservedCluster observed = new ObservedCluster(List.of(), true, MaintenanceState.OPEN, Map.of());
        Map<String, String> refusals = Map.of();
        Map<String, String> failures = Map.of();
        Map<String, String> providerFailures = Map.of();
        Map<String, String> machineNodes = Map.of();

        @Override
        public Map<String, String> machineNodes(Set<String> pools) {
            return machineNodes;
        }

        @Override
        public boolean refillsPools() {
            return false;
        }

        @Override
        public Map<String, String> providerFailures() {
            return providerFailures;
        }

        @Override
        public void refresh(DesiredCluster desired, boolean acting) {
            log.add(acting ? "refresh acting" : "refresh standing by");
        }

        @Override
        public ObservedCluster observe(MaintenanceState maintenance, Set<String> pools) {
            log.add("observe");
            return observed;
        }

        @Override
        public Map<String, String> refusals(Set<String> pools) {
            log.add("refusals");
            return refusals;
        }

        @Override
        public Optional<String> inPlaceFailure(String node) {
            return Optional.ofNullable(failures.get(node));
        }

        @Override
        public PoolDurations recordedDurations(String pool) {
            return PoolDurations.NONE;
        }
    }

    @Test
    void aPoolNotManagedHereIsPlannedForNothingAndReportedAsSuch() {
        outdatedNodes(3, 1);

        ReconcileReport report = pass(new ReconcilePass.Settings(1, false, Optional.empty(),
                new ManagedPools(java.util.Set.of("batch"), java.util.Set.of()), Optional.empty())).run(offered(), NOW).orElseThrow();

        assertThat(executed).isEmpty();
        assertThat(report.plan().reports()).doesNotContainKey("web");
        assertThat(report.unmanaged()).containsOnlyKeys("web");
        assertThat(report.unmanaged().get("web")).startsWith("not managed here");
        assertThat(written).allMatch(w -> !w.containsKey("web"));
    }

    @Test
    void forceShowsTheCurrentNodesOfAManagedPoolAsOutdated() {
        List<ObservedNode> nodes = IntStream.rangeClosed(1, 3).mapToObj(i -> ObservedNode.ready("web-" + i, "web", NOW.minusSeconds(3600))
                .toBuilder().rollHash(WEB.rollHash()).kubeletHash(WEB.kubeletHash()).managedLabels(WEB.labels()).build()).toList();
        cluster.observed = new ObservedCluster(nodes, true, MaintenanceState.OPEN, Map.of("web", PoolStatus.NEW.withValidationStreak(1)));

        ReconcileReport plain = pass(false).run(offered(), NOW).orElseThrow();
        ReconcileReport forced = pass(new ReconcilePass.Settings(1, false, Optional.empty(), ManagedPools.ALL,
                Optional.of(new HandRun(true, Map.of(), Optional.empty(), Optional.empty()))))
                .run(offered(), NOW).orElseThrow();

        assertThat(plain.plan().reports().get("web").outdated()).isZero();
        assertThat(forced.plan().reports().get("web").outdated()).isEqualTo(3);
        assertThat(executed).as("the forced pool starts its rollout").isNotEmpty();
    }
}
