package dev.nightshift.strategies.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.sim.TimelineReplay.Limit;

/**
 * The simulator with maintenance windows supplied by the caller: disruptive work starts only inside
 * a window, work in flight at the close finishes, and the next window takes it up again.
 */
class SimulatorWindowsTest {

    /** A Saturday, so that nothing here depends on the simulator's own start. */
    private static final Instant START = Instant.parse("2026-03-07T02:00:00Z");

    /** Open for {@code length} at the start of every hour, from the hour {@link #START} is in. */
    private record Hourly(Duration length) implements MaintenanceWindows {

        @Override
        public MaintenanceState at(Instant t) {
            return offset(t).compareTo(length) < 0 ? MaintenanceState.OPEN : MaintenanceState.CLOSED;
        }

        @Override
        public Optional<Instant> nextChangeAfter(Instant t) {
            Instant hour = t.minus(offset(t));
            Instant close = hour.plus(length);
            return Optional.of(close.isAfter(t) ? close : hour.plus(Duration.ofHours(1)));
        }

        private static Duration offset(Instant t) {
            return Duration.ofSeconds(Math.floorMod(t.getEpochSecond(), 3600));
        }
    }

    private static SimulationResult fourNodesInTwoMinuteWindows() {
        PoolYaml pool = PoolYaml.pool("web").maxSurge(Limit.of(0)).maxUnavailable(Limit.of(1));
        SimulationSetup setup = SimulationSetup.of(pool.desired(), "web", 4, Duration.ofSeconds(60), Duration.ofSeconds(30))
                .withWindows(START, new Hourly(Duration.ofMinutes(2)));
        return new Simulator(new RolloutPlanner()).run(setup);
    }

    private static List<Double> times(SimulationResult r, String step) {
        return r.timeline().stream().filter(e -> e.step().equals(step)).map(TimelineEvent::t).toList();
    }

    @Test
    void aRolloutRunsOnlyInsideWindowsAndFinishesInTheSecondOne() {
        SimulationResult r = fourNodesInTwoMinuteWindows();

        assertThat(r.completed()).as(r.failureReason()).isTrue();
        // One node at a time (maxUnavailable 1, no surge): drain 30 s, then the replacement is created
        // and Ready 60 s later, so a node takes 90 s and the next one starts when its replacement is Ready.
        // Window 1 [0, 120): node 1 drains at 0, node 2 at 90 (still inside); node 2's replacement,
        // created at 120 as the window closes, is work in flight and is Ready at 180.
        // Window 2 [3600, 3720): node 3 drains at 3600, node 4 at 3690; done at 3690 + 90 = 3780.
        assertThat(times(r, "DRAIN")).containsExactly(0.0, 90.0, 3600.0, 3690.0);
        assertThat(times(r, "CREATE")).containsExactly(30.0, 120.0, 3630.0, 3720.0);
        assertThat(times(r, "READY")).containsExactly(90.0, 180.0, 3690.0, 3780.0);
        assertThat(r.finishedSeconds()).isEqualTo(3780.0);
    }

    @Test
    void nothingDisruptiveStartsWhileTheWindowIsClosed() {
        SimulationResult r = fourNodesInTwoMinuteWindows();

        // Between the first window's close (120 s) and the second's opening (3600 s) only work in
        // flight goes on: node 2's replacement, created at 120, becomes Ready (and gets the pool's
        // labels, which disrupts nothing); nothing is cordoned, drained, deleted or created.
        assertThat(r.timeline()).filteredOn(e -> e.t() > 120 && e.t() < 3600)
                .extracting(TimelineEvent::step).containsOnly("READY", "PROPAGATE").contains("READY");
        // The next window takes the rollout up again the moment it opens.
        assertThat(r.timeline()).filteredOn(e -> e.t() > 180 && !e.step().equals("PROPAGATE")).first()
                .satisfies(e -> assertThat(e.t()).isEqualTo(3600.0));
    }

    @Test
    void alwaysOpenIsTheSameRunAsBeforeWindowsExisted() {
        PoolYaml pool = PoolYaml.pool("web").maxSurge(Limit.of(0)).maxUnavailable(Limit.of(1));
        SimulationSetup plain = SimulationSetup.of(pool.desired(), "web", 4, Duration.ofSeconds(60), Duration.ofSeconds(30));

        SimulationResult before = new Simulator(new RolloutPlanner()).run(plain);
        SimulationResult elsewhere = new Simulator(new RolloutPlanner()).run(plain.withWindows(START, MaintenanceWindows.ALWAYS_OPEN));

        assertThat(before.makespanSeconds()).isEqualTo(4 * 90.0);
        assertThat(elsewhere.timeline()).isEqualTo(before.timeline());
    }

    @Test
    void anInPlaceUpdateTakesItsOwnDuration() {
        PoolYaml pool = PoolYaml.pool("db").strategy("AutoInPlaceUpdate").maxUnavailable(Limit.of(1));
        SimulationSetup setup = SimulationSetup.of(pool.desired(), "db", 2, Duration.ofSeconds(600), Duration.ofSeconds(30))
                .withNodeUpdates(Duration.ofSeconds(45), Duration.ofSeconds(10));

        SimulationResult r = new Simulator(new RolloutPlanner()).run(setup);

        // Drain 30 s, update in place 45 s, one node at a time; creation (600 s) plays no part.
        assertThat(r.completed()).as(r.failureReason()).isTrue();
        assertThat(times(r, "UPDATE_IN_PLACE")).containsExactly(30.0, 105.0);
        assertThat(r.finishedSeconds()).isEqualTo(150.0);
    }

    @Test
    void aKubeletOnlyChangeRestartsKubeletsWithoutReplacing() {
        PoolYaml pool = PoolYaml.pool("web").maxUnavailable(Limit.of(1));
        SimulationSetup setup = SimulationSetup.of(pool.desired(), "web", 3, Duration.ofSeconds(120), Duration.ofSeconds(30))
                .withNodeUpdates(Duration.ofSeconds(120), Duration.ofSeconds(20))
                .withOutdated(SimulationSetup.Outdated.KUBELET);

        SimulationResult r = new Simulator(new RolloutPlanner()).run(setup);

        assertThat(r.completed()).as(r.failureReason()).isTrue();
        assertThat(times(r, "CREATE")).isEmpty();
        assertThat(times(r, "DRAIN")).isEmpty();
        assertThat(times(r, "RESTART_KUBELET")).hasSize(3);
        assertThat(r.finishedSeconds()).isGreaterThanOrEqualTo(20.0);
    }
}
