package dev.nightshift.agent.health;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Where the rollout health checks ask Prometheus ({@code health.prometheus}).
 *
 * @param url       the server's base URL, e.g. {@code http://prometheus:9090}; {@code /api/v1/query} is appended
 * @param tokenFile a bearer token read on every query (a rotated token is used at once), never logged
 * @param caFile    PEM CA certificates trusted for {@code https://} instead of the JDK's
 * @param timeout   per query; a slower answer is unknown
 */
public record PrometheusEndpoint(URI url, Optional<Path> tokenFile, Optional<Path> caFile, Duration timeout) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    public static PrometheusEndpoint of(URI url) {
        return new PrometheusEndpoint(url, Optional.empty(), Optional.empty(), DEFAULT_TIMEOUT);
    }
}
