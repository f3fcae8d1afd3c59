package dev.nightshift.strategies.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.strategies.EvictionBackoff;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.sim.TimelineReplay.Limit;
import dev.nightshift.strategies.sim.TimelineReplay.Result;
import dev.nightshift.strategies.sim.TimelineReplay.Rules;

/**
 * The simulator on the cases users know: the pools of examples/multi and small pools whose
 * makespan can be worked out by hand. Every limit and bound is recomputed by the test.
 */
class SimulatorTest {

    private static final double C = 120;
    private static final double D = 30;

    private static DesiredCluster multi;

    @BeforeAll
    static void loadExamples() {
        LoadResult loaded = new SpecLoader().load(examples().resolve("multi"));
        assertThat(loaded.errors()).as("examples/multi loads").isEmpty();
        multi = DesiredCluster.of(loaded.specs(), "demo", 1);
    }

    private static Path examples() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("examples").resolve("multi"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("examples/multi above " + Path.of("").toAbsolutePath()).isNotNull();
        return dir.resolve("examples");
    }

    private static SimulationResult simulate(DesiredCluster desired, String pool, int nodes) {
        return new Simulator(new RolloutPlanner()).run(SimulationSetup.of(desired, pool, nodes,
                Duration.ofSeconds((long) C), Duration.ofSeconds((long) D)));
    }

    private static SimulationResult simulate(PoolYaml pool, int nodes) {
        return simulate(pool.desired(), pool.name(), nodes);
    }

    private static SimulationResult simulateWith(DesiredCluster desired, String pool, int nodes, Faults faults,
                                                 Duration horizon) {
        return new Simulator(new RolloutPlanner()).run(new SimulationSetup(desired, pool, nodes,
                Duration.ofSeconds((long) C), Duration.ofSeconds((long) D), Duration.ofSeconds(10), 7, faults, horizon));
    }

    private static Result replay(SimulationResult r, PoolYaml pool) {
        return TimelineReplay.replay(r.timeline(), pool.rules(r.nodes()));
    }

    private static String show(SimulationResult r) {
        StringBuilder b = new StringBuilder("completed=" + r.completed() + " reason=" + r.failureReason() + "\n");
        r.timeline().forEach(e -> b.append("  ").append(e.t()).append(' ').append(e.step()).append(' ').append(e.node())
                .append(e.surgeFor().map(p -> " (surge for " + p + ")").orElse("")).append('\n'));
        return b.toString();
    }

    private static List<TimelineEvent> eventsOf(SimulationResult r, String node, Set<String> steps) {
        return r.timeline().stream().filter(e -> e.node().equals(node) && steps.contains(e.step())).toList();
    }

    private static double firstT(SimulationResult r, String node, String step) {
        return r.timeline().stream().filter(e -> e.node().equals(node) && e.step().equals(step)).mapToDouble(TimelineEvent::t)
                .findFirst().orElseThrow(() -> new AssertionError("no " + step + " of " + node + "\n" + show(r)));
    }

    // ---- limits -----------------------------------------------------------------------------

    @Test
    void fiveNodesWithMaxSurgeOneAndMaxUnavailableQuarterNeverExceedSixMachinesOrOneUnavailable() {
        PoolYaml pool = PoolYaml.pool("web").maxSurge(Limit.of(1)).maxUnavailable(Limit.percent(25));
        SimulationResult r = simulate(pool, 5);
        Result replay = replay(r, pool);

        assertThat(r.completed()).as(show(r)).isTrue();
        assertThat(replay.peakMachines()).as(show(r)).isLessThanOrEqualTo(6);
        assertThat(replay.peakUnavailable()).as(show(r)).isLessThanOrEqualTo(1);
        assertThat(replay.violations()).as(show(r)).isEmpty();
    }

    @Test
    void twoNodesWithMaxUnavailable99PercentTakeOnlyOneDownAtATime() {
        PoolYaml pool = PoolYaml.pool("web").maxSurge(Limit.of(0)).maxUnavailable(Limit.percent(99));
        SimulationResult r = simulate(pool, 2);
        Result replay = replay(r, pool);

        assertThat(r.completed()).as(show(r)).isTrue();
        assertThat(replay.peakUnavailable()).as("floor(2 * 99%) = 1\n" + show(r)).isEqualTo(1);
        assertThat(replay.peakMachines()).as(show(r)).isEqualTo(2);
    }

    @Test
    void fourNodesWithQuarterLimitsResolveToSurgeOneAndUnavailableOne() {
        // examples/multi/pools/batch.yaml: maxSurge "25%" (rounded up), maxUnavailable "25%" (rounded down).
        SimulationResult r = simulate(multi, "batch", 4);

        assertThat(new int[] {Limit.percent(25).resolve(4, true), Limit.percent(25).resolve(4, false)}).containsExactly(1, 1);
        assertThat(new int[] {r.resolvedMaxSurge(), r.resolvedMaxUnavailable()}).containsExactly(1, 1);
    }

    @Test
    void theBatchExampleStaysWithinItsQuarterLimitsAtEverySize() {
        List<String> failing = new ArrayList<>();
        for (int n = 1; n <= 16; n++) {
            SimulationResult r = simulate(multi, "batch", n);
            Result replay = TimelineReplay.replay(r.timeline(), new Rules("batch", n, Limit.percent(25), Limit.percent(25), 0, false));
            if (!r.completed() || !replay.violations().isEmpty()) {
                failing.add("n=" + n + ": completed=" + r.completed() + " " + replay.violations());
            }
        }

        assertThat(failing).isEmpty();
    }

    @Test
    void theCpuWorkerExampleWithMaxUnavailableZeroNeverTakesANodeOutOfService() {
        // examples/multi/pools/cpu-worker.yaml: maxSurge 1, maxUnavailable 0.
        SimulationResult r = simulate(multi, "cpu-worker", 4);
        Result replay = TimelineReplay.replay(r.timeline(), new Rules("cpu-worker", 4, Limit.of(1), Limit.of(0), 0, false));

        assertThat(r.completed()).as(show(r)).isTrue();
        assertThat(replay.peakUnavailable()).as(show(r)).isZero();
        assertThat(replay.peakMachines()).as(show(r)).isEqualTo(5);
    }

    // ---- canary -----------------------------------------------------------------------------

    @Test
    void aSurgeCanaryIsCreatedAloneAndNothingElseStartsBeforeItIsReady() {
        // batch with 12 nodes resolves to surge 3 and unavailable 3: without the canary rule 3 machines would start at once.
        SimulationResult r = simulate(multi, "batch", 12);
        List<TimelineEvent> timeline = r.timeline();
        TimelineEvent firstCreate = timeline.stream().filter(e -> e.step().equals("CREATE")).findFirst().orElseThrow();
        int canaryReady = IntStream.range(0, timeline.size())
                .filter(i -> timeline.get(i).node().equals(firstCreate.node()) && timeline.get(i).step().equals("READY"))
                .findFirst().orElseThrow(() -> new AssertionError("the canary never became Ready\n" + show(r)));
        List<TimelineEvent> before = timeline.subList(0, canaryReady);

        assertThat(firstCreate.surgeFor()).as("the canary is a surge machine").isPresent();
        assertThat(before.stream().filter(e -> e.step().equals("CREATE") || e.step().equals("DRAIN")))
                .as("CREATE/DRAIN before the canary's READY\n" + show(r)).containsExactly(firstCreate);
    }

    @Test
    void withoutSurgeTheCanaryIsDrainedAloneAndItsReplacementMustBeAvailableBeforeTheNextDrain() {
        PoolYaml pool = PoolYaml.pool("web").maxSurge(Limit.of(0)).maxUnavailable(Limit.of(3)).minReadySeconds(40);
        SimulationResult r = simulate(pool, 8);
        List<TimelineEvent> drains = r.timeline().stream().filter(e -> e.step().equals("DRAIN")).toList();
        String canary = drains.get(0).node();
        TimelineEvent replacement = r.timeline().stream()
                .filter(e -> e.step().equals("CREATE") && e.t() >= firstT(r, canary, "DELETE")).findFirst().orElseThrow();
        double available = firstT(r, replacement.node(), "READY") + pool.minReadySeconds();

        assertThat(drains.stream().filter(e -> e.t() < available).map(TimelineEvent::node))
                .as("drains before the canary's replacement is available at t=" + available + "\n" + show(r))
                .containsExactly(canary);
    }

    // ---- strategies -------------------------------------------------------------------------

    @Test
    void replaceDrainsAndDeletesEveryNodeAtOnceAndReportsNoViolations() {
        PoolYaml pool = PoolYaml.pool("web").strategy("Replace");
        SimulationResult r = simulate(pool, 5);
        List<Double> drainTimes = r.timeline().stream().filter(e -> e.step().equals("DRAIN")).map(TimelineEvent::t).distinct().toList();
        List<Double> deleteTimes = r.timeline().stream().filter(e -> e.step().equals("DELETE")).map(TimelineEvent::t).distinct().toList();

        assertThat(r.completed()).as(show(r)).isTrue();
        assertThat(r.timeline().stream().filter(e -> e.step().equals("DELETE"))).as(show(r)).hasSize(5);
        assertThat(drainTimes).as("all drains at one instant\n" + show(r)).containsExactly(0.0);
        assertThat(deleteTimes).as("all deletes at one instant\n" + show(r)).containsExactly(D);
        assertThat(r.violations()).isEmpty();
    }

    @Test
    void inPlaceNodesAreCordonedDrainedUpdatedReadiedAndUncordonedInThatOrder() {
        // examples/multi/pools/gpu-worker.yaml: AutoInPlaceUpdate, maxUnavailable 50%.
        SimulationResult r = simulate(multi, "gpu-worker", 4);
        Set<String> lifecycle = Set.of("CORDON", "DRAIN", "UPDATE_IN_PLACE", "READY", "UNCORDON", "DELETE", "CREATE");
        Map<String, List<String>> perNode = new TreeMap<>();
        for (int i = 1; i <= 4; i++) {
            String node = "gpu-worker-" + i;
            perNode.put(node, eventsOf(r, node, lifecycle).stream().map(TimelineEvent::step).toList());
        }

        assertThat(r.completed()).as(show(r)).isTrue();
        assertThat(perNode).as(show(r)).allSatisfy((node, steps) ->
                assertThat(steps).as(node).containsExactly("CORDON", "DRAIN", "UPDATE_IN_PLACE", "READY", "UNCORDON"));
    }

    @Test
    void inPlaceUpdatesOfTheGpuExampleNeverTakeMoreThanHalfThePoolDown() {
        SimulationResult r = simulate(multi, "gpu-worker", 6);
        // gpu-worker: maxSurge defaults to 0 (not AutoRollingUpdate), maxUnavailable 50% of 6 = 3.
        Result replay = TimelineReplay.replay(r.timeline(), new Rules("gpu-worker", 6, Limit.of(0), Limit.percent(50), 0, false));

        assertThat(replay.violations()).as(show(r)).isEmpty();
        assertThat(replay.peakUnavailable()).as(show(r)).isEqualTo(3);
    }

    @Test
    void manualInPlaceUpdateLabelsEveryOutdatedNodeAsACandidateBeforeTouchingIt() {
        PoolYaml pool = PoolYaml.pool("gpu").strategy("ManualInPlaceUpdate").maxUnavailable(Limit.of(1));
        SimulationResult r = simulate(pool, 3);
        List<String> unlabeledBeforeCordon = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            String node = "gpu-" + i;
            List<String> steps = eventsOf(r, node, Set.of("LABEL_CANDIDATE", "CORDON")).stream().map(TimelineEvent::step).toList();
            if (!steps.equals(List.of("LABEL_CANDIDATE", "CORDON"))) {
                unlabeledBeforeCordon.add(node + " " + steps);
            }
        }

        assertThat(unlabeledBeforeCordon).as(show(r)).isEmpty();
    }

    @Test
    void bastionsAreReplacedOneByOneWithoutCordonOrDrain() {
        // examples/multi/pools/bastion.yaml: maxSurge 0, maxUnavailable 1.
        SimulationResult r = simulate(multi, "bastion", 3);
        Result replay = TimelineReplay.replay(r.timeline(), new Rules("bastion", 3, Limit.of(0), Limit.of(1), 0, false));

        assertThat(r.completed()).as(show(r)).isTrue();
        assertThat(r.timeline()).as(show(r)).noneMatch(e -> e.step().equals("CORDON") || e.step().equals("DRAIN"));
        assertThat(replay.violations()).as(show(r)).isEmpty();
        assertThat(replay.everyNodeEndsCurrent()).as(replay.notCurrentAtEnd() + "\n" + show(r)).isTrue();
    }

    // ---- faults -----------------------------------------------------------------------------

    @Test
    void aDrainBlockedByABudgetWithWaitNeverFinishesAndTheResultNamesThePodAndTheBudget() {
        PoolYaml pool = PoolYaml.pool("web").maxSurge(Limit.of(0)).maxUnavailable(Limit.of(1)).onEvictionBlocked("Wait");
        SimulationResult r = simulateWith(pool.desired(), "web", 2, new Faults(0, 0, 0, 1, 0, 0), Duration.ofHours(3));

        assertThat(r.completed()).isFalse();
        assertThat(r.failureReason()).contains("web-1").contains("web-1-pod").contains("web-pdb");
    }

    @Test
    void aDrainBlockedByABudgetWithForceDeleteFinishes() {
        PoolYaml pool = PoolYaml.pool("web").maxSurge(Limit.of(0)).maxUnavailable(Limit.of(1)).onEvictionBlocked("ForceDelete");
        SimulationResult r = simulateWith(pool.desired(), "web", 2, new Faults(0, 0, 0, 1, 0, 0), Duration.ofDays(1));
        Result replay = replay(r, pool);

        assertThat(r.completed()).as(show(r)).isTrue();
        assertThat(replay.everyNodeEndsCurrent()).as(replay.notCurrentAtEnd() + "\n" + show(r)).isTrue();
    }

    @Test
    void aBlockedEvictionIsRetriedOnTheAgentsBackoffSoForceDeleteComesAfterMaxEvictRetriesSpreadRefusals() {
        PoolYaml pool = PoolYaml.pool("web").maxSurge(Limit.of(0)).maxUnavailable(Limit.of(1)).onEvictionBlocked("ForceDelete");
        SimulationResult r = simulateWith(pool.desired(), "web", 2, new Faults(0, 0, 0, 1, 0, 0), Duration.ofDays(1));
        // maxEvictRetries 10 (the default): refusals at 0, 2, 6, 14, 30, 62, 122, 182, 242 and 302 s after the drain starts.
        double lastRefusal = IntStream.rangeClosed(1, 9)
                .mapToDouble(i -> EvictionBackoff.after(i).toSeconds()).sum();

        assertThat(lastRefusal).isEqualTo(302);
        for (String node : List.of("web-1", "web-2")) {
            double drained = r.timeline().stream().filter(e -> e.node().equals(node) && e.step().equals("DRAIN")).findFirst()
                    .orElseThrow().t();
            double deleted = r.timeline().stream().filter(e -> e.node().equals(node) && e.step().equals("DELETE")).findFirst()
                    .orElseThrow().t();
            assertThat(deleted - drained).as(node + " deleted after its drain started\n" + show(r)).isBetween(lastRefusal, lastRefusal + 1);
        }
    }

    @Test
    void nodesThatNeverBecomeReadyStopTheRolloutAndTheReasonSaysSo() {
        PoolYaml pool = PoolYaml.pool("web").maxSurge(Limit.of(1)).maxUnavailable(Limit.of(0));
        SimulationResult r = simulateWith(pool.desired(), "web", 4, new Faults(0, 0, 1, 0, 0, 0), Duration.ofDays(2));

        assertThat(r.completed()).isFalse();
        assertThat(r.failureReason()).as(show(r)).contains("web-new-1 is not Ready");
        assertThat(r.timeline()).as("nothing but the canary is started\n" + show(r))
                .noneMatch(e -> e.step().equals("DRAIN") || e.step().equals("CREATE") && !e.node().equals("web-new-1"));
    }

    // ---- regressions found by the property test (see SimulatorPropertyTest) ------------------------

    @Test
    void maxUnavailableZeroHoldsWhileTheInitialNodesAreWithinMinReadySeconds() {
        // The initial nodes are Ready since t = 0; with maxUnavailable 0 the first one may go only once a surge machine is available.
        PoolYaml pool = PoolYaml.pool("web").maxSurge(Limit.of(1)).maxUnavailable(Limit.of(0)).minReadySeconds(30);
        SimulationResult r = simulate(pool, 3);
        Result replay = replay(r, pool);

        assertThat(replay.violations()).as(show(r)).isEmpty();
    }

    @Test
    void aNewBastionMustBeReadyForMinReadySecondsBeforeTheNextBastionIsReplaced() {
        PoolYaml pool = PoolYaml.pool("bastion").role("bastion").maxSurge(Limit.of(0)).maxUnavailable(Limit.of(1)).minReadySeconds(60);
        SimulationResult r = simulate(pool, 3);
        Result replay = replay(r, pool);

        assertThat(replay.violations()).as(show(r)).isEmpty();
    }

    @Test
    void aBastionPoolWithAnInPlaceStrategyIsEitherRejectedOrUpdated() {
        PoolYaml pool = PoolYaml.pool("bastion").role("bastion").strategy("AutoInPlaceUpdate").maxUnavailable(Limit.of(1));
        boolean valid = pool.load().valid();
        SimulationResult r = valid ? simulate(pool, 2) : null;

        assertThat(!valid || r.completed()).as(valid ? "valid, but: " + show(r) : "rejected").isTrue();
    }

    @Test
    void anAgentThatCrashesPartWayThroughPlansStillFinishesTheUpdate() {
        PoolYaml pool = PoolYaml.pool("web").maxSurge(Limit.of(1)).maxUnavailable(Limit.of(1));
        DesiredCluster desired = pool.desired();
        List<String> unfinished = new ArrayList<>();
        for (long seed = 1; seed <= 40; seed++) {
            SimulationResult r = new Simulator(new RolloutPlanner()).run(SimulationSetup.of(desired, "web", 5,
                    Duration.ofSeconds((long) C), Duration.ofSeconds((long) D)).withFaults(Faults.crashes(0.5), seed));
            if (!r.completed()) {
                unfinished.add("seed " + seed + ": " + r.failureReason() + " after t=" + r.makespanSeconds());
            }
        }

        assertThat(unfinished).isEmpty();
    }

    // ---- makespan against hand-derived values and the recomputed bound ----------------------------

    @Test
    void oneAtATimeWithoutSurgeTakesNTimesDrainPlusCreateWhichIsTheBound() {
        PoolYaml pool = PoolYaml.pool("web").maxSurge(Limit.of(0)).maxUnavailable(Limit.of(1));
        SimulationResult r = simulate(pool, 3);
        double bound = RecomputedBound.seconds(pool, 3, C, D);

        assertThat(bound).isEqualTo(3 * (D + C));
        assertThat(replay(r, pool).lastEventAt()).as(show(r)).isCloseTo(3 * (D + C), within(1e-6));
    }

    @Test
    void aCanaryThenPairsWithoutSurgeReachesTheBound() {
        // 5 nodes, u = 2: canary (D + C), then 2 + 2 nodes, each batch D + C.
        PoolYaml pool = PoolYaml.pool("web").maxSurge(Limit.of(0)).maxUnavailable(Limit.of(2));
        SimulationResult r = simulate(pool, 5);
        double bound = RecomputedBound.seconds(pool, 5, C, D);

        assertThat(bound).isEqualTo(3 * (D + C));
        assertThat(replay(r, pool).lastEventAt()).as(show(r)).isCloseTo(3 * (D + C), within(1e-6));
    }

    @Test
    void oneSurgeMachineAtATimeTakesNTimesCreatePlusDrainOneDrainAboveTheBound() {
        // s = 1, u = 0: each replacement holds the one surge slot for C + D, the canary's drain included.
        PoolYaml pool = PoolYaml.pool("web").maxSurge(Limit.of(1)).maxUnavailable(Limit.of(0));
        SimulationResult r = simulate(pool, 3);
        double bound = RecomputedBound.seconds(pool, 3, C, D);
        double makespan = replay(r, pool).lastEventAt();

        assertThat(bound).isEqualTo(C + 2 * (C + D));
        assertThat(makespan).as(show(r)).isCloseTo(3 * (C + D), within(1e-6));
    }

    @Test
    void replaceTakesOneDrainAndOneCreationWhichIsTheBound() {
        PoolYaml pool = PoolYaml.pool("web").strategy("Replace");
        SimulationResult r = simulate(pool, 6);

        assertThat(RecomputedBound.seconds(pool, 6, C, D)).isEqualTo(D + C);
        assertThat(replay(r, pool).lastEventAt()).as(show(r)).isCloseTo(D + C, within(1e-6));
    }

    @Test
    void inPlaceOneAtATimeTakesNTimesDrainPlusUpdateWhichIsTheBound() {
        PoolYaml pool = PoolYaml.pool("gpu").strategy("AutoInPlaceUpdate").maxUnavailable(Limit.of(1));
        SimulationResult r = simulate(pool, 3);

        assertThat(RecomputedBound.seconds(pool, 3, C, D)).isEqualTo(3 * (D + C));
        assertThat(replay(r, pool).lastEventAt()).as(show(r)).isCloseTo(3 * (D + C), within(1e-6));
    }

    @Test
    void noExamplePoolFinishesBeforeItsRecomputedBound() {
        Map<String, PoolYaml> asWritten = Map.of(
                "bastion", PoolYaml.pool("bastion").role("bastion").maxSurge(Limit.of(0)).maxUnavailable(Limit.of(1)),
                "batch", PoolYaml.pool("batch").maxSurge(Limit.percent(25)).maxUnavailable(Limit.percent(25)),
                "cpu-worker", PoolYaml.pool("cpu-worker").maxSurge(Limit.of(1)).maxUnavailable(Limit.of(0)),
                "gpu-worker", PoolYaml.pool("gpu-worker").strategy("AutoInPlaceUpdate").maxUnavailable(Limit.percent(50)));
        List<String> early = new ArrayList<>();
        for (var e : asWritten.entrySet()) {
            for (int n = 1; n <= 9; n++) {
                SimulationResult r = simulate(multi, e.getKey(), n);
                double bound = RecomputedBound.seconds(e.getValue(), n, C, D);
                double makespan = TimelineReplay.replay(r.timeline(), e.getValue().rules(n)).lastEventAt();
                if (!r.completed() || makespan < bound - 1e-6) {
                    early.add(e.getKey() + " n=" + n + ": completed=" + r.completed() + " makespan " + makespan + " < bound " + bound);
                }
            }
        }

        assertThat(early).isEmpty();
    }
}
