package dev.nightshift.strategies;

import static dev.nightshift.strategies.Fixtures.T0;
import static dev.nightshift.strategies.Fixtures.cluster;
import static dev.nightshift.strategies.Fixtures.current;
import static dev.nightshift.strategies.Fixtures.outdated;
import static dev.nightshift.strategies.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.model.IntOrPercent;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.HealthVerdict;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.model.RolloutProgress;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolReport;
import dev.nightshift.strategies.plan.Step;
import dev.nightshift.strategies.sim.Faults;
import dev.nightshift.strategies.sim.SimulationResult;
import dev.nightshift.strategies.sim.SimulationSetup;
import dev.nightshift.strategies.sim.Simulator;
import dev.nightshift.strategies.sim.TimelineEvent;

/** Waves, soak, health verdicts, halts and maxFailedMachines, through the planner and the simulator. */
class WavesTest {

    private static final Duration CREATE = Duration.ofSeconds(120);
    private static final Duration DRAIN = Duration.ofSeconds(30);

    private final RolloutPlanner planner = new RolloutPlanner();

    // ---- waves and soak, simulated -------------------------------------------------------------

    @Test
    void eachWaveStartsOnlyAfterThePreviousOneSoakedAndNoWaveGoesBeyondItsShare() {
        DesiredCluster desired = cluster(pool("web", """
                maxSurge: 2
                maxUnavailable: 0
                rollout: {waves: [1, "50%", "100%"], soak: 10m}"""));

        SimulationResult r = new Simulator(planner).run(SimulationSetup.of(desired, "web", 10, CREATE, DRAIN));

        assertThat(r.completed()).as(r.failureReason()).isTrue();
        List<Double> starts = starts(r);
        assertThat(starts).hasSize(10);
        // Wave 1: one node; wave 2: up to 5; wave 3: the rest. Each wave waits for the last to be available, then 10 m.
        assertThat(starts.get(1) - starts.get(0)).isGreaterThanOrEqualTo(600 + CREATE.toSeconds());
        assertThat(starts.get(5) - starts.get(4)).isGreaterThanOrEqualTo(600);
        assertThat(starts.subList(1, 5)).allSatisfy(t -> assertThat(t - starts.get(1)).isLessThan(600));
        assertThat(r.peakNodes()).isLessThanOrEqualTo(12);
    }

    @Test
    void theDefaultPolicyRollsExactlyAsTodaysCanary() {
        DesiredCluster plain = cluster(pool("web", "maxSurge: 2\nmaxUnavailable: 0"));
        DesiredCluster explicit = cluster(pool("web", "maxSurge: 2\nmaxUnavailable: 0\nrollout: {waves: [1, \"100%\"], soak: 0s}"));

        SimulationResult a = new Simulator(planner).run(SimulationSetup.of(plain, "web", 10, CREATE, DRAIN));
        SimulationResult b = new Simulator(planner).run(SimulationSetup.of(explicit, "web", 10, CREATE, DRAIN));

        assertThat(b.timeline()).isEqualTo(a.timeline());
        assertThat(Waves.active(explicit.pools().get(0).spec().rollout())).isFalse();
    }

    @Test
    void aSoakLengthensTheRolloutByAtLeastOneSoakPerWaveAfterTheFirst() {
        DesiredCluster fast = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0\nrollout: {waves: [1, \"50%\", \"100%\"]}"));
        DesiredCluster soaked = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0\nrollout: {waves: [1, \"50%\", \"100%\"], soak: 5m}"));

        SimulationResult a = new Simulator(planner).run(SimulationSetup.of(fast, "web", 6, CREATE, DRAIN));
        SimulationResult b = new Simulator(planner).run(SimulationSetup.of(soaked, "web", 6, CREATE, DRAIN));

        assertThat(a.completed()).isTrue();
        assertThat(b.completed()).isTrue();
        assertThat(b.makespanSeconds() - a.makespanSeconds()).isGreaterThanOrEqualTo(2 * 300);
    }

    @Test
    void wavesAreCumulativeSharesOfTheOutdatedNodesAtTheStart() {
        assertThat(Waves.targets(List.of(IntOrPercent.of(1), IntOrPercent.percentOf(10), IntOrPercent.percentOf(50),
                IntOrPercent.percentOf(100)), 40)).containsExactly(1, 4, 20, 40);
        assertThat(Waves.targets(List.of(IntOrPercent.of(5), IntOrPercent.percentOf(10), IntOrPercent.percentOf(100)), 3))
                .containsExactly(3, 3, 3);
        assertThat(Waves.targets(List.of(IntOrPercent.of(1), IntOrPercent.percentOf(100)), 0)).containsExactly(0, 0);
    }

    @Test
    void simulatedChecksPassUnlessAWaveIsDrawnToFailThem() {
        DesiredCluster desired = cluster(pool("web", """
                maxSurge: 1
                maxUnavailable: 0
                rollout:
                  waves: [1, "50%", "100%"]
                  soak: 5m
                  healthChecks:
                  - {name: error-rate, prometheus: {query: up, max: 0.01}}"""));

        SimulationResult passing = new Simulator(planner).run(SimulationSetup.of(desired, "web", 4, CREATE, DRAIN));
        SimulationResult failing = new Simulator(planner).run(SimulationSetup.of(desired, "web", 4, CREATE, DRAIN)
                .withFaults(new Faults(0, 0, 0, 0, 0, 0, 0, 1.0), 1));

        assertThat(passing.completed()).as(passing.failureReason()).isTrue();
        assertThat(failing.completed()).isFalse();
        assertThat(failing.failureReason()).contains("HALTED", "halted in wave 1: error-rate");
        assertThat(starts(failing)).as("only the canary started").hasSize(1);
    }

    // ---- maxFailedMachines -------------------------------------------------------------------

    @Test
    void aPoolWhoseMachinesNeverComeUpCreatesAtMostMaxFailedMachinesAndHalts() {
        DesiredCluster desired = cluster(pool("web", """
                maxSurge: 1
                maxUnavailable: 0
                machineControllerManager: {creationTimeout: 10m}
                rollout: {maxFailedMachines: 3}"""));
        SimulationSetup setup = SimulationSetup.of(desired, "web", 5, CREATE, DRAIN)
                .withFaults(new Faults(0, 1.0, 0, 0, 0, 0), 1).withHorizon(Duration.ofHours(720));

        SimulationResult r = new Simulator(planner).run(setup);

        assertThat(r.completed()).isFalse();
        assertThat(r.timeline()).filteredOn(e -> e.step().equals("CREATE")).hasSize(3);
        assertThat(r.failureReason()).contains("HALTED", "halted in wave 1: maxFailedMachines 3");
    }

    @Test
    void withoutMaxFailedMachinesItGoesOnCreatingAsBefore() {
        DesiredCluster desired = cluster(pool("web", """
                maxSurge: 1
                maxUnavailable: 0
                machineControllerManager: {creationTimeout: 10m}"""));
        SimulationSetup setup = SimulationSetup.of(desired, "web", 5, CREATE, DRAIN)
                .withFaults(new Faults(0, 1.0, 0, 0, 0, 0), 1).withHorizon(Duration.ofHours(2));

        SimulationResult r = new Simulator(planner).run(setup);

        assertThat(r.timeline()).filteredOn(e -> e.step().equals("CREATE")).hasSizeGreaterThan(10);
    }

    // ---- health verdicts, planned ------------------------------------------------------------

    private static final String CHECKED = """
            maxSurge: 0
            maxUnavailable: 1
            rollout:
              waves: [1, "100%"]
              soak: 10m
              healthChecks:
              - {name: error-rate, prometheus: {query: up, max: 0.01}}""";

    @Test
    void aFailingCheckHaltsThePoolAndNothingNewStarts() {
        DesiredCluster desired = cluster(pool("web", CHECKED));
        List<ObservedNode> nodes = List.of(current(desired, "web", "web-1"), outdated(desired, "web", "web-2"),
                outdated(desired, "web", "web-3"));
        PoolStatus status = Fixtures.validated();

        Plan plan = planner.plan(desired, observed(nodes, status, new HealthVerdict.Failing("error-rate", "0.07", "<= 0.01")), T0);

        PoolReport report = plan.report("web");
        assertThat(report.phase()).isEqualTo(PoolPhase.HALTED);
        assertThat(plan.steps()).noneMatch(s -> s instanceof Step.Drain || s instanceof Step.Cordon);
        RolloutProgress.Halt halt = report.status().halt().orElseThrow();
        assertThat(halt).isEqualTo(new RolloutProgress.Halt("error-rate", "0.07", "<= 0.01", 1, T0));
    }

    @Test
    void aHaltedPoolStaysHaltedWhenTheCheckPassesAgainUntilResumed() {
        DesiredCluster desired = cluster(pool("web", CHECKED));
        List<ObservedNode> nodes = List.of(outdated(desired, "web", "web-1"), outdated(desired, "web", "web-2"));
        PoolStatus halted = planner.plan(desired, observed(nodes, Fixtures.validated(),
                new HealthVerdict.Failing("error-rate", "0.07", "<= 0.01")), T0).report("web").status();

        Plan later = planner.plan(desired, observed(nodes, halted, HealthVerdict.PASSING), T0.plusSeconds(60));
        assertThat(later.report("web").phase()).isEqualTo(PoolPhase.HALTED);
        assertThat(later.steps()).noneMatch(s -> s instanceof Step.Drain || s instanceof Step.Cordon);

        PoolStatus resumed = later.report("web").status().withResumedAt(Optional.of(T0.plusSeconds(120)));
        Plan afterResume = planner.plan(desired, observed(nodes, resumed, HealthVerdict.PASSING), T0.plusSeconds(121));
        assertThat(afterResume.report("web").phase()).isEqualTo(PoolPhase.UPDATING);
        assertThat(afterResume.report("web").status().halt()).isEmpty();
        assertThat(afterResume.steps()).filteredOn(s -> s instanceof Step.Cordon || s instanceof Step.Drain).isNotEmpty();
    }

    @Test
    void unknownChecksStartNothingAndFailAfterTheSoak() {
        DesiredCluster desired = cluster(pool("web", CHECKED));
        List<ObservedNode> nodes = List.of(outdated(desired, "web", "web-1"), outdated(desired, "web", "web-2"));
        HealthVerdict unknown = new HealthVerdict.Unknown("error-rate", "Prometheus unreachable");

        Plan first = planner.plan(desired, observed(nodes, Fixtures.validated(), unknown), T0);
        assertThat(first.steps()).noneMatch(s -> s instanceof Step.Cordon || s instanceof Step.Drain);
        assertThat(first.report("web").phase()).isEqualTo(PoolPhase.UPDATING);
        assertThat(first.wakeAt()).contains(T0.plus(Duration.ofMinutes(10)));

        PoolStatus recorded = first.report("web").status();
        Plan almost = planner.plan(desired, observed(nodes, recorded, unknown), T0.plus(Duration.ofMinutes(9)));
        assertThat(almost.report("web").status().halt()).isEmpty();

        Plan after = planner.plan(desired, observed(nodes, almost.report("web").status(), unknown), T0.plus(Duration.ofMinutes(10)));
        assertThat(after.report("web").phase()).isEqualTo(PoolPhase.HALTED);
        assertThat(after.report("web").status().halt().orElseThrow().value()).isEqualTo("unknown");
    }

    @Test
    void aPoolWithChecksAndNoVerdictIsNeverJudgedPassing() {
        DesiredCluster desired = cluster(pool("web", CHECKED));
        List<ObservedNode> nodes = List.of(outdated(desired, "web", "web-1"), outdated(desired, "web", "web-2"));

        Plan plan = planner.plan(desired, new ObservedCluster(nodes, true, MaintenanceState.OPEN, Map.of("web", Fixtures.validated())), T0);

        assertThat(plan.steps()).noneMatch(s -> s instanceof Step.Cordon || s instanceof Step.Drain);
        assertThat(plan.report("web").status().rollout().orElseThrow().unknownSince()).contains(T0);
    }

    @Test
    void aNewTargetClearsTheHalt() {
        DesiredCluster desired = cluster(pool("web", CHECKED));
        List<ObservedNode> nodes = List.of(outdated(desired, "web", "web-1"), outdated(desired, "web", "web-2"));
        PoolStatus halted = planner.plan(desired, observed(nodes, Fixtures.validated(),
                new HealthVerdict.Failing("error-rate", "0.07", "<= 0.01")), T0).report("web").status();
        DesiredCluster retargeted = cluster(pool("web", CHECKED).replace("1631.0.0", "1633.0.0"));

        Plan plan = planner.plan(retargeted, observed(nodes, halted, HealthVerdict.PASSING), T0.plusSeconds(60));

        assertThat(plan.report("web").phase()).isEqualTo(PoolPhase.UPDATING);
        assertThat(plan.report("web").status().halt()).isEmpty();
    }

    @Test
    void theWaveAndItsSoakSurviveARestartThroughTheRecord() {
        DesiredCluster desired = cluster(pool("web", CHECKED));
        // The canary moved and is available: its soak starts now and is recorded.
        List<ObservedNode> nodes = List.of(current(desired, "web", "web-1"), outdated(desired, "web", "web-2"),
                outdated(desired, "web", "web-3"));
        PoolStatus start = Fixtures.validated().withRollout(Optional.of(new RolloutProgress(
                desired.pools().get(0).rollHash().toString(), 3, 0, Optional.empty(), Optional.empty(), java.util.Set.of(), 0,
                Optional.empty())));

        Plan soaking = planner.plan(desired, observed(nodes, start, HealthVerdict.PASSING), T0);
        assertThat(soaking.steps()).noneMatch(s -> s instanceof Step.Cordon || s instanceof Step.Drain);
        PoolStatus recorded = soaking.report("web").status();
        assertThat(recorded.rollout().orElseThrow().waveAvailableAt()).contains(T0);

        // A new agent, the same record: still soaking at 9 minutes, the next wave at 10.
        Plan nine = new RolloutPlanner().plan(desired, observed(nodes, recorded, HealthVerdict.PASSING), T0.plus(Duration.ofMinutes(9)));
        assertThat(nine.steps()).noneMatch(s -> s instanceof Step.Cordon || s instanceof Step.Drain);
        Plan ten = new RolloutPlanner().plan(desired, observed(nodes, nine.report("web").status(), HealthVerdict.PASSING),
                T0.plus(Duration.ofMinutes(10)));
        assertThat(ten.steps()).filteredOn(s -> s instanceof Step.Cordon || s instanceof Step.Drain).isNotEmpty();
        assertThat(ten.report("web").status().rollout().orElseThrow().wave()).isEqualTo(1);
    }

    private static ObservedCluster observed(List<ObservedNode> nodes, PoolStatus status, HealthVerdict verdict) {
        return new ObservedCluster(nodes, true, MaintenanceState.OPEN, Map.of("web", status)).withHealth(Map.of("web", verdict));
    }

    /** When each old node's replacement started: its surge machine's creation, or its drain without one. */
    private static List<Double> starts(SimulationResult r) {
        List<Double> starts = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (TimelineEvent e : r.timeline()) {
            String old = e.step().equals("CREATE") ? e.surgeFor().orElse(null) : e.step().equals("DRAIN") ? e.node() : null;
            if (old != null && seen.add(old)) {
                starts.add(e.t());
            }
        }
        return starts;
    }
}
