package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import picocli.CommandLine;

/**
 * Runs the shaded jar itself: shading problems (signatures, service files, missing classes) show
 * only there, never in the classes the unit tests load.
 */
class JarIT {

    private static final Path JAR = Path.of(System.getProperty("nightshift.jar", "../cli/target/nightshift.jar"));
    private static final Path EXAMPLES = Path.of(System.getProperty("nightshift.examples", "../examples"));

    private record Result(int exitCode, String stdout, String stderr) {
    }

    private static Result runJar(String... args) throws IOException, InterruptedException {
        List<String> command = JavaCommand.jar(JAR);
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

    /**
     * Picocli formats descriptions with {@code String.format}: a lone {@code %} (as in "10% jitter")
     * prints WARN lines on stderr and the raw text. Every command the CLI has is checked, so a new
     * one is covered without being listed here.
     */
    @ParameterizedTest(name = "nightshift {0} --help")
    @MethodSource("commands")
    void everyCommandsHelpPrintsCleanlyWithoutWarnings(String command) throws Exception {
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.removeIf(String::isEmpty);
        args.add("--help");

        Result r = runJar(args.toArray(String[]::new));

        assertThat(r.exitCode()).as(r.stderr()).isZero();
        assertThat(r.stdout()).contains("Usage: nightshift" + (command.isEmpty() ? "" : " " + command));
        assertThat(r.stderr()).as("stderr").isEmpty();
        assertThat(r.stdout()).doesNotContain("WARN").doesNotContain("%n");
    }

    /** The root command ("") and every subcommand, nested ones included, as the words that call it. */
    static Stream<String> commands() {
        return Stream.concat(Stream.of(""), subcommands(Main.commandLine(), ""));
    }

    private static Stream<String> subcommands(CommandLine parent, String prefix) {
        return parent.getSubcommands().entrySet().stream()
                .flatMap(e -> Stream.concat(Stream.of(prefix + e.getKey()), subcommands(e.getValue(), prefix + e.getKey() + " ")));
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
    void diffOfTwoCommitsRunsFromTheJar(@org.junit.jupiter.api.io.TempDir Path repo) throws Exception {
        git(repo, "init", "-q", "-b", "main");
        copy(EXAMPLES.resolve("multi"), repo.resolve("specs"));
        git(repo, "add", "-A");
        git(repo, "-c", "user.email=test@nightshift.dev", "-c", "user.name=test", "commit", "-q", "-m", "multi");
        copy(EXAMPLES.resolve("multi-next"), repo.resolve("specs"));
        git(repo, "add", "-A");
        git(repo, "-c", "user.email=test@nightshift.dev", "-c", "user.name=test", "commit", "-q", "-m", "multi-next");

        Result r = runJar("diff", "--repo", repo.toString(), "--from", "HEAD~1", "--to", "HEAD", "--path", "specs", "--output", "markdown");

        assertThat(r.exitCode()).as(r.stderr()).isZero();
        assertThat(r.stdout()).startsWith("<!-- nightshift-diff -->").contains("**cpu-worker** · ROLL · 3–6 nodes replaced");
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = java.nio.file.Files.walk(from)) {
            for (Path f : files.filter(java.nio.file.Files::isRegularFile).toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                java.nio.file.Files.createDirectories(target.getParent());
                java.nio.file.Files.copy(f, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static void git(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + ": " + output).isZero();
    }

    @Test
    void simulateRunsFromTheJar() throws Exception {
        Result r = runJar("simulate", "--spec", EXAMPLES.resolve("multi").toString(), "--pool", "cpu-worker", "--nodes", "3",
                "--output", "json");

        assertThat(r.exitCode()).as(r.stderr()).isZero();
        assertThat(r.stdout()).contains("\"peakNodes\":4").contains("\"violations\":[]");
    }
}
