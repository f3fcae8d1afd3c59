package dev.nightshift.strategies.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.sim.TimelineReplay.Limit;
import dev.nightshift.strategies.sim.TimelineReplay.Result;

/**
 * The target changes while a rollout is under way: the pool runs spec A, the target is B, and at a
 * random plan the target becomes C (or A again). The planner is driven directly by
 * {@link PlannerDriver}; the timeline is checked by {@link TimelineReplay} against limits the test
 * resolves itself (A, B and C differ only in the image version, so the limits are the same).
 */
class TargetChangeTest {

    private static final int SEEDS = 150;
    private static final Duration HORIZON = Duration.ofDays(2);
    private static final Limit[][] ROLLING_LIMITS = {
            {Limit.of(1), Limit.of(0)}, {Limit.of(0), Limit.of(1)}, {Limit.of(1), Limit.of(1)}, {Limit.of(2), Limit.of(1)},
            {Limit.of(3), Limit.of(0)}, {Limit.percent(25), Limit.percent(25)}, {Limit.of(0), Limit.percent(50)}};
    private static final Limit[][] IN_PLACE_LIMITS = {
            {Limit.of(0), Limit.of(1)}, {Limit.of(0), Limit.of(2)}, {Limit.of(1), Limit.of(1)}, {Limit.of(1), Limit.of(0)},
            {Limit.of(0), Limit.percent(50)}, {Limit.of(2), Limit.percent(25)}};

    private record Scenario(long seed, PoolYaml pool, int nodes, int createSeconds, int drainSeconds, long switchDraw) {

        DesiredCluster at(String imageVersion) {
            return pool.copy().imageVersion(imageVersion).desired();
        }

        PlannerDriver driver(String from, String to) {
            return new PlannerDriver(at(from), at(to), pool.name(), nodes, Duration.ofSeconds(createSeconds),
                    Duration.ofSeconds(drainSeconds));
        }

        @Override
        public String toString() {
            return "seed=" + seed + " n=" + nodes + " C=" + createSeconds + "s D=" + drainSeconds + "s pool: " + pool;
        }
    }

    private static Scenario scenario(long seed, String strategy) {
        Random r = new Random(seed);
        Limit[][] choices = strategy.equals("AutoRollingUpdate") ? ROLLING_LIMITS : IN_PLACE_LIMITS;
        Limit[] limits = choices[r.nextInt(choices.length)];
        PoolYaml pool = PoolYaml.pool("web").strategy(strategy).maxSurge(limits[0]).maxUnavailable(limits[1])
                .minReadySeconds(r.nextBoolean() ? 0 : r.nextInt(31)).interval(r.nextBoolean() ? "0s" : r.nextInt(16) + "s");
        return new Scenario(seed, pool, 2 + r.nextInt(7), 30 + r.nextInt(151), r.nextInt(61), r.nextLong());
    }

    /**
     * Runs A → B with the target switched to {@code last} at a random plan of the rollout, and returns
     * what went wrong (empty when it converged to {@code last} within the limits).
     */
    private static List<String> switchMidRollout(String strategy, String last) {
        List<String> failures = new ArrayList<>();
        for (long seed = 1; seed <= SEEDS; seed++) {
            Scenario s = scenario(seed, strategy);
            int plansWithoutSwitch = s.driver("1631.0.0", "1632.0.0").run(HORIZON).plans();
            int switchAt = 1 + (int) Math.floorMod(s.switchDraw(), (long) Math.max(1, plansWithoutSwitch - 1));
            PlannerDriver.Outcome o = s.driver("1631.0.0", "1632.0.0").switchTo(s.at(last), switchAt).run(HORIZON);
            Result replay = TimelineReplay.replay(o.timeline(), s.pool().rules(s.nodes()).longReady());
            String where = s + " switched to " + last + " at plan " + switchAt + " of " + plansWithoutSwitch + "\n    -> ";
            if (!o.converged()) {
                failures.add(where + "did not converge: " + o.reason());
            } else if (!replay.violations().isEmpty()) {
                failures.add(where + replay.violations().size() + " violation(s), first: " + replay.violations().get(0));
            } else if (!replay.anomalies().isEmpty()) {
                failures.add(where + "inconsistent timeline: " + replay.anomalies());
            }
        }
        return failures;
    }

    private static String summary(List<String> failures) {
        return failures.size() + " of " + SEEDS + " seeds failed; first ones:\n"
                + String.join("\n", failures.subList(0, Math.min(8, failures.size())));
    }

    @ParameterizedTest
    @ValueSource(strings = {"1633.0.0", "1631.0.0"})
    void aNodeUpdatingInPlaceWhenTheTargetChangesIsUpdatedAgainToTheNewTarget(String last) {
        // Two nodes, one at a time: web-1 is being updated in place to B when the target becomes C (or A again).
        PoolYaml pool = PoolYaml.pool("web").strategy("AutoInPlaceUpdate").maxSurge(Limit.of(0)).maxUnavailable(Limit.of(1));
        PlannerDriver.Outcome o = new PlannerDriver(pool.copy().imageVersion("1631.0.0").desired(),
                pool.copy().imageVersion("1632.0.0").desired(), "web", 2, Duration.ofSeconds(100), Duration.ofSeconds(20))
                .switchAfterFirst("UPDATE_IN_PLACE", pool.copy().imageVersion(last).desired())
                .run(HORIZON);

        assertThat(o.converged()).as(o.reason()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"AutoRollingUpdate", "AutoInPlaceUpdate"})
    void withoutATargetChangeTheDrivenRolloutConvergesWithinLimits(String strategy) {
        List<String> failures = new ArrayList<>();
        for (long seed = 1; seed <= SEEDS; seed++) {
            Scenario s = scenario(seed, strategy);
            PlannerDriver.Outcome o = s.driver("1631.0.0", "1632.0.0").run(HORIZON);
            Result replay = TimelineReplay.replay(o.timeline(), s.pool().rules(s.nodes()).longReady());
            if (!o.converged() || !replay.violations().isEmpty() || !replay.everyNodeEndsCurrent()) {
                failures.add(s + "\n    -> " + o.reason() + " " + replay.violations() + " " + replay.notCurrentAtEnd());
            }
        }

        assertThat(failures).as(summary(failures)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"AutoRollingUpdate", "AutoInPlaceUpdate"})
    void aTargetChangedAgainMidRolloutConvergesToTheLatestTargetWithinLimits(String strategy) {
        List<String> failures = switchMidRollout(strategy, "1633.0.0");

        assertThat(failures).as(summary(failures)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"AutoRollingUpdate", "AutoInPlaceUpdate"})
    void aTargetRevertedMidRolloutConvergesBackToTheOriginalWithinLimits(String strategy) {
        List<String> failures = switchMidRollout(strategy, "1631.0.0");

        assertThat(failures).as(summary(failures)).isEmpty();
    }
}
