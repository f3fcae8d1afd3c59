package dev.nightshift.strategies.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.bench.RolloutBenchmark;
import dev.nightshift.strategies.model.DesiredCluster;

/**
 * The benchmark table of docs/contributing/benchmarks.md at 200 nodes, and a few of its rows with faults, give exactly the
 * results recorded before the planner and the simulator were made fast at 5,000 nodes: the same
 * makespan, peaks, violations and timeline, event for event.
 */
class RecordedResultsTest {

    private static final String FILE = "recorded-results-200.txt";
    private static final int NODES = 200;

    /** Row of the table (1-based), then faults and seed. */
    private record FaultRun(String key, int row, Faults faults, long seed) {
    }

    private static final List<FaultRun> FAULT_RUNS = List.of(
            new FaultRun("jitter", 3, new Faults(0.3, 0, 0, 0, 0, 0), 7),
            new FaultRun("crash", 5, Faults.crashes(0.2), 11),
            new FaultRun("unhealthy", 2, new Faults(0, 0, 0, 0, 0, 0, 0.05), 3),
            new FaultRun("pdbBlocked", 1, new Faults(0, 0, 0, 0.1, 0, 0), 5),
            new FaultRun("inPlaceFailures", 12, new Faults(0.2, 0, 0, 0, 0.05, 0.1), 9),
            new FaultRun("manualUnhealthyBlocked", 13, new Faults(0, 0, 0, 0.2, 0, 0, 0.05), 2),
            new FaultRun("createFailures", 9, new Faults(0, 0.05, 0.02, 0, 0, 0), 4),
            new FaultRun("replaceCrash", 14, Faults.crashes(0.3), 1),
            new FaultRun("mixed", 11, new Faults(0.1, 0, 0, 0, 0, 0.05, 0.03), 8));

    @Test
    void everyRowOfTheBenchmarkTableAndEveryFaultRunGivesTheRecordedResult() {
        Simulator simulator = new Simulator(new RolloutPlanner());
        List<String> actual = new ArrayList<>();
        for (int i = 0; i < RolloutBenchmark.CASES.size(); i++) {
            actual.add(GoldenResults.line("row" + (i + 1), simulator.run(setup(i + 1))));
        }
        for (FaultRun f : FAULT_RUNS) {
            actual.add(GoldenResults.line(f.key(), simulator.run(setup(f.row()).withFaults(f.faults(), f.seed()))));
        }
        if (GoldenResults.WRITE) {
            GoldenResults.write(FILE, "RecordedResultsTest: " + NODES + " nodes, C=120s, D=30s", actual);
        }

        Map<String, String> recorded = GoldenResults.read(FILE);
        assertThat(actual).containsExactlyElementsOf(recorded.values());
    }

    private static SimulationSetup setup(int row) {
        String[] c = RolloutBenchmark.CASES.get(row - 1);
        DesiredCluster desired = RolloutBenchmark.cluster(c[0], c[1], c[2]);
        return SimulationSetup.of(desired, "pool", NODES, Duration.ofSeconds(120), Duration.ofSeconds(30));
    }
}
