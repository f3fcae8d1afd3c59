package dev.nightshift.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * Runs the shaded jar itself: shading problems (signatures, service files, missing classes) show
 * only there, never in the classes the unit tests load.
 */
class JarIT {

    private static final Path JAR = Path.of(System.getProperty("nightshift.jar", "target/nightshift.jar"));
    private static final Path EXAMPLES = Path.of(System.getProperty("nightshift.examples", "../examples"));

    private record Result(int exitCode, String stdout, String stderr) {
    }

    private static Result runJar(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the jar finished").isTrue();
        return new Result(process.exitValue(),
                new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void helpListsTheCommands() throws Exception {
        Result r = runJar("--help");

        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout()).contains("Usage: nightshift").contains("diff").contains("simulate");
    }

    @Test
    void versionNamesTheBuiltVersion() throws Exception {
        Result r = runJar("--version");

        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout()).startsWith("nightshift 0.");
    }

    @Test
    void diffOfTheBundledExamplesRunsFromTheJar() throws Exception {
        Result r = runJar("diff", "--old", EXAMPLES.resolve("multi").toString(),
                "--new", EXAMPLES.resolve("multi-next").toString(), "--output", "json");

        assertThat(r.exitCode()).as(r.stderr()).isZero();
        assertThat(r.stdout()).contains("\"pool\":\"cpu-worker\",\"action\":\"ROLL\"");
    }

    @Test
    void simulateRunsFromTheJar() throws Exception {
        Result r = runJar("simulate", "--spec", EXAMPLES.resolve("multi").toString(), "--pool", "cpu-worker", "--nodes", "3",
                "--output", "json");

        assertThat(r.exitCode()).as(r.stderr()).isZero();
        assertThat(r.stdout()).contains("\"peakNodes\":4").contains("\"violations\":[]");
    }
}
