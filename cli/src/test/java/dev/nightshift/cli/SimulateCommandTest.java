package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import picocli.CommandLine;

class SimulateCommandTest {

    private static final String MULTI = "../examples/multi";

    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    private JsonNode json() throws IOException {
        return new ObjectMapper().readTree(out.toString());
    }

    @Test
    void aCompletedRolloutExitsZeroWithTheContractFields() throws IOException {
        int code = run("simulate", "--spec", MULTI, "--pool", "cpu-worker", "--nodes", "5", "--output", "json");

        assertThat(code).isZero();
        JsonNode r = json();
        assertThat(r.get("pool").asText()).isEqualTo("cpu-worker");
        assertThat(r.get("strategy").asText()).isEqualTo("AutoRollingUpdate");
        assertThat(r.get("nodes").asInt()).isEqualTo(5);
        assertThat(r.get("resolvedMaxSurge").asInt()).isEqualTo(1);
        assertThat(r.get("resolvedMaxUnavailable").asInt()).isZero();
        assertThat(r.get("peakNodes").asInt()).isEqualTo(6);
        assertThat(r.get("peakUnavailable").asInt()).isZero();
        assertThat(r.get("violations")).isEmpty();
        assertThat(r.get("makespanSeconds").asDouble()).isGreaterThanOrEqualTo(r.get("lowerBoundSeconds").asDouble());
    }

    @Test
    void aFleetSimulationRollsEveryPoolAndGivesEachItsStartAndEnd() throws IOException {
        int code = run("simulate", "--spec", MULTI, "--fleet", "--nodes-per-pool", "3", "--output", "json");

        assertThat(code).as(err.toString()).isZero();
        JsonNode r = json();
        assertThat(r.get("cluster").asText()).isEqualTo("demo");
        assertThat(r.get("nodes").asInt()).isEqualTo(12);
        assertThat(r.get("concurrency").asInt()).isEqualTo(1);
        assertThat(r.get("maxUnavailableNodes").isNull()).isTrue();
        assertThat(r.get("completed").asBoolean()).isTrue();
        assertThat(r.get("violations")).isEmpty();
        assertThat(r.get("makespanSeconds").asDouble()).isGreaterThanOrEqualTo(r.get("lowerBoundSeconds").asDouble());
        assertThat(r.get("peakUnavailableCluster").asInt()).isGreaterThanOrEqualTo(1);
        // Bastions first, then the node pools by name, one at a time: a pool of the same role may start while the one
        // before it has its last machine coming up (as before fleets), a later role only once it is up.
        JsonNode pools = r.get("pools");
        assertThat(pools).extracting(p -> p.get("pool").asText()).containsExactly("bastion", "batch", "cpu-worker", "gpu-worker");
        assertThat(pools.get(1).get("startSeconds").asDouble()).isGreaterThanOrEqualTo(pools.get(0).get("endSeconds").asDouble());
        for (int i = 2; i < pools.size(); i++) {
            assertThat(pools.get(i).get("startSeconds").asDouble()).as(pools.toString())
                    .isGreaterThanOrEqualTo(pools.get(i - 1).get("endSeconds").asDouble() - 120);
        }
    }

    @Test
    void aFleetSimulationTakesEachPoolsMinimumWithoutNodesPerPool() throws IOException {
        assertThat(run("simulate", "--spec", MULTI, "--fleet", "--output", "json")).isZero();

        assertThat(json().get("pools")).extracting(p -> p.get("nodes").asInt()).containsExactly(1, 2, 3, 2);
    }

    @Test
    void aFleetSimulationRefusesAPoolOrFaults() {
        assertThat(run("simulate", "--spec", MULTI, "--fleet", "--pool", "batch")).isEqualTo(2);
        assertThat(run("simulate", "--spec", MULTI, "--fleet", "--crash", "0.1")).isEqualTo(2);
        assertThat(run("simulate", "--spec", MULTI, "--pool", "batch")).as("--nodes without --fleet").isEqualTo(2);
        assertThat(err.toString()).contains("--fleet simulates every pool", "--fleet simulates without faults", "--pool and --nodes are required");
    }

    @Test
    void theTimelineIsOrderedAndEndsAtTheMakespan() throws IOException {
        run("simulate", "--spec", MULTI, "--pool", "batch", "--nodes", "4", "--create-seconds", "60", "--drain-seconds", "20",
                "--output", "json");

        JsonNode timeline = json().get("timeline");
        double previous = 0;
        for (JsonNode e : timeline) {
            assertThat(e.get("t").asDouble()).isGreaterThanOrEqualTo(previous);
            previous = e.get("t").asDouble();
        }
        assertThat(json().get("makespanSeconds").asDouble()).isEqualTo(previous);
        assertThat(timeline).extracting(e -> e.get("step").asText()).contains("CREATE", "READY", "CORDON", "DRAIN", "DELETE");
    }

    @Test
    void theInitialNodesAppearByNameAndAreAllReplaced() throws IOException {
        run("simulate", "--spec", MULTI, "--pool", "cpu-worker", "--nodes", "3", "--output", "json");

        assertThat(json().get("timeline")).filteredOn(e -> e.get("step").asText().equals("DELETE"))
                .extracting(e -> e.get("node").asText())
                .containsExactlyInAnyOrder("cpu-worker-1", "cpu-worker-2", "cpu-worker-3");
    }

    @Test
    void aRolloutThatCannotFinishExitsOneAndSaysWhy() throws IOException {
        Path spec = tmp.resolve("spec.yaml");
        Files.writeString(spec, Files.readString(Path.of(MULTI, "cluster.yaml")) + "---\n" + """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: db, cluster: demo}
                spec:
                  minimum: 1
                  maximum: 3
                  maxSurge: 0
                  maxUnavailable: 1
                  machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                  machineControllerManager: {onEvictionBlocked: Wait}
                """);

        int code = run("simulate", "--spec", spec.toString(), "--pool", "db", "--nodes", "2", "--pdb-blocked", "1", "--output", "json");

        assertThat(code).isEqualTo(1);
        assertThat(json().get("completed").asBoolean()).isFalse();
        assertThat(json().get("reason").asText()).contains("blocked by pod").contains("db-pdb");
    }

    @Test
    void anInvalidSpecExitsTwo() throws IOException {
        Path spec = tmp.resolve("bad.yaml");
        Files.writeString(spec, "kind: Nope\n");

        int code = run("simulate", "--spec", spec.toString(), "--pool", "x", "--nodes", "2");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("bad.yaml:1:");
    }

    @Test
    void anUnknownPoolIsAUsageError() {
        int code = run("simulate", "--spec", MULTI, "--pool", "nope", "--nodes", "2");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("no pool named \"nope\"");
    }

    @Test
    void textOutputShowsTheTimelineAndTheBound() {
        int code = run("simulate", "--spec", MULTI, "--pool", "gpu-worker", "--nodes", "2");

        assertThat(code).isZero();
        assertThat(out.toString()).contains("UPDATE_IN_PLACE").contains("lower bound").contains("completed after");
    }

    @Test
    void unhealthyMakesNodesFallIllAndTheTimelineShowsIt() {
        run("simulate", "--spec", MULTI, "--pool", "batch", "--nodes", "6", "--unhealthy", "1", "--create-seconds", "900");

        assertThat(out.toString()).contains("UNHEALTHY");
    }

    @Test
    void theSameSeedGivesTheSameTimeline() throws IOException {
        run("simulate", "--spec", MULTI, "--pool", "batch", "--nodes", "6", "--jitter", "0.5", "--crash", "0.3", "--seed", "7",
                "--output", "json");
        String first = out.toString();
        out.getBuffer().setLength(0);
        run("simulate", "--spec", MULTI, "--pool", "batch", "--nodes", "6", "--jitter", "0.5", "--crash", "0.3", "--seed", "7",
                "--output", "json");

        assertThat(out.toString()).isEqualTo(first);
    }
}
