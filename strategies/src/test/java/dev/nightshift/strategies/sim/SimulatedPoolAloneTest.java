package dev.nightshift.strategies.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.model.DesiredCluster;

/**
 * A simulation is of one pool's outdated nodes, also in a cluster of several pools whose machines Nightshift refills
 * (the agent's ETA with the simulated cloud, as in the demo): the other pools, with no node in the run, are not planned,
 * and no refill adds work the rollout does not have. Before, each other pool was refilled to its minimum with machines
 * made in the simulated pool, which deleted them again, for ever ("did not settle at t=0.0 after 10000 plans").
 */
class SimulatedPoolAloneTest {

    private static final Path DEMO = Path.of("../examples/demo");

    static Stream<Arguments> demoPools() {
        return Stream.of("bastion", "batch", "cpu-worker", "gpu-worker").flatMap(p -> Stream.of(1, 2, 3).map(n -> Arguments.of(p, n)));
    }

    @ParameterizedTest(name = "{0}, {1} outdated")
    @MethodSource("demoPools")
    void aPoolOfTheDemoIsSimulatedAloneAndTheSameWhereNightshiftRefillsPools(String pool, int nodes) {
        DesiredCluster plain = demo();
        DesiredCluster refilling = new DesiredCluster(plain.cluster(), plain.pools(), plain.validationsRequired(), true);

        SimulationResult alone = run(plain, pool, nodes);
        SimulationResult refilled = run(refilling, pool, nodes);

        assertThat(refilled.completed()).as(refilled.failureReason()).isTrue();
        assertThat(refilled.timeline()).as("the same rollout").isEqualTo(alone.timeline());
        assertThat(refilled.timeline()).allMatch(e -> e.node().startsWith(pool + "-"));
    }

    private static SimulationResult run(DesiredCluster desired, String pool, int nodes) {
        return new Simulator(new RolloutPlanner()).run(SimulationSetup.of(desired, pool, nodes, Duration.ofSeconds(15),
                Duration.ofSeconds(30)));
    }

    private static DesiredCluster demo() {
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(DEMO)) {
            walk.filter(Files::isRegularFile).forEach(p -> {
                try {
                    files.put(DEMO.relativize(p).toString(), Files.readAllBytes(p));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        LoadResult loaded = new SpecLoader().load(files);
        assertThat(loaded.valid()).as("%s", loaded.errors()).isTrue();
        return DesiredCluster.of(loaded.specs(), "demo", 1);
    }
}
