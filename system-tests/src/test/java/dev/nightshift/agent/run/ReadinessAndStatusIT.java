package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.config.AgentConfigLoader;
import dev.nightshift.agent.git.SilentGitServer;

/**
 * What {@code /readyz} and {@code /status} answer when the agent has no good spec yet, or its
 * repository fails or hangs: over HTTP, as a kubelet's probe and an operator read them.
 */
class ReadinessAndStatusIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    /** A probe gives up after a few seconds; the agent must answer well within that. */
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
              maintenance:
                windows: [{schedule: "0 0 * * * ?", duration: 1h, timeZone: UTC}]
            """;

    private static String pool(String maximum) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: e2e}
                spec:
                  minimum: 2
                  maximum: %s
                  machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                """.formatted(maximum);
    }

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    private HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + h.agent.httpPort() + path)).timeout(PROBE_TIMEOUT)
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode status() throws Exception {
        HttpResponse<String> r = get("/status");
        assertThat(r.statusCode()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    @Test
    void readyzIsNotReadyWhileTheRepositorysOnlyCommitIsInvalid() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 2);
        h.work.write("cluster.yaml", CLUSTER);
        h.work.write("pools/web.yaml", pool("lots"));
        String invalid = h.work.commitAndPush("an invalid first commit");
        h.startAgent("e2e");
        await("the invalid commit polled").atMost(Duration.ofSeconds(60))
                .until(() -> status().path("latestCommit").asText().equals(invalid));

        HttpResponse<String> readyz = get("/readyz");

        assertThat(readyz.statusCode()).isEqualTo(503);
        assertThat(readyz.body()).isEqualTo("not ready: no good spec loaded yet\n");
    }

    @Test
    void readyzAnswersNotReadyPromptlyWhileTheFirstPollHangs() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 2);
        try (SilentGitServer git = new SilentGitServer()) {
            startAgent(URI.create(git.url("specs.git")));
            await("the first poll connected").atMost(Duration.ofSeconds(30)).until(() -> git.connections() > 0);

            HttpResponse<String> readyz = get("/readyz");

            assertThat(readyz.statusCode()).isEqualTo(503);
            assertThat(readyz.body()).isEqualTo("not ready: no good spec loaded yet\n");
        }
    }

    @Test
    void statusAnswersPromptlyWhileAPollHangs() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 2);
        try (SilentGitServer git = new SilentGitServer()) {
            startAgent(URI.create(git.url("specs.git")));
            await("the first poll connected").atMost(Duration.ofSeconds(30)).until(() -> git.connections() > 0);

            JsonNode status = status();

            assertThat(status.path("revision").isNull()).as("no commit acted on yet").isTrue();
            assertThat(status.path("latestCommit").isNull()).as("no commit seen yet").isTrue();
        }
    }

    @Test
    void lastErrorInStatusNamesTheRepositoryWhenAPollFails() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 2);
        h.work.write("cluster.yaml", CLUSTER);
        h.work.write("pools/web.yaml", pool("4"));
        String good = h.work.commitAndPush("good");
        h.startAgent("e2e");
        await("the good commit acted on").atMost(Duration.ofSeconds(60)).until(() -> status().path("revision").asText().equals(good));
        assertThat(status().path("lastError").isNull()).as("no error while the repository answers").isTrue();

        h.daemon.close();

        await("the failed poll in /status").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> status().path("lastError").asText(""), e -> !e.isEmpty());
        JsonNode failed = status();
        assertThat(failed.path("lastError").asText()).startsWith("cannot list " + h.daemon.url("specs.git") + "@main: ")
                .contains("Connection refused");
        assertThat(failed.path("revision").asText()).as("the last good commit stays in force").isEqualTo(good);
    }

    @Test
    void theConfiguredGitTimeoutEndsAPollOfAHungRepository() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 2);
        try (SilentGitServer git = new SilentGitServer()) {
            Path file = Files.writeString(tmp.resolve("agent.yaml"), """
                    git:
                      url: %s
                      pollInterval: 1h
                      timeout: 2s
                    cluster: e2e
                    http: {port: 0}
                    cacheDir: %s
                    """.formatted(git.httpUrl("specs.git"), tmp.resolve("cache")));
            AgentConfigLoader.Result loaded = new AgentConfigLoader().load(file);
            assertThat(loaded.errors()).isEmpty();
            h.agent = new Agent(loaded.config().orElseThrow(), h.kube.client(), h.provider, Clock.systemUTC(), r -> { });
            h.agent.start();

            // The default, 60 s, would keep /status silent well past this bound.
            await("the hung poll failed").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> status().path("lastError").asText(""), e -> !e.isEmpty());
            assertThat(status().path("lastError").asText()).startsWith("cannot list " + git.httpUrl("specs.git") + "@main: ")
                    .containsIgnoringCase("timed out");
        }
    }

    /** An agent on the harness's cluster, polling {@code gitUrl}. */
    private void startAgent(URI gitUrl) throws Exception {
        AgentConfig config = TestAgentConfig.of(gitUrl.toString(), "e2e", Files.createTempDirectory(tmp, "cache"));
        // The harness closes it.
        h.agent = new Agent(config, h.kube.client(), h.provider, Clock.systemUTC(), r -> { });
        h.agent.start();
    }
}
