package dev.nightshift.strategies.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Predicate;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.sim.TimelineReplay.Limit;
import dev.nightshift.strategies.sim.TimelineReplay.Result;

/**
 * Thousands of seeded random pools, simulated once and checked by independent replays of their
 * timelines. Every failure names its seed; {@link #generate(long)} rebuilds the case from it.
 */
class SimulatorPropertyTest {

    private static final int SEEDS = 3000;
    private static final String[] STRATEGIES = {"AutoRollingUpdate", "AutoInPlaceUpdate", "ManualInPlaceUpdate", "Replace"};
    private static final Duration HORIZON = Duration.ofDays(10);
    private static final String RECORDED = "recorded-property-outcomes.txt";

    /** One random pool update, as the seed gives it. */
    record Case(long seed, PoolYaml pool, int nodes, int createSeconds, int drainSeconds, Faults faults) {

        boolean onlyCrashesAndJitter() {
            return faults.createFailure() == 0 && faults.neverReady() == 0 && faults.pdbBlocked() == 0
                    && faults.inPlaceFailure() == 0 && faults.unhealthy() == 0;
        }

        boolean inPlace() {
            return pool.strategy().endsWith("InPlaceUpdate");
        }

        SimulationSetup setup() {
            return new SimulationSetup(pool.desired(), pool.name(), nodes, Duration.ofSeconds(createSeconds),
                    Duration.ofSeconds(drainSeconds), Duration.ofSeconds(10), seed, faults, HORIZON);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "seed=%d n=%d C=%ds D=%ds faults=%s pool: %s", seed, nodes, createSeconds,
                    drainSeconds, faults, pool);
        }
    }

    /** A case with what the simulator did and what the replay measured; {@code error} when the simulator threw. */
    record Outcome(Case c, SimulationResult result, Result replay, Throwable error) {

        boolean ran() {
            return error == null;
        }
    }

    private static final List<Outcome> OUTCOMES = new ArrayList<>();
    private static int invalidSpecsSkipped;

    static Case generate(long seed) {
        Random r = new Random(seed);
        int roll = r.nextInt(10);
        String role = roll < 7 ? "node" : roll == 7 ? "apiserver" : roll == 8 ? "control-plane" : "bastion";
        String strategy = STRATEGIES[r.nextInt(STRATEGIES.length)];
        PoolYaml pool = PoolYaml.pool("pool").role(role).strategy(strategy)
                .maxSurge(limit(r)).maxUnavailable(limit(r));
        if (r.nextInt(7) == 0) {
            pool.clusterDefaults(limit(r), limit(r));
        }
        pool.minReadySeconds(r.nextBoolean() ? 0 : r.nextInt(61));
        pool.interval(r.nextBoolean() ? "0s" : r.nextInt(31) + "s");
        int nodes = 1 + r.nextInt(30);
        int create = 1 + r.nextInt(300);
        int drain = r.nextInt(121);
        double crash = r.nextBoolean() ? r.nextDouble() * 0.5 : 0;
        double jitter = r.nextBoolean() ? r.nextDouble() : 0;
        Faults faults = new Faults(jitter, 0, 0, 0, 0, crash);
        if (r.nextInt(5) == 0) {
            faults = new Faults(jitter, r.nextDouble() * 0.2, r.nextDouble() * 0.05, r.nextDouble() * 0.3,
                    r.nextDouble() * 0.2, crash, r.nextDouble() * 0.3);
        }
        return new Case(seed, pool, nodes, create, drain, faults);
    }

    /** Absent (default), an int 0..3 or a percentage 0..100%. */
    private static Limit limit(Random r) {
        int kind = r.nextInt(5);
        if (kind == 0) {
            return null;
        }
        if (kind <= 2) {
            return Limit.of(r.nextInt(4));
        }
        int[] usual = {0, 10, 25, 33, 50, 75, 99, 100};
        return Limit.percent(r.nextBoolean() ? usual[r.nextInt(usual.length)] : r.nextInt(101));
    }

    @BeforeAll
    static void simulateEveryCase() {
        Simulator simulator = new Simulator(new RolloutPlanner());
        for (long seed = 1; seed <= SEEDS; seed++) {
            Case c = generate(seed);
            if (!c.pool().load().valid()) {
                invalidSpecsSkipped++;
                continue;
            }
            try {
                SimulationResult result = simulator.run(c.setup());
                OUTCOMES.add(new Outcome(c, result, TimelineReplay.replay(result.timeline(), c.pool().rules(c.nodes())), null));
            } catch (RuntimeException | StackOverflowError e) {
                OUTCOMES.add(new Outcome(c, null, null, e));
            }
        }
    }

    /** Every outcome the filter selects for which the check returns a complaint, one line each. */
    private static List<String> failures(Predicate<Outcome> applies, Function<Outcome, String> complaint) {
        List<String> out = new ArrayList<>();
        for (Outcome o : OUTCOMES) {
            if (o.ran() && applies.test(o)) {
                String problem = complaint.apply(o);
                if (problem != null) {
                    out.add(o.c() + "\n    -> " + problem);
                }
            }
        }
        return out;
    }

    private static String summary(List<String> failures) {
        return failures.size() + " failing case(s); first ones:\n" + String.join("\n", failures.subList(0, Math.min(15, failures.size())));
    }

    /**
     * Every case gives the result recorded before the planner and the simulator were made fast at
     * 5,000 nodes: the same figures and timeline, event for event ({@link GoldenResults}).
     */
    @Test
    void everyCaseGivesTheRecordedResult() {
        List<String> actual = OUTCOMES.stream().map(o -> "seed" + o.c().seed() + " "
                + (o.ran() ? GoldenResults.digest(o.result()) : "threw " + o.error().getClass().getSimpleName())).toList();
        if (GoldenResults.WRITE) {
            GoldenResults.write(RECORDED, "SimulatorPropertyTest: seed, digest of the result (GoldenResults.digest)", actual);
        }

        List<String> changed = new ArrayList<>(actual);
        changed.removeAll(GoldenResults.read(RECORDED).values());
        assertThat(changed).as(changed.size() + " case(s) give another result than recorded; rebuild one with generate(seed)")
                .isEmpty();
        assertThat(actual).hasSameSizeAs(GoldenResults.read(RECORDED).values());
    }

    @Test
    void thousandsOfValidCasesAreSimulated() {
        assertThat(OUTCOMES.size()).as("valid cases (" + invalidSpecsSkipped + " invalid specs skipped)").isGreaterThanOrEqualTo(2000);
    }

    @Test
    void everySimulationRunsToAnEndWithoutThrowing() {
        List<String> thrown = OUTCOMES.stream().filter(o -> !o.ran()).map(o -> o.c() + "\n    -> " + o.error()).toList();

        assertThat(thrown).as(summary(thrown)).isEmpty();
    }

    @Test
    void theTimelineIsAConsistentHistoryOfExistingMachines() {
        List<String> f = failures(o -> true, o -> o.replay().anomalies().isEmpty() ? null : o.replay().anomalies().toString());

        assertThat(f).as(summary(f)).isEmpty();
    }

    @Test
    void noLimitIsEverExceededExceptByReplace() {
        List<String> f = failures(o -> true, o -> o.replay().violations().isEmpty() ? null
                : o.replay().violations().size() + " violation(s), first: " + o.replay().violations().get(0));

        assertThat(f).as(summary(f)).isEmpty();
    }

    @Test
    void noLimitIsEverExceededWhenMinReadySecondsIsZero() {
        List<String> f = failures(o -> o.c().pool().minReadySeconds() == 0, o -> o.replay().violations().isEmpty() ? null
                : o.replay().violations().size() + " violation(s), first: " + o.replay().violations().get(0));

        assertThat(f).as(summary(f)).isEmpty();
    }

    @Test
    void everyOutdatedNodeEndsCurrentWhenTheOnlyFaultIsJitter() {
        List<String> f = failures(o -> o.c().onlyCrashesAndJitter() && o.c().faults().crash() == 0, o -> {
            if (!o.result().completed()) {
                return "not completed: " + o.result().failureReason();
            }
            return o.replay().everyNodeEndsCurrent() ? null : o.replay().notCurrentAtEnd().toString();
        });

        assertThat(f).as(summary(f)).isEmpty();
    }

    @Test
    void everyOutdatedNodeEndsCurrentWhenTheOnlyFaultsAreCrashesAndJitter() {
        List<String> f = failures(o -> o.c().onlyCrashesAndJitter(), o -> {
            if (!o.result().completed()) {
                return "not completed: " + o.result().failureReason();
            }
            return o.replay().everyNodeEndsCurrent() ? null : o.replay().notCurrentAtEnd().toString();
        });

        assertThat(f).as(summary(f)).isEmpty();
    }

    @Test
    void nodesThatFallIllAreRepairedInSomeCases() {
        long repaired = OUTCOMES.stream().filter(Outcome::ran)
                .filter(o -> o.result().timeline().stream().anyMatch(e -> e.step().equals("REPAIR"))).count();

        assertThat(repaired).as("cases with a repair").isGreaterThanOrEqualTo(10);
    }

    @Test
    void aPlannerRestartedAtAnyEventNeverDrainsANodeTwice() {
        List<String> f = failures(o -> true,
                o -> o.replay().nodesDrainedMoreThanOnce().isEmpty() ? null : "drained twice: " + o.replay().nodesDrainedMoreThanOnce());

        assertThat(f).as(summary(f)).isEmpty();
    }

    @Test
    void aPlannerRestartedAtAnyEventNeverCreatesAnExtraMachine() {
        // Machines that never register are legitimately replaced after creationTimeout: those cases are left out.
        List<String> f = failures(o -> o.c().faults().createFailure() == 0, o -> {
            int n = o.c().nodes();
            int allowed = o.c().inPlace() ? o.c().pool().effectiveMaxSurge().resolve(n, true) : n;
            return o.replay().creates() <= allowed ? null
                    : o.replay().creates() + " machines created, at most " + allowed + " needed; per partner " + o.replay().surgeCreatesPerPartner();
        });

        assertThat(f).as(summary(f)).isEmpty();
    }

    @Test
    void noCompletedUpdateFinishesBeforeTheRecomputedLowerBound() {
        List<String> f = failures(o -> o.result().completed(), o -> {
            double bound = RecomputedBound.seconds(o.c().pool(), o.c().nodes(), o.c().createSeconds(), o.c().drainSeconds());
            double makespan = o.replay().lastEventAt();
            return makespan >= bound - 1e-6 ? null : "makespan " + makespan + " < recomputed bound " + bound;
        });

        assertThat(f).as(summary(f)).isEmpty();
    }
}
