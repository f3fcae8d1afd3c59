package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.nightshift.agent.reconcile.HandRun;
import dev.nightshift.spec.model.PoolRole;
import picocli.CommandLine;

class RollingUpdateCommandTest {

    private static final Path SPEC = Path.of("../examples/demo");
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = new CommandLine(new RollingUpdateCommand(List.of()));
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void kopsFlagsParseWithTheirDefaults() {
        RollingUpdateCommand command = new RollingUpdateCommand(List.of());
        new CommandLine(command).parseArgs("--spec", "dir", "--instance-group", "web,batch", "--instance-group", "gpu",
                "--instance-group-roles", "Node", "--cloudonly", "--force", "--node-interval", "30s", "--fail-on-drain-error=false");

        assertThat(command.instanceGroups).containsExactly("web", "batch", "gpu");
        assertThat(command.instanceGroupRoles).containsExactly("Node");
        assertThat(command.cloudOnly).isTrue();
        assertThat(command.force).isTrue();
        assertThat(command.yes).isFalse();
        assertThat(command.nodeInterval).isEqualTo("30s");
        assertThat(command.masterInterval).isEqualTo("15s");
        assertThat(command.validationTimeout).isEqualTo("15m");
        assertThat(command.failOnValidateError).isTrue();
        assertThat(command.failOnDrainError).isFalse();
    }

    @Test
    void theTimeoutsBecomeGiveUpTimesOnlyWhereTheRunIsToGoOnPastThem() {
        RollingUpdateCommand strict = new RollingUpdateCommand(List.of());
        new CommandLine(strict).parseArgs("--spec", "dir", "--drain-timeout", "2m", "--validation-timeout", "3m");
        RollingUpdateCommand lenient = new RollingUpdateCommand(List.of());
        new CommandLine(lenient).parseArgs("--spec", "dir", "--drain-timeout", "2m", "--validation-timeout", "3m",
                "--fail-on-drain-error=false", "--fail-on-validate-error=false", "--force");

        HandRun failing = strict.handRun(strict.timing(new PrintWriter(err)).orElseThrow());
        HandRun goingOn = lenient.handRun(lenient.timing(new PrintWriter(err)).orElseThrow());

        assertThat(failing.drainGiveUp()).as("the run fails instead (RunWatch)").isEmpty();
        assertThat(failing.validationGiveUp()).isEmpty();
        assertThat(failing.force()).isFalse();
        assertThat(goingOn.drainGiveUp()).contains(Duration.ofMinutes(2));
        assertThat(goingOn.validationGiveUp()).contains(Duration.ofMinutes(3));
        assertThat(goingOn.force()).isTrue();
    }

    @Test
    void eachRolesIntervalComesFromItsFlagMastersForControlPlanesAndApiservers() {
        RollingUpdateCommand command = new RollingUpdateCommand(List.of());
        new CommandLine(command).parseArgs("--spec", "dir", "--bastion-interval", "1s", "--master-interval", "2m", "--node-interval", "3s");

        HandRun run = command.handRun(command.timing(new PrintWriter(err)).orElseThrow());

        assertThat(run.intervals()).isEqualTo(Map.of(PoolRole.BASTION, Duration.ofSeconds(1), PoolRole.CONTROL_PLANE, Duration.ofMinutes(2),
                PoolRole.APISERVER, Duration.ofMinutes(2), PoolRole.NODE, Duration.ofSeconds(3)));
    }

    /** Issue 27: one picocli mixin, so that both commands take the provider and cluster flags under the same names and help. */
    @Test
    void runAndRollingUpdateTakeTheProviderAndClusterFlagsWithTheSameNamesAndHelp() {
        CommandLine main = Main.commandLine(List.of());
        CommandLine.Model.CommandSpec run = main.getSubcommands().get("run").getCommandSpec();
        CommandLine.Model.CommandSpec rollingUpdate = main.getSubcommands().get("rolling-update").getCommandSpec();

        for (String name : List.of("--config", "--cluster", "--provider", "--machine-api-url", "--machine-api-token-file", "--kubeconfig")) {
            assertThat(rollingUpdate.findOption(name)).as(name).isNotNull();
            assertThat(run.findOption(name)).as(name).isNotNull();
            assertThat(rollingUpdate.findOption(name).description()).as(name).isEqualTo(run.findOption(name).description());
            assertThat(rollingUpdate.findOption(name).paramLabel()).as(name).isEqualTo(run.findOption(name).paramLabel());
        }
    }

    @Test
    void theConfigurationsClusterIsUsedWithoutCluster(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path config = java.nio.file.Files.writeString(tmp.resolve("agent.yaml"), "cluster: elsewhere\nprovider: {type: http}\n");

        assertThat(run("--spec", SPEC.toString(), "--config", config.toString())).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).contains("no cluster elsewhere in the spec; it has demo");
    }

    @Test
    void anUnknownRoleIsAUsageErrorNamingTheRoles() {
        assertThat(run("--spec", SPEC.toString(), "--provider", "http", "--instance-group-roles", "worker")).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).contains("\"worker\" is not a pool role").contains("control-plane (kops: master)");
    }

    @Test
    void anUnknownPoolIsAUsageErrorNamingThePools() {
        assertThat(run("--spec", SPEC.toString(), "--provider", "http", "--instance-group", "nope")).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).contains("no pool nope in cluster").contains("cpu-worker");
    }

    @Test
    void cloudOnlyIsRefusedWithClusterApiSayingWhy() {
        assertThat(run("--spec", SPEC.toString(), "--provider", "cluster-api", "--cloudonly")).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).contains("--cloudonly cannot work with provider cluster-api").contains("Kubernetes API");
    }

    @Test
    void aBadDurationIsAUsageError() {
        assertThat(run("--spec", SPEC.toString(), "--provider", "http", "--drain-timeout", "soon")).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).contains("--drain-timeout must be a duration");
    }

    @Test
    void theSpecIsNamedOnce() {
        assertThat(run("--provider", "http")).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).contains("--spec DIR, or with --repo URL and --ref REF");
    }

    @Test
    void thePreviewHasKopsColumnsAndSaysYesIsNeeded() {
        List<RollingPreview.Row> rows = List.of(new RollingPreview.Row("bastion", PoolRole.BASTION, 0, 1, 1, 1, 1, 0),
                new RollingPreview.Row("cpu-worker", PoolRole.NODE, 2, 1, 3, 3, 6, 3));

        assertThat(RollingPreview.table(rows)).isEqualTo("""
                NAME        STATUS       NEEDUPDATE  READY  MIN  TARGET  MAX  NODES
                bastion     Ready        0           1      1    1       1    0
                cpu-worker  NeedsUpdate  2           1      3    3       6    3
                """);
        assertThat(RollingPreview.footer(rows)).contains("Must specify --yes to rolling-update.");
        assertThat(RollingPreview.footer(rows.subList(0, 1))).contains("No rolling-update required.");
    }

    @Test
    void progressPrintsOneLinePerChangeOffATerminal() {
        StringWriter text = new StringWriter();
        Progress progress = new Progress(new PrintWriter(text), false);

        progress.update("web", 0, 4, "updating");
        progress.update("web", 0, 4, "updating");
        progress.update("web", 2, 4, "draining web-3");

        assertThat(text.toString().lines()).containsExactly(
                "web          [--------------------]   0/4   updating",
                "web          [##########----------]   2/4   draining web-3");
    }
}
