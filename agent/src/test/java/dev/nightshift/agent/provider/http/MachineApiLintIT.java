package dev.nightshift.agent.provider.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The machine API's OpenAPI file passes Redocly's linter, its {@code recommended} rules, without
 * an error or a warning: what an adapter author's own tools would complain about. The pinned
 * {@code @redocly/cli} is installed with npm into {@code target/tools/} when missing (npm's cache
 * serves it again offline); without node or npm this test fails, never skips ({@code ./verify}
 * installs them).
 */
class MachineApiLintIT {

    /** Pinned: a new release may add rules. Needs Node.js 20.19+ (20.x) or 22.12+, npm 10+. */
    static final String REDOCLY_CLI_VERSION = "2.77.0";

    private static final Path SPEC = Path.of("src/main/resources/machine-api/v1.yaml").toAbsolutePath();
    private static final Path TOOL = Path.of("target/tools/redocly-cli-" + REDOCLY_CLI_VERSION).toAbsolutePath();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @BeforeAll
    static void installTheLinterWhenMissing() throws Exception {
        requireNode();
        if (Files.isExecutable(redocly(TOOL))) {
            return;
        }
        Files.createDirectories(TOOL.getParent());
        Path staging = Files.createTempDirectory(TOOL.getParent(), "staging-redocly-cli-");
        try {
            Result npm = run(staging, "npm", "install", "--prefix", staging.toString(), "--no-save", "--no-package-lock", "--no-audit",
                    "--no-fund", "--prefer-offline", "@redocly/cli@" + REDOCLY_CLI_VERSION);
            assertThat(npm.exit()).as("npm install @redocly/cli@%s:%n%s", REDOCLY_CLI_VERSION, npm.output()).isZero();
            assertThat(redocly(staging)).as("npm installed no redocly command").isExecutable();
            // Whole or not at all: a run stopped half-way leaves no half-installed linter behind.
            Files.move(staging, TOOL, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            if (!Files.isExecutable(redocly(TOOL))) { // else another test JVM installed it first
                throw e;
            }
        } finally {
            if (Files.exists(staging)) {
                deleteTree(staging);
            }
        }
    }

    @Test
    void theContractPassesTheRecommendedRulesWithoutAnErrorOrAWarning() throws Exception {
        JsonNode report = lint(SPEC);

        assertThat(report.path("version").asText()).isEqualTo(REDOCLY_CLI_VERSION);
        assertThat(problems(report)).isEmpty();
        assertThat(report.path("totals").path("errors").asInt(-1)).isZero();
        assertThat(report.path("totals").path("warnings").asInt(-1)).isZero();
        assertThat(report.path("totals").path("ignored").asInt(-1)).as("problems hidden by an ignore file").isZero();
    }

    @Test
    void aWarningFailsTheCheck() throws Exception {
        // The same file without its license: the linter must report it, or the test above proves nothing.
        String spec = Files.readString(SPEC, StandardCharsets.UTF_8);
        String unlicensed = spec.replaceFirst("(?m)^  license:\\n    name: .*\\n    url: .*\\n", "");
        assertThat(unlicensed).isNotEqualTo(spec);
        Path copy = Files.writeString(tmp.resolve("v1.yaml"), unlicensed, StandardCharsets.UTF_8);

        JsonNode report = lint(copy);

        assertThat(problems(report)).singleElement(InstanceOfAssertFactories.STRING).startsWith("warn info-license ");
        assertThat(report.path("totals").path("warnings").asInt()).isEqualTo(1);
    }

    /** {@code redocly lint --extends=recommended --format=json FILE}, run where no Redocly configuration is found. */
    private JsonNode lint(Path spec) throws Exception {
        Path cwd = Files.createDirectories(tmp.resolve("cwd"));
        Result lint = run(cwd, redocly(TOOL).toString(), "lint", "--extends=recommended", "--format=json", "--max-problems=1000", spec.toString());
        int start = lint.stdout().indexOf('{');
        assertThat(start).as("redocly lint printed no JSON report (exit %d):%n%s", lint.exit(), lint.output()).isNotNegative();
        return JSON.readTree(lint.stdout().substring(start));
    }

    /** Each problem as {@code severity rule line:column message}. */
    private static List<String> problems(JsonNode report) {
        List<String> problems = new ArrayList<>();
        for (JsonNode p : report.path("problems")) {
            JsonNode at = p.path("location").path(0).path("start");
            problems.add(p.path("severity").asText() + " " + p.path("ruleId").asText() + " " + at.path("line").asInt() + ":"
                    + at.path("col").asInt() + " " + p.path("message").asText());
        }
        return problems;
    }

    private static Path redocly(Path prefix) {
        return prefix.resolve("node_modules/.bin/redocly");
    }

    /** Node.js as the pinned release asks ({@code engines}: 20.19+ on 20, or 22.12+). */
    private static void requireNode() throws Exception {
        Result version = run(Path.of("").toAbsolutePath(), "node", "--version");
        Matcher m = Pattern.compile("v(\\d+)\\.(\\d+)").matcher(version.stdout());
        assertThat(m.find()).as("node --version: %s", version.output()).isTrue();
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        assertThat(major == 20 && minor >= 19 || major == 22 && minor >= 12 || major > 22)
                .as("@redocly/cli %s needs Node.js 20.19+ or 22.12+, not %s", REDOCLY_CLI_VERSION, version.stdout().strip()).isTrue();
    }

    private record Result(int exit, String stdout, String stderr) {
        String output() {
            return stdout + stderr;
        }
    }

    /** Fails, naming the command, when it cannot be started (not installed) or does not end within two minutes. */
    private static Result run(Path dir, String... command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
        builder.environment().put("REDOCLY_TELEMETRY", "off");
        builder.environment().put("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true");
        Path out = Files.createTempFile("machine-api-lint", ".out");
        Path err = Files.createTempFile("machine-api-lint", ".err");
        builder.redirectOutput(out.toFile()).redirectError(err.toFile());
        try {
            Process process;
            try {
                process = builder.start();
            } catch (IOException e) {
                throw new AssertionError(command[0] + " cannot be run (" + e.getMessage() + "): ./verify installs node and npm", e);
            }
            boolean ended = process.waitFor(2, TimeUnit.MINUTES);
            if (!ended) {
                process.destroyForcibly().waitFor();
            }
            assertThat(ended).as("%s did not end within 2 minutes", String.join(" ", command)).isTrue();
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
