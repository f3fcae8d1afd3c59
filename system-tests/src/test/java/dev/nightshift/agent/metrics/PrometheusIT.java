package dev.nightshift.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
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
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import dev.nightshift.sandbox.demo.Demo;
import dev.nightshift.sandbox.demo.DemoEnd;
import dev.nightshift.sandbox.demo.EmbeddedWorld;
import dev.nightshift.agent.git.GitWork;

/**
 * The agent on the demo's embedded setup, scraped by a real Prometheus: every dashboard and alert
 * expression evaluates against what the agent exports, and the values tell the rollout's story. The
 * same run is the simulated cloud's check of the demo's end ({@link DemoEnd}).
 */
class PrometheusIT {

    /** Metrics Prometheus makes itself about the scrape, not the agent. */
    private static final Set<String> PROMETHEUS_OWN = Set.of("up");

    @TempDir
    Path tmp;

    private static String scrape(int port) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/metrics")).header("Accept", "text/plain").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    private static double single(PrometheusServer prometheus, String promql) {
        List<Double> values = prometheus.values(promql);
        assertThat(values).as(promql).hasSize(1);
        return values.get(0);
    }

    @Test
    void everyDashboardAndAlertExpressionEvaluatesAndTellsTheRolloutsStory() throws Exception {
        Path demoDir = Files.createDirectories(tmp.resolve("demo"));
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        ExecutorService runner = Executors.newSingleThreadExecutor();
        Instant started = Instant.now();
        try (Demo demo = new Demo(new Demo.Options(0, true, Duration.ofSeconds(240), Optional.of(demoDir)),
                new PrintStream(screen, true, StandardCharsets.UTF_8))) {
            Future<Integer> run = runner.submit(demo::run);
            int port = Awaitility.await("the demo's agent listening").atMost(Duration.ofSeconds(60))
                    .until(demo::httpPort, Optional::isPresent).get();
            try (PrometheusServer prometheus = PrometheusServer.start(Files.createDirectories(tmp.resolve("prometheus")),
                    "127.0.0.1:" + port, MonitoringFiles.RULES)) {
                Awaitility.await("Prometheus scrapes the agent").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                        .until(() -> prometheus.values("up{job=\"nightshift\"} == 1").size() == 1);

                assertThat(run.get(240, TimeUnit.SECONDS)).as(screen.toString(StandardCharsets.UTF_8)).isZero();
                // The story's end as the cluster saw it, checked on this run rather than on another run of the same story.
                DemoEnd.assertEveryPoolRolled(demo, demoDir, screen.toString(StandardCharsets.UTF_8), EmbeddedWorld.Machines.SIMULATED);
                // The agent keeps running after the story's end; wait for a scrape of the finished state.
                Awaitility.await("the finished rollout scraped").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                        .until(() -> prometheus.values("sum(nightshift_pool_nodes{state=\"outdated\"}) == 0").size() == 1
                                && prometheus.values("min(nightshift_pool_rollout_progress_ratio) == 1").size() == 1
                                && prometheus.values("sum(nightshift_pool_nodes{state=\"current\"}) == 10").size() == 1);
                long since = Math.max(60, Duration.between(started, Instant.now()).toSeconds() + 30);
                String range = "[" + since + "s:1s]";

                // During the rollout nodes were outdated and progress below 1; both came back.
                assertThat(single(prometheus, "max_over_time(sum(nightshift_pool_nodes{state=\"outdated\"})" + range + ")"))
                        .isGreaterThan(0);
                assertThat(single(prometheus, "min_over_time(min(nightshift_pool_rollout_progress_ratio)" + range + ")"))
                        .isLessThan(1);
                assertThat(single(prometheus, "sum(nightshift_pool_nodes{state=\"outdated\"})")).isZero();
                assertThat(single(prometheus, "min(nightshift_pool_rollout_progress_ratio)")).isEqualTo(1.0);
                assertThat(single(prometheus, "max_over_time(sum(nightshift_pool_rollout_in_progress)" + range + ")"))
                        .isGreaterThan(0);
                // Every node of the demo was updated once, and the drains and durations were recorded.
                assertThat(single(prometheus, "sum(nightshift_node_updates_total{result=\"success\"})")).isEqualTo(10);
                assertThat(prometheus.values("sum(nightshift_node_updates_total{result=\"failure\"}) > 0")).as("no failed update").isEmpty();
                assertThat(single(prometheus, "sum(nightshift_node_update_duration_seconds_count)")).isEqualTo(10);
                assertThat(single(prometheus, "sum(nightshift_drain_duration_seconds_count)")).isGreaterThan(0);
                assertThat(single(prometheus, "sum(nightshift_evictions_total{result=\"ok\"})")).isGreaterThan(0);
                // The window was open the whole time nodes were outdated, not only once the rollout was done:
                // at every second of the range with outdated nodes, a window sample, and every one of them 1.
                String rolling = "(sum(nightshift_pool_nodes{state=\"outdated\"}) > 0)";
                String windowWhileRolling = "(nightshift_window_open and on() " + rolling + ")" + range;
                double rollingSeconds = single(prometheus, "count_over_time(" + rolling + range + ")");
                assertThat(rollingSeconds).as("seconds with outdated nodes").isGreaterThanOrEqualTo(5);
                assertThat(single(prometheus, "count_over_time(" + windowWhileRolling + ")"))
                        .as("seconds with outdated nodes and a window sample").isEqualTo(rollingSeconds);
                assertThat(single(prometheus, "min_over_time(" + windowWhileRolling + ")")).as("the window gauge during the rollout")
                        .isEqualTo(1.0);
                assertThat(single(prometheus, "nightshift_window_open")).isEqualTo(1.0);
                assertThat(single(prometheus, "nightshift_spec_valid")).isEqualTo(1.0);
                assertThat(single(prometheus, "time() - nightshift_git_last_sync_timestamp_seconds")).isLessThan(60);
                assertThat(prometheus.values("nightshift_git_revision_info")).hasSize(1);
                assertThat(single(prometheus, "sum(nightshift_reconcile_duration_seconds_count{result=\"ok\"})")).isGreaterThan(0);

                // Every expression reads only what the agent exports, parses, and evaluates.
                Set<String> exported = MonitoringFiles.exportedNames(scrape(port));
                List<MonitoringFiles.Expression> expressions = new ArrayList<>(MonitoringFiles.dashboardExpressions());
                List<MonitoringFiles.Expression> alerts = MonitoringFiles.alertExpressions();
                expressions.addAll(alerts);
                assertThat(expressions).hasSizeGreaterThan(30);
                for (MonitoringFiles.Expression e : expressions) {
                    String promql = MonitoringFiles.resolved(e.promql());
                    assertThat(MonitoringFiles.metricNames(promql)).as(e.source() + ": " + promql).isNotEmpty()
                            .allSatisfy(name -> assertThat(exported.contains(name) || PROMETHEUS_OWN.contains(name))
                                    .as(e.source() + " reads " + name + ", which the agent does not export").isTrue());
                    JsonNode answer = prometheus.query(promql);
                    assertThat(answer.path("status").asText()).as(e.source() + ": " + promql + " -> " + answer).isEqualTo("success");
                }
                // The pool variable's query finds the demo's pools.
                assertThat(prometheus.api("/api/v1/label/pool/values?match[]=nightshift_pool_nodes").path("data"))
                        .extracting(JsonNode::asText).contains("batch", "cpu-worker", "gpu-worker", "bastion");

                // Healthy: no alert expression returns anything, and the rules loaded into Prometheus evaluate.
                for (MonitoringFiles.Expression alert : alerts) {
                    assertThat(prometheus.values(alert.promql())).as(alert.source() + " while healthy").isEmpty();
                }
                Awaitility.await("the rules evaluated").atMost(Duration.ofSeconds(30)).until(() -> {
                    JsonNode groups = prometheus.api("/api/v1/rules").path("data").path("groups");
                    List<String> health = new ArrayList<>();
                    groups.forEach(g -> g.path("rules").forEach(r -> health.add(r.path("health").asText())));
                    return health.size() == alerts.size() && health.stream().allMatch("ok"::equals);
                });

                // A broken commit pushed with the real git binary: the spec-invalid alert's expression fires.
                Path clone = demoDir.resolve("specs");
                Files.writeString(clone.resolve("pools/batch.yaml"),
                        Files.readString(clone.resolve("pools/batch.yaml")).replace("maxSurge: \"25%\"", "maxSurge: lots"));
                GitWork.open(clone).commitAndPush("a broken commit");
                MonitoringFiles.Expression invalid = alerts.stream().filter(a -> a.source().equals("alert NightshiftSpecInvalid"))
                        .findFirst().orElseThrow();
                Awaitility.await("the spec-invalid alert expression returns a series").atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(500)).until(() -> prometheus.values(invalid.promql()).size() == 1);
                assertThat(single(prometheus, "nightshift_spec_errors")).isGreaterThan(0);
                assertThat(single(prometheus, "sum(nightshift_pool_nodes{state=\"current\"})")).as("nothing was touched").isEqualTo(10);
            }
        } finally {
            runner.shutdownNow();
        }
    }
}
