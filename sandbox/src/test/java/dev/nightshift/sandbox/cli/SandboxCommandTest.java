package dev.nightshift.sandbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import picocli.CommandLine;

/**
 * {@code nightshift sandbox}'s refusals of combinations that make no sense: each exits 2 with one line saying why,
 * before anything starts (the spec directory named here does not even exist).
 */
class SandboxCommandTest {

    private record Run(int exitCode, String out, String err) {
    }

    private static Run sandbox(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine command = new CommandLine(new SandboxCommand());
        command.setOut(new PrintWriter(out, true));
        command.setErr(new PrintWriter(err, true));
        int code = command.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--no-agent --provider simulated --spec /no/such/spec | --provider simulated needs the sandbox's agent",
        "--no-agent --provider cluster-api | --provider cluster-api makes a MachineDeployment of each of the spec's pools: it needs --spec",
        "--no-agent --provider cluster-api --spec /no/such/spec --machine-api-pool-label | not with --provider cluster-api",
        "--provider cluster-api --spec /no/such/spec --machine-api-pool-label | not with --provider cluster-api",
        "--spec /no/such/spec --machine-api-pool-label | not with --provider simulated",
        "--no-agent --provider cluster-api --spec /no/such/spec --bulk-pods-per-node 3 | --bulk-pods-per-node N (N >= 0) goes with --no-agent",
    })
    void aCombinationThatMakesNoSenseExitsTwoSayingWhy(String args, String message) {
        Run run = sandbox(args.split(" "));

        assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isEqualTo(2);
        assertThat(run.err()).contains(message);
        assertThat(run.out()).as("no banner").doesNotContain("Kubernetes API");
    }

    @Test
    void theHelpNamesTheNewOptionsAndTheAgentConfigurationKey() {
        Run help = sandbox("--help");

        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("--machine-api-pool-label", "--provider cluster-api", "agentConfig", "DIR/agent.yaml");
    }

    @Test
    void anAgentConfigFragmentWithASectionOfTheSandboxsOwnExitsTwoNamingFileAndLine(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
            throws Exception {
        java.nio.file.Path fragment = java.nio.file.Files.writeString(tmp.resolve("notify.yaml"), """
                notifications:
                  slack: {webhookUrlFile: /var/run/secrets/slack/url}
                cluster: other
                """);

        Run run = sandbox("--spec", "/no/such/spec", "--agent-config", fragment.toString());

        assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isEqualTo(2);
        assertThat(run.err()).contains("notify.yaml:3:10: cluster: is the sandbox's own; a fragment sets only notifications,"
                + " validation, webhook, dryRun");
        assertThat(run.out()).as("no banner").doesNotContain("Kubernetes API");
    }
}
