package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.agent.command.ValidSpecs;
import dev.nightshift.agent.provider.Machine;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.strategies.model.DesiredPool;

/**
 * {@code rolling-update --cloudonly} against an in-memory provider, on a clock the pauses move: which machines are replaced,
 * in what order, how long it waits between two (its role's interval), and what a replacement that does not run within
 * {@code --validation-timeout} does with and without {@code --fail-on-validate-error}.
 */
class CloudOnlyUpdateTest {

    private static final SpecSet DEMO = ValidSpecs.load(Path.of("../examples/demo"), new PrintWriter(new StringWriter())).orElseThrow();
    private static final DesiredPool BASTION = pool("bastion");
    private static final DesiredPool CPU = pool("cpu-worker");
    private static final StampedHash OLD = new StampedHash(1, "0".repeat(32));
    private static final Map<PoolRole, Duration> INTERVALS = Map.of(PoolRole.BASTION, Duration.ofSeconds(5), PoolRole.CONTROL_PLANE,
            Duration.ofSeconds(7), PoolRole.APISERVER, Duration.ofSeconds(7), PoolRole.NODE, Duration.ofSeconds(30));

    private final MovingClock clock = new MovingClock();
    private final FakeCloud cloud = new FakeCloud();
    private final List<Duration> pauses = new ArrayList<>();
    private final StringWriter err = new StringWriter();

    private static DesiredPool pool(String name) {
        return DesiredPool.of(DEMO.resolvedPools("demo").stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow());
    }

    private CloudOnlyUpdate update(boolean force, boolean failOnValidateError) {
        return new CloudOnlyUpdate(cloud, new CloudOnlyUpdate.Settings(force, INTERVALS, Duration.ofSeconds(60), failOnValidateError), clock,
                d -> {
                    pauses.add(d);
                    clock.now = clock.now.plus(d);
                }, new Progress(new PrintWriter(new StringWriter()), false), new PrintWriter(err, true));
    }

    @Test
    void onlyOutdatedMachinesAreReplacedOneAtATimeTheirRolesIntervalApart() throws Exception {
        cloud.add(CPU, "cpu-1", OLD);
        cloud.add(CPU, "cpu-2", CPU.rollHash());
        cloud.add(CPU, "cpu-3", OLD);
        cloud.add(BASTION, "bastion-1", OLD);

        boolean done = update(false, true).run(List.of(BASTION, CPU));

        assertThat(done).isTrue();
        assertThat(cloud.replaced).containsExactly("bastion-1", "cpu-1", "cpu-3");
        assertThat(pauses).as("the node interval between cpu-1 and cpu-3; none after a pool's last machine").containsExactly(
                Duration.ofSeconds(30));
        assertThat(cloud.machines(CPU.name())).extracting(Machine::rollHash).containsOnly(CPU.rollHash());
    }

    @Test
    void withForceTheCurrentMachinesAreReplacedToo() throws Exception {
        cloud.add(BASTION, "bastion-1", BASTION.rollHash());
        cloud.add(BASTION, "bastion-2", BASTION.rollHash());

        update(true, true).run(List.of(BASTION));

        assertThat(cloud.replaced).containsExactly("bastion-1", "bastion-2");
        assertThat(pauses).containsExactly(Duration.ofSeconds(5));
    }

    @Test
    void aReplacementNotRunningWithinTheValidationTimeoutStopsTheRunWithFailOnValidateError() throws Exception {
        cloud.add(CPU, "cpu-1", OLD);
        cloud.add(CPU, "cpu-2", OLD);
        cloud.replacementsRun = false;

        boolean done = update(false, true).run(List.of(CPU));

        assertThat(done).isFalse();
        assertThat(cloud.replaced).as("the run stopped at the first").containsExactly("cpu-1");
        assertThat(err.toString()).contains("cpu-1", "was not running within 60s (--validation-timeout)", "--fail-on-validate-error");
        assertThat(pauses.stream().reduce(Duration.ZERO, Duration::plus)).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void withoutFailOnValidateErrorAReplacementNotRunningInTimeDoesNotStopTheRun() throws Exception {
        cloud.add(CPU, "cpu-1", OLD);
        cloud.add(CPU, "cpu-2", OLD);
        cloud.replacementsRun = false;

        boolean done = update(false, false).run(List.of(CPU));

        assertThat(done).isTrue();
        assertThat(cloud.replaced).containsExactly("cpu-1", "cpu-2");
    }

    @Test
    void aReplacementTheProviderRefusesFailsTheRun() throws Exception {
        cloud.add(CPU, "cpu-1", OLD);
        cloud.refuse = true;

        assertThat(update(false, true).run(List.of(CPU))).isFalse();
        assertThat(err.toString()).contains("machine cpu-1 was not replaced: quota exceeded");
    }

    private static final class MovingClock extends Clock {
        Instant now = Instant.parse("2026-11-27T10:00:00Z");

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    /** Machines by pool; a replace swaps a machine for one at the pool's roll hash, running at once unless told otherwise. */
    private final class FakeCloud implements MachineProvider {
        final List<Machine> machines = new ArrayList<>();
        final List<String> replaced = new ArrayList<>();
        boolean replacementsRun = true;
        boolean refuse;
        int made;

        void add(DesiredPool pool, String name, StampedHash hash) {
            machines.add(new Machine(name, pool.name(), clock.now, hash, pool.kubeletHash(), Optional.empty(), true, Optional.of(name), false,
                    false, 0));
        }

        @Override
        public List<Machine> machines(String pool) {
            return machines.stream().filter(m -> m.pool().equals(pool)).toList();
        }

        @Override
        public void create(DesiredPool pool, String surgeFor) {
            throw new AssertionError("--cloudonly creates nothing itself");
        }

        @Override
        public Deletion delete(DesiredPool pool, String machine, boolean replace) {
            assertThat(replace).as("--cloudonly replaces").isTrue();
            if (refuse) {
                return new Deletion(false, "quota exceeded");
            }
            replaced.add(machine);
            machines.removeIf(m -> m.name().equals(machine));
            machines.add(new Machine("new-" + (++made), pool.name(), clock.now, pool.rollHash(), pool.kubeletHash(), Optional.empty(),
                    replacementsRun, Optional.empty(), false, false, 0));
            return new Deletion(true, "replaced " + machine);
        }

        @Override
        public void stamp(String pool, String machine, StampedHash rollHash, StampedHash kubeletHash) {
            throw new AssertionError("--cloudonly stamps nothing");
        }
    }
}
