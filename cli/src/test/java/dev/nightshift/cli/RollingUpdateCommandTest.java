package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

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
