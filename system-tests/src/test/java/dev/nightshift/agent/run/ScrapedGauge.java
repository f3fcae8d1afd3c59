package dev.nightshift.agent.run;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import com.sun.net.httpserver.HttpServer;

import dev.nightshift.agent.metrics.PrometheusServer;

/**
 * One gauge the test sets, served by an exporter and scraped by a real Prometheus, shared by a whole test class
 * ({@code @RegisterExtension static final}). A Prometheus takes about 6 s from start to its first sample (its target
 * discovery hands the first targets to the scrape loop only after a 5 s throttle), so one per test cost a class of
 * four tests 20 s. Prometheus starts before the class's first test, so that its wait for a first sample overlaps tests
 * that do not need it; {@link #stop()} stops it (a test of an unreachable Prometheus), and the next
 * {@link #prometheus()} starts a new one on a fresh data directory. Everything ends after the class.
 */
final class ScrapedGauge implements BeforeAllCallback, AfterAllCallback {

    private final String metric;
    private final AtomicReference<Double> value = new AtomicReference<>(0.0);
    private HttpServer exporter;
    private PrometheusServer prometheus;
    private Path dir;
    private int starts;

    ScrapedGauge(String metric) {
        this.metric = metric;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        start();
    }

    /** The running Prometheus, scraping the exporter and reading the gauge at {@code 0} (a test before may have raised it). */
    PrometheusServer prometheus() throws IOException {
        PrometheusServer running = start();
        set(0.0);
        // Until Prometheus has scraped the reset value, a query could still answer the previous test's raised one.
        await("Prometheus reads " + metric + " at 0").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> running.values(metric).equals(List.of(0.0)));
        return running;
    }

    private synchronized PrometheusServer start() throws IOException {
        if (exporter == null) {
            exporter = startExporter();
            dir = Files.createTempDirectory("nightshift-prometheus");
        }
        if (prometheus == null) {
            Path run = Files.createDirectories(dir.resolve("run-" + ++starts));
            Path rules = Files.writeString(run.resolve("rules.yml"), "groups: []\n");
            prometheus = PrometheusServer.start(run, "127.0.0.1:" + exporter.getAddress().getPort(), rules);
        }
        return prometheus;
    }

    /** What the exporter serves from now on; Prometheus reads it at its next scrape (every second). */
    void set(double v) {
        value.set(v);
    }

    /** Stops Prometheus (its address then refuses connections); the exporter goes on. */
    synchronized void stop() {
        if (prometheus != null) {
            prometheus.close();
            prometheus = null;
        }
    }

    private HttpServer startExporter() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/metrics", x -> {
            byte[] body = ("# TYPE " + metric + " gauge\n" + metric + " " + value.get() + "\n").getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        server.start();
        return server;
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) throws IOException {
        stop();
        if (exporter != null) {
            exporter.stop(0);
            exporter = null;
        }
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> {
                    try {
                        Files.delete(p);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
            dir = null;
        }
    }
}
