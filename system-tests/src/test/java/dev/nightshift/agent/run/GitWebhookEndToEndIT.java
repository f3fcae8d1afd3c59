package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.ObjectMapper;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.git.Secret;
import dev.nightshift.agent.http.GitWebhookHandler;
import dev.nightshift.agent.http.WebhookVerifier;

/**
 * The Git webhook through a real agent: a push to the git daemon, then {@code POST /hooks/git} as
 * the Git host sends it. The agent polls only once an hour, so a commit taken within seconds was
 * taken because of the hook.
 */
class GitWebhookEndToEndIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String SECRET = "hook-secret-41d7";
    /** Only the webhook can make the agent poll during a test. */
    private static final Duration POLL_INTERVAL = Duration.ofHours(1);
    /** What "promptly" means: a poll and a reconcile, with room for a slow machine. */
    private static final Duration PROMPT = Duration.ofSeconds(10);
    /** Long against the milliseconds a triggered poll takes to start: a poll the hook caused would show. */
    private static final Duration QUIET = Duration.ofSeconds(3);
    /** A push event as GitHub sends it, with a marker to look for in the logs. */
    private static final byte[] PAYLOAD = """
            {"ref":"refs/heads/main","after":"payload-marker-9c1e5b","pusher":{"name":"someone"}}"""
            .getBytes(StandardCharsets.UTF_8);

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
              maintenance:
                windows: [{schedule: "0 0 * * * ?", duration: 1h, timeZone: UTC}]
            """;
    private static final String POOL = """
            apiVersion: nightshift.dev/v1alpha1
            kind: WorkerPool
            metadata: {name: web, cluster: e2e}
            spec:
              minimum: 2
              maximum: 4
              machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
            """;

    @TempDir
    Path tmp;

    private AgentHarness h;
    private String initial;

    @BeforeEach
    void start() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 2);
        h.work.write("cluster.yaml", CLUSTER);
        h.work.write("pools/web.yaml", POOL);
        initial = h.work.commitAndPush("initial");
        Path secretFile = Files.writeString(tmp.resolve("webhook-secret"), SECRET);
        AgentConfig base = TestAgentConfig.of(URI.create(h.daemon.url("specs.git")), "e2e", POLL_INTERVAL,
                Files.createTempDirectory(tmp, "cache"));
        AgentConfig config = base.with(AgentConfig.Webhook.secretFile(secretFile));
        // The harness closes it.
        h.agent = new Agent(config, h.kube.client(), h.provider, Clock.systemUTC(), r -> { });
        h.agent.start();
        // The poll at start: after it, none until the hook or an hour from now.
        await("the agent acting on the initial commit").atMost(Duration.ofSeconds(60))
                .until(() -> revision().equals(initial) && polls() == 1);
    }

    @AfterEach
    void stop() {
        h.close();
    }

    /** The commit the agent acts on, from {@code /status}. */
    private String revision() throws Exception {
        return JSON.readTree(get("/status")).path("revision").asText();
    }

    /** Polls the agent made so far, whatever their result, from {@code /metrics}. */
    private long polls() throws Exception {
        return get("/metrics").lines().filter(l -> l.startsWith("nightshift_git_polls_total{"))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    private String get(String path) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + h.agent.httpPort() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path).isEqualTo(200);
        return r.body();
    }

    private HttpResponse<String> hook(String signature) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + h.agent.httpPort() + "/hooks/git"))
                .header("X-GitHub-Event", "push").header(WebhookVerifier.GITHUB_SIGNATURE, signature)
                .POST(HttpRequest.BodyPublishers.ofByteArray(PAYLOAD)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String signedWith(String secret) throws Exception {
        Path file = Files.createTempFile("webhook", ".secret");
        try {
            return new WebhookVerifier(Secret.fromFile(Files.writeString(file, secret))).sign(PAYLOAD);
        } finally {
            Files.delete(file);
        }
    }

    private String pushAComment() throws Exception {
        h.work.write("cluster.yaml", CLUSTER + "# pushed before the hook\n");
        return h.work.commitAndPush("a comment");
    }

    @Test
    void aSignedHookAfterAPushMakesTheAgentTakeTheNewCommitPromptly() throws Exception {
        String pushed = pushAComment();

        HttpResponse<String> response = hook(signedWith(SECRET));

        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        await("the pushed commit acted on").atMost(PROMPT).pollInterval(Duration.ofMillis(100))
                .until(this::revision, pushed::equals);
        assertThat(polls()).as("the poll at start and the one the hook triggered").isEqualTo(2);
    }

    @Test
    void aHookWithABadSignatureIsRefusedAndTriggersNoPoll() throws Exception {
        String pushed = pushAComment();

        HttpResponse<String> response = hook(signedWith("not-" + SECRET));

        assertThat(response.statusCode()).isEqualTo(401);
        await("no poll after the refused hook").during(QUIET).atMost(QUIET.plusSeconds(5)).pollInterval(Duration.ofMillis(100))
                .until(() -> polls() == 1 && revision().equals(initial));
        // The commit was there to be taken: a good hook takes it.
        assertThat(hook(signedWith(SECRET)).statusCode()).isEqualTo(202);
        await("the pushed commit acted on after a good hook").atMost(PROMPT).until(this::revision, pushed::equals);
    }

    @Test
    void aRefusedHookIsLoggedWithoutItsPayload() throws Exception {
        // Everything the agent logs, at every level, while the hook is refused.
        Logger agentLog = (Logger) LoggerFactory.getLogger("dev.nightshift");
        Level level = agentLog.getLevel();
        boolean additive = agentLog.isAdditive();
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        agentLog.addAppender(log);
        agentLog.setLevel(Level.TRACE);
        agentLog.setAdditive(false);
        List<ILoggingEvent> events;
        try {
            assertThat(hook(signedWith("not-" + SECRET)).statusCode()).isEqualTo(401);
        } finally {
            agentLog.detachAppender(log);
            agentLog.setLevel(level);
            agentLog.setAdditive(additive);
            // The handler logs before it answers; other threads may still be appending, under the appender's lock.
            synchronized (log) {
                events = new ArrayList<>(log.list);
            }
        }

        assertThat(events).as("the handler's log").filteredOn(e -> e.getLoggerName().equals(GitWebhookHandler.class.getName()))
                .singleElement().satisfies(e -> {
                    assertThat(e.getLevel()).isEqualTo(Level.WARN);
                    assertThat(e.getFormattedMessage()).contains("rejected Git webhook from 127.0.0.1", "signature does not match");
                });
        assertThat(events).extracting(ILoggingEvent::getFormattedMessage).as("nothing the agent logged carries the payload")
                .noneMatch(m -> m.contains("payload-marker-9c1e5b") || m.contains("someone"));
    }
}
