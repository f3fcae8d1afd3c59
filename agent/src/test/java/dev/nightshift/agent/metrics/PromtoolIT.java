package dev.nightshift.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/** Prometheus's own checker on the alert rules: they parse, and their unit tests pass. */
class PromtoolIT {

    @TempDir
    Path tmp;

    private static String promtool(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of(PrometheusServer.binary("promtool").toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + "\n" + out).isZero();
        return out;
    }

    @Test
    void thePlainRulesFileChecks() throws Exception {
        assertThat(promtool(MonitoringFiles.RULES.getParent(), "check", "rules", MonitoringFiles.RULES.toString()))
                .contains("SUCCESS: 9 rules found");
    }

    @Test
    void theAlertUnitTestsPass() throws Exception {
        assertThat(promtool(MonitoringFiles.RULE_TESTS.getParent(), "test", "rules", MonitoringFiles.RULE_TESTS.toString()))
                .contains("SUCCESS");
    }

    @Test
    void thePrometheusRulesGroupsCheckToo() throws Exception {
        Path extracted = tmp.resolve("operator-rules.yaml");
        Files.writeString(extracted, new Yaml().dump(Map.of("groups", MonitoringFiles.ruleGroups(MonitoringFiles.PROMETHEUS_RULE))));

        assertThat(promtool(tmp, "check", "rules", extracted.toString())).contains("SUCCESS: 9 rules found");
    }
}
