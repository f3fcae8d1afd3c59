package dev.nightshift.sandbox.cli;

import java.net.URI;

import dev.nightshift.agent.config.AgentConfig;
import picocli.CommandLine.Option;

/** {@code --prometheus-url}, shared by {@code demo} and {@code sandbox}: where their agent's health checks ask. */
final class HealthOptions {

    @Option(names = "--prometheus-url", paramLabel = "URL",
            description = "The Prometheus the rollout health checks (spec rollout.healthChecks) query, e.g. http://127.0.0.1:9090.")
    private URI prometheusUrl;

    /** The agent configuration's {@code health:}: none without the flag. */
    AgentConfig.Health health() {
        return prometheusUrl == null ? AgentConfig.Health.NONE : AgentConfig.Health.NONE.withPrometheusUrl(prometheusUrl);
    }
}
