package dev.nightshift.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.nightshift.agent.report.RolloutProgressJson;
import dev.nightshift.strategies.model.RolloutProgress;

/** {@code health.prometheus} in the agent's configuration, and the rollout kept in a pool's record. */
class HealthConfigTest {

    private final AgentConfigLoader loader = new AgentConfigLoader();

    @Test
    void healthPrometheusIsRead() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", """
                health:
                  prometheus: {url: "https://prometheus.monitoring:9090", tokenFile: /var/run/secrets/prom/token, caFile: /etc/ca.pem, timeout: 3s}
                """);

        assertThat(r.errors()).isEmpty();
        assertThat(r.config().orElseThrow().health()).isEqualTo(new AgentConfig.Health(
                Optional.of(URI.create("https://prometheus.monitoring:9090")), Optional.of(Path.of("/var/run/secrets/prom/token")),
                Optional.of(Path.of("/etc/ca.pem")), Duration.ofSeconds(3)));
    }

    @Test
    void withoutHealthThereIsNoPrometheus() {
        assertThat(loader.parse("agent.yaml", "").config().orElseThrow().health()).isEqualTo(AgentConfig.Health.NONE);
    }

    @Test
    void aUrlWithATokenInItIsRefusedAtItsPlace() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", "health:\n  prometheus: {url: \"https://user:pw@prom:9090\"}\n");

        assertThat(r.errors()).singleElement().asString().startsWith("agent.yaml:2:21: health.prometheus.url: must not carry user info")
                .doesNotContain("pw");
    }

    @Test
    void anInlineTokenIsRefused() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", "health:\n  prometheus: {url: \"http://prom:9090\", token: abc}\n");

        assertThat(r.errors()).singleElement().asString().contains("health.prometheus.token", "secrets are never written");
    }

    @Test
    void anUnknownFieldIsRefused() {
        AgentConfigLoader.Result r = loader.parse("agent.yaml", "health:\n  prometheus: {uri: \"http://prom:9090\"}\n");

        assertThat(r.errors()).singleElement().asString().contains("health.prometheus.uri", "unknown field");
    }

    @Test
    void theRolloutOfARecordIsReadBackAsWritten() {
        RolloutProgress p = new RolloutProgress("1:abc", 20, 2, Optional.of(Instant.parse("2026-11-27T12:00:00Z")), Optional.empty(),
                Set.of("web-9", "web-7"), 3, Optional.of(new RolloutProgress.Halt("error-rate", "0.07", "<= 0.01", 3,
                        Instant.parse("2026-11-27T12:10:00Z"))));

        assertThat(RolloutProgressJson.read(RolloutProgressJson.write(p))).contains(p);
        assertThat(RolloutProgressJson.read("not json")).isEmpty();
        assertThat(RolloutProgressJson.describe(p.halt().orElseThrow())).isEqualTo("error-rate (0.07, must be <= 0.01) in wave 3");
    }
}
