package dev.nightshift.agent.metrics;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A real Prometheus (Debian's package) on loopback, scraping one target every second, with the
 * project's alert rules loaded. Its absence fails the test that needs it: CI installs it.
 */
public final class PrometheusServer implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final URI base;
    private final Path log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private PrometheusServer(Process process, URI base, Path log) {
        this.process = process;
        this.base = base;
        this.log = log;
    }

    /** The prometheus binary, from PATH or Debian's place; a missing one is a failure, not a skip. */
    static Path binary(String name) {
        for (String dir : (System.getenv().getOrDefault("PATH", "") + ":/usr/bin:/usr/local/bin").split(":")) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError(name + " is not installed: install Debian's prometheus package (.ci/run does)");
    }

    /**
     * Starts Prometheus scraping {@code target} (host:port) as job {@code nightshift}.
     */
    public static PrometheusServer start(Path dir, String target, Path rules) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                rule_files:
                - %s
                scrape_configs:
                - job_name: nightshift
                  scrape_interval: 1s
                  scrape_timeout: 900ms
                  static_configs:
                  - targets: ['%s']
                """.formatted(rules.toAbsolutePath(), target));
        Path log = dir.resolve("prometheus.log");
        Process process = new ProcessBuilder(binary("prometheus").toString(), "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn").redirectErrorStream(true).redirectOutput(log.toFile()).start();
        PrometheusServer server = new PrometheusServer(process, URI.create("http://127.0.0.1:" + port), log);
        try {
            Awaitility.await("Prometheus ready").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions().until(() -> {
                        if (!process.isAlive()) {
                            throw new IllegalStateException("prometheus exited: " + Files.readString(log));
                        }
                        return server.get("/-/ready").statusCode() == 200;
                    });
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    private HttpResponse<String> get(String pathAndQuery) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(base.resolve(pathAndQuery)).timeout(Duration.ofSeconds(20)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The answer of the query API: status "success" with data, or "error" with errorType and error. */
    /** Its base URL, e.g. {@code http://127.0.0.1:9090}. */
    public URI url() {
        return base;
    }

    JsonNode query(String promql) {
        return query(promql, null);
    }

    JsonNode query(String promql, Instant at) {
        try {
            String q = "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)
                    + (at == null ? "" : "&time=" + at.getEpochSecond());
            return JSON.readTree(get(q).body());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The samples of an instant vector query that must succeed; a scalar comes back as one value. */
    public List<Double> values(String promql) {
        JsonNode answer = query(promql);
        if (!"success".equals(answer.path("status").asText())) {
            throw new AssertionError(promql + ": " + answer);
        }
        JsonNode data = answer.path("data");
        List<Double> values = new ArrayList<>();
        if ("scalar".equals(data.path("resultType").asText())) {
            values.add(Double.parseDouble(data.path("result").get(1).asText()));
        } else {
            for (JsonNode sample : data.path("result")) {
                values.add(Double.parseDouble(sample.path("value").get(1).asText()));
            }
        }
        return values;
    }

    JsonNode api(String path) {
        try {
            return JSON.readTree(get(path).body());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    String log() throws IOException {
        return Files.readString(log);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
