package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import picocli.CommandLine;

class DiffCommandTest {

    private static final Path MULTI = Path.of("../examples/multi");
    private static final Path MULTI_NEXT = Path.of("../examples/multi-next");

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

    private Path copyOfMulti() throws IOException {
        Path dir = tmp.resolve("spec");
        Files.createDirectories(dir.resolve("pools"));
        try (var files = Files.walk(MULTI)) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                Files.copy(p, dir.resolve(MULTI.relativize(p).toString()));
            }
        }
        return dir;
    }

    @Test
    void validChangeExitsZeroAndReportsEveryPoolWithItsAction() throws IOException {
        int code = run("diff", "--old", MULTI.toString(), "--new", MULTI_NEXT.toString(), "--output", "json");

        assertThat(code).isZero();
        JsonNode pools = json().get("pools");
        assertThat(pools).extracting(p -> p.get("pool").asText() + "=" + p.get("action").asText())
                .containsExactly("bastion=KUBELET_RESTART", "batch=KUBELET_RESTART", "cpu-worker=ROLL", "gpu-worker=IN_PLACE");
        assertThat(json().get("errors")).isEmpty();
    }

    @Test
    void jsonCarriesTheContractFieldsForEachPool() throws IOException {
        run("diff", "--old", MULTI.toString(), "--new", MULTI_NEXT.toString(), "--output", "json");

        JsonNode cpu = json().get("pools").get(2);
        assertThat(cpu.get("cluster").asText()).isEqualTo("demo");
        assertThat(cpu.get("pool").asText()).isEqualTo("cpu-worker");
        assertThat(cpu.get("rollHashOld").asText()).matches("[0-9a-f]{32}");
        assertThat(cpu.get("rollHashNew").asText()).matches("[0-9a-f]{32}").isNotEqualTo(cpu.get("rollHashOld").asText());
        assertThat(cpu.get("kubeletHashOld").asText()).isNotEqualTo(cpu.get("kubeletHashNew").asText());
        assertThat(cpu.get("reasons")).extracting(r -> r.get("path").asText() + ":" + r.get("old").asText() + "->" + r.get("new").asText())
                .contains("spec.machine.image.version:1631.0.0->1632.0.0", "spec.kubernetes.version:1.31.4->1.31.5");
    }

    @Test
    void identicalSpecsGiveNoneForEveryPool() throws IOException {
        int code = run("diff", "--old", MULTI.toString(), "--new", MULTI.toString(), "--output", "json");

        assertThat(code).isZero();
        assertThat(json().get("pools")).extracting(p -> p.get("action").asText()).containsOnly("NONE");
    }

    @Test
    void rejectedChangeExitsThreeAndStillPrintsJson() throws IOException {
        Path next = copyOfMulti();
        Path gpu = next.resolve("pools/gpu-worker.yaml");
        Files.writeString(gpu, Files.readString(gpu).replace("p4d.24xlarge", "p5.48xlarge"));

        int code = run("diff", "--old", MULTI.toString(), "--new", next.toString(), "--output", "json");

        assertThat(code).isEqualTo(3);
        JsonNode gpuDecision = json().get("pools").get(3);
        assertThat(gpuDecision.get("action").asText()).isEqualTo("REJECTED");
        assertThat(gpuDecision.get("reasons").get(0).get("path").asText()).isEqualTo("spec.machine.type");
        assertThat(gpuDecision.get("reasons").get(0).get("message").asText()).contains("in-place");
    }

    @Test
    void invalidNewSpecExitsTwoWithErrorsNamingSideFileLineAndColumn() throws IOException {
        Path next = copyOfMulti();
        Path cpu = next.resolve("pools/cpu-worker.yaml");
        Files.writeString(cpu, Files.readString(cpu).replace("maxSurge: 1", "maxSurge: abc"));

        int code = run("diff", "--old", MULTI.toString(), "--new", next.toString(), "--output", "json");

        assertThat(code).isEqualTo(2);
        JsonNode error = json().get("errors").get(0);
        assertThat(error.get("side").asText()).isEqualTo("new");
        assertThat(error.get("file").asText()).isEqualTo("pools/cpu-worker.yaml");
        assertThat(error.get("line").asInt()).isEqualTo(7);
        assertThat(error.get("column").asInt()).isEqualTo(13);
        assertThat(error.get("path").asText()).isEqualTo("spec.maxSurge");
        assertThat(error.get("message").asText()).contains("must be an int >= 0 or a percentage").contains("\"abc\"");
        assertThat(json().get("pools")).isEmpty();
    }

    @Test
    void invalidSpecInTextModeListsTheErrorAsFileLineColumn() throws IOException {
        Path next = copyOfMulti();
        Path cpu = next.resolve("pools/cpu-worker.yaml");
        Files.writeString(cpu, Files.readString(cpu).replace("maxSurge: 1", "maxSurge: abc"));

        int code = run("diff", "--old", MULTI.toString(), "--new", next.toString());

        assertThat(code).isEqualTo(2);
        assertThat(out.toString()).contains("new: pools/cpu-worker.yaml:7:13: spec.maxSurge: must be an int >= 0");
    }

    @Test
    void textOutputShowsOneRowPerPoolAndEveryReason() {
        int code = run("diff", "--old", MULTI.toString(), "--new", MULTI_NEXT.toString());

        assertThat(code).isZero();
        assertThat(out.toString())
                .contains("CLUSTER", "POOL", "ACTION", "REASONS")
                .containsPattern("demo\\s+cpu-worker\\s+ROLL\\s+3–6 replaced\\s+\\[roll\\] spec.machine.image.version: 1631.0.0 -> 1632.0.0")
                .contains("[propagate] spec.labels.tier: (unset) -> frontend");
    }

    @Test
    void unknownClusterIsAUsageError() {
        int code = run("diff", "--old", MULTI.toString(), "--new", MULTI_NEXT.toString(), "--cluster", "nope");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("no cluster named \"nope\"");
    }

    @Test
    void clusterOptionLimitsTheReportToThatCluster() throws IOException {
        Path other = tmp.resolve("other.yaml");
        Files.writeString(other, Files.readString(MULTI.resolve("cluster.yaml")).replace("name: demo", "name: other"));
        Path both = copyOfMulti();
        Files.copy(other, both.resolve("other.yaml"));

        int code = run("diff", "--old", both.toString(), "--new", both.toString(), "--cluster", "other", "--output", "json");

        assertThat(code).isZero();
        assertThat(json().get("pools")).isEmpty();
    }

    /** A copy of multi-next whose cpu-worker rolls in waves with a check. */
    private Path multiNextInWaves() throws IOException {
        Path dir = tmp.resolve("next");
        try (var files = Files.walk(MULTI_NEXT)) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                Files.createDirectories(dir.resolve(MULTI_NEXT.relativize(p).toString()).getParent());
                Files.copy(p, dir.resolve(MULTI_NEXT.relativize(p).toString()));
            }
        }
        Path cpu = dir.resolve("pools/cpu-worker.yaml");
        Files.writeString(cpu, Files.readString(cpu) + """
                  rollout:
                    waves: [1, "10%", "50%", "100%"]
                    soak: 10m
                    healthChecks:
                    - name: error-rate
                      prometheus: {query: 'sum(rate(errors[5m]))', max: 0.01}
                    onFailure: Rollback
                """);
        return dir;
    }

    @Test
    void markdownShowsUnderARolledPoolsEtaTheWavesItRollsIn() throws IOException {
        int code = run("diff", "--old", MULTI.toString(), "--new", multiNextInWaves().toString(), "--output", "markdown");

        assertThat(code).as("stderr: %s", err).isZero();
        String md = out.toString();
        String cpu = md.lines().filter(l -> l.startsWith("- cpu-worker: ")).findFirst().orElseThrow();
        List<String> lines = md.lines().toList();
        assertThat(lines.get(lines.indexOf(cpu) + 1))
                .isEqualTo("  - in 4 waves, 3 soaks of 10m; checks: error-rate; on failure: Rollback");
        assertThat(md.lines().filter(l -> l.startsWith("  - in "))).as("the other pools roll as the canary").hasSize(1);
    }

    @Test
    void missingRequiredOptionIsAUsageError() {
        int code = run("diff", "--old", MULTI.toString());

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--new");
    }

    @Test
    void missingDirectoryIsInvalidInput() throws IOException {
        int code = run("diff", "--old", tmp.resolve("absent").toString(), "--new", MULTI.toString(), "--output", "json");

        assertThat(code).isEqualTo(2);
        assertThat(json().get("errors").get(0).get("side").asText()).isEqualTo("old");
        assertThat(json().get("errors").get(0).get("message").asText()).contains("no such file or directory");
    }
}
