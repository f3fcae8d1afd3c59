package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import picocli.CommandLine;

/**
 * {@code pause}, {@code resume} and {@code history} name their pool as {@code POOL} or {@code --pool NAME}; a wrong
 * combination is refused as a usage error before any cluster is asked (the kubeconfig here points nowhere).
 */
class PoolSelectionTest {

    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) throws Exception {
        // A cluster nobody serves: a command that got as far as asking it would fail otherwise than with exit 2.
        Path kubeconfig = Files.writeString(tmp.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
                users: [{name: u, user: {token: t}}]
                contexts: [{name: x, context: {cluster: c, user: u}}]
                current-context: x
                """);
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        String[] all = java.util.stream.Stream.concat(java.util.Arrays.stream(args), java.util.stream.Stream.of("--kubeconfig",
                kubeconfig.toString())).toArray(String[]::new);
        return cli.execute(all);
    }

    @ParameterizedTest
    @ValueSource(strings = {"pause", "resume", "history"})
    void twoDifferentPoolsAreAUsageError(String command) throws Exception {
        assertThat(run(command, "web", "--pool", "db")).isEqualTo(2);
        assertThat(err.toString()).contains("Two different pools given: POOL web and --pool db; give one");
    }

    @ParameterizedTest
    @ValueSource(strings = {"pause", "resume", "history"})
    void noPoolIsAUsageError(String command) throws Exception {
        assertThat(run(command)).isEqualTo(2);
        assertThat(err.toString()).contains("Missing the pool: give POOL (or --pool NAME)");
    }

    @Test
    void thePositionalFormAndTheOptionParseAlike() {
        CommandLine.ParseResult positional = Main.commandLine().parseArgs("resume", "web");
        CommandLine.ParseResult option = Main.commandLine().parseArgs("resume", "--pool", "web");
        CommandLine.ParseResult both = Main.commandLine().parseArgs("resume", "web", "--pool", "web");

        assertThat(positional.subcommand().matchedPositionalValue(0, "")).isEqualTo("web");
        assertThat(option.subcommand().matchedOptionValue("--pool", "")).isEqualTo("web");
        assertThat(both.subcommand().matchedPositionalValue(0, "")).isEqualTo(both.subcommand().matchedOptionValue("--pool", ""));
    }
}
