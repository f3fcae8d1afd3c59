package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

class RunCommandTest {

    @TempDir
    Path tmp;

    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = new CommandLine(new RunCommand(List.of()));
        cli.setOut(new PrintWriter(new StringWriter()));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void aMissingCaFileIsAUsageErrorNamingTheFileBeforeAnythingStarts() {
        Path missing = tmp.resolve("git-ca.pem");

        int code = run("--repo", "https://git.example.com/c.git", "--cluster", "prod", "--provider", "simulated",
                "--git-ca-file", missing.toString(), "--cache-dir", tmp.resolve("cache").toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).isEqualTo("CA file " + missing + ": no such file" + System.lineSeparator());
        assertThat(tmp.resolve("cache")).doesNotExist();
    }

    @Test
    void withoutAProviderRunIsAUsageErrorNamingTheProvidersBeforeAnythingStarts() {
        int code = run("--repo", "https://git.example.com/c.git", "--cluster", "prod", "--cache-dir", tmp.resolve("cache").toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).isEqualTo("no machine provider is named: set provider.type in the configuration or --provider;"
                + " this release has: simulated, cluster-api, http" + System.lineSeparator());
        assertThat(tmp.resolve("cache")).doesNotExist();
    }

    @Test
    void theSimulatedProviderWithoutTheSandboxOnTheClassPathIsAUsageErrorSayingWhereItComesFrom() {
        int code = run("--repo", "https://git.example.com/c.git", "--cluster", "prod", "--provider", "simulated",
                "--cache-dir", tmp.resolve("cache").toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).contains("provider simulated comes with the sandbox");
        assertThat(tmp.resolve("cache")).doesNotExist();
    }

    @Test
    void aRepositoryUrlWithACredentialIsAUsageErrorInOneLineThatNeverRepeatsIt() {
        int code = run("--repo", "https://ghp_s3cr3t@git.example.com/c.git", "--cluster", "prod", "--provider", "simulated",
                "--cache-dir", tmp.resolve("cache").toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).doesNotContain("ghp_s3cr3t").doesNotContain("Exception").hasLineCount(1);
        assertThat(tmp.resolve("cache")).doesNotExist();
    }

    @Test
    void aMachineApiUrlInClearToAnotherHostIsAUsageErrorInOneLine() {
        int code = run("--repo", "https://git.example.com/c.git", "--cluster", "prod", "--provider", "http",
                "--machine-api-url", "http://cloud.example.com/", "--cache-dir", tmp.resolve("cache").toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).doesNotContain("Exception").hasLineCount(1);
    }

    @Test
    void anUnknownProviderFlagIsAUsageError() {
        int code = run("--repo", "https://git.example.com/c.git", "--cluster", "prod", "--provider", "aws",
                "--cache-dir", tmp.resolve("cache").toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).isEqualTo("unknown provider \"aws\"; this release has: simulated, cluster-api, http" + System.lineSeparator());
    }

    @Test
    void theProviderFlagOverridesTheConfigurationsAndItsTypeIsChecked() throws Exception {
        Path config = java.nio.file.Files.writeString(tmp.resolve("agent.yaml"), "provider: {type: simulated}\n");

        int code = run("--config", config.toString(), "--repo", "https://git.example.com/c.git", "--cluster", "prod",
                "--provider", "none", "--cache-dir", tmp.resolve("cache").toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).isEqualTo("unknown provider \"none\"; this release has: simulated, cluster-api, http" + System.lineSeparator());
    }

    @Test
    void theProvidersOwnNodeUpdatesWithClusterApiAreAUsageErrorNamingJobAndNoneBeforeAnythingStarts() {
        int code = run("--repo", "https://git.example.com/c.git", "--cluster", "prod", "--provider", "cluster-api",
                "--node-updates", "provider", "--cache-dir", tmp.resolve("cache").toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).startsWith("nodeUpdates.type (or --node-updates): the cluster-api provider has no node updates"
                + " of its own").contains("use none (").contains("or job (");
        assertThat(tmp.resolve("cache")).doesNotExist();
    }

    @Test
    void theProviderFlagIsCheckedAgainstTheFilesNodeUpdates() throws Exception {
        Path config = java.nio.file.Files.writeString(tmp.resolve("agent.yaml"),
                "provider: {type: simulated}\nnodeUpdates: {type: provider}\n");

        int code = run("--config", config.toString(), "--repo", "https://git.example.com/c.git", "--cluster", "prod",
                "--provider", "cluster-api", "--cache-dir", tmp.resolve("cache").toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).startsWith("nodeUpdates.type (or --node-updates): the cluster-api provider has no node updates");
    }

    @Test
    void jobNodeUpdatesByFlagWithoutTheirSettingsAreAUsageErrorNamingNodeUpdatesJob() {
        int code = run("--repo", "https://git.example.com/c.git", "--cluster", "prod", "--provider", "cluster-api",
                "--node-updates", "job", "--cache-dir", tmp.resolve("cache").toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).startsWith("nodeUpdates.type (or --node-updates): job needs nodeUpdates.job in the configuration"
                + " file: at least its image and command");
        assertThat(tmp.resolve("cache")).doesNotExist();
    }

    @Test
    void anUnknownNodeUpdatesFlagIsAUsageErrorNamingTheTypes() {
        int code = run("--repo", "https://git.example.com/c.git", "--cluster", "prod", "--provider", "simulated",
                "--node-updates", "ssh", "--cache-dir", tmp.resolve("cache").toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).isEqualTo("nodeUpdates.type (or --node-updates): unknown node updates \"ssh\"; one of provider,"
                + " job, none" + System.lineSeparator());
    }

    @Test
    void theHttpProviderWithoutItsUrlOrTokenFileIsAUsageErrorNamingBoth() {
        int code = run("--repo", "https://git.example.com/c.git", "--cluster", "prod", "--provider", "http",
                "--machine-api-url", "http://127.0.0.1:9500", "--cache-dir", tmp.resolve("cache").toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).isEqualTo("provider http needs the machine API's URL (--machine-api-url or provider.http.url)"
                + " and its token file (--machine-api-token-file or provider.http.tokenFile)" + System.lineSeparator());
        assertThat(tmp.resolve("cache")).doesNotExist();
    }

    @Test
    void anUnreadableTokenFileIsAUsageErrorNamingTheFile() {
        Path token = tmp.resolve("token");

        int code = run("--repo", "https://git.example.com/c.git", "--cluster", "prod", "--provider", "http",
                "--machine-api-url", "http://127.0.0.1:9500", "--machine-api-token-file", token.toString(),
                "--cache-dir", tmp.resolve("cache").toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).isEqualTo("the machine API's token file " + token + " cannot be read" + System.lineSeparator());
    }

    @Test
    void aMachineApiUrlWithUserInfoIsRefusedWithoutRepeatingIt() {
        int code = run("--repo", "https://git.example.com/c.git", "--cluster", "prod", "--provider", "http",
                "--machine-api-url", "https://admin:hunter2@machines.example.com", "--cache-dir", tmp.resolve("cache").toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).startsWith("--machine-api-url must be an http:// or https:// URL").doesNotContain("hunter2");
    }

    @Test
    void machineApiFlagsWithAnotherProviderAreAUsageError() {
        int code = run("--repo", "https://git.example.com/c.git", "--cluster", "prod", "--provider", "simulated",
                "--machine-api-url", "http://127.0.0.1:9500", "--cache-dir", tmp.resolve("cache").toString());

        assertThat(code).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).startsWith("--machine-api-url and --machine-api-token-file are for provider http");
    }
}
