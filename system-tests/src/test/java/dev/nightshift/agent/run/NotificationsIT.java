package dev.nightshift.agent.run;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.notify.EventType;
import dev.nightshift.agent.notify.Forge;
import dev.nightshift.agent.notify.NotificationSettings;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;

/**
 * Issue 28 end to end: the agent, in-process against the embedded API server and a git daemon, rolls pools while
 * WireMock plays GitHub, GitLab, Gitea, a webhook receiver and Slack, each stubbed with the answer its documentation
 * gives. What was sent, and in which order, is read from WireMock's request journal.
 */
class NotificationsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "forge-token-4f1c9e7a2b";
    private static final String SECRET = "webhook-secret-9d8c7b6a5f4e3d2c";
    private static final ScenarioSpecs.Pool WEB = ScenarioSpecs.web().with("minimum", "2").with("maximum", "4").surgingOneAtATime();
    private static final ScenarioSpecs.Pool API = new ScenarioSpecs.Pool("api",
            List.of(new ScenarioSpecs.Field("minimum", "1"), new ScenarioSpecs.Field("maximum", "2")), "1631.0.0").surgingOneAtATime();

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;
    private WireMockServer wireMock;
    private Path tokenFile;
    private Path secretFile;
    private Path slackUrlFile;
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

    @BeforeEach
    void start() throws Exception {
        wireMock = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        wireMock.start();
        // GitHub and Gitea answer 201 with the status; GitLab 201 with its commit status; Slack 200 "ok"; a receiver 204.
        wireMock.stubFor(post(urlPathMatching("/github/repos/org/fleet-specs/statuses/[0-9a-f]{40}")).willReturn(aResponse()
                .withStatus(201).withHeader("Content-Type", "application/json").withBody("{\"id\":1,\"context\":\"nightshift/e2e\"}")));
        wireMock.stubFor(post(urlPathMatching("/gitea/api/v1/repos/org/fleet-specs/statuses/[0-9a-f]{40}")).willReturn(aResponse()
                .withStatus(201).withHeader("Content-Type", "application/json").withBody("{\"id\":1,\"context\":\"nightshift/e2e\"}")));
        wireMock.stubFor(post(urlPathMatching("/slack/services/T0/B0/XYZ")).willReturn(aResponse().withStatus(200).withBody("ok")));
        wireMock.stubFor(post(urlPathMatching("/hook")).willReturn(aResponse().withStatus(204)));
        tokenFile = Files.writeString(tmp.resolve("token"), TOKEN + "\n");
        secretFile = Files.writeString(tmp.resolve("secret"), SECRET + "\n");
        slackUrlFile = Files.writeString(tmp.resolve("slack-url"), url("/slack/services/T0/B0/XYZ") + "\n");
        logs.start();
        ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).addAppender(logs);
    }

    @AfterEach
    void stop() {
        ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
        wireMock.stop();
    }

    private URI url(String path) {
        return URI.create("http://127.0.0.1:" + wireMock.port() + path);
    }

    private NotificationSettings settings(Forge forge, String apiPath, Duration timeout) {
        return new NotificationSettings(Optional.of(new NotificationSettings.CommitStatusTarget(forge, url(apiPath),
                forge == Forge.GITLAB ? "platform/fleet-specs" : "org/fleet-specs", tokenFile)),
                List.of(new NotificationSettings.WebhookTarget(url("/hook"), secretFile, EnumSet.allOf(EventType.class))),
                Optional.of(new NotificationSettings.SlackTarget(slackUrlFile, Set.of(EventType.ROLLOUT_STARTED, EventType.POOL_FAILED,
                        EventType.ROLLOUT_COMPLETED, EventType.SPEC_INVALID))),
                Optional.empty(), Optional.of(URI.create("http://127.0.0.1:9400/status")), timeout, 100);
    }

    /** Two pools, web (2 nodes) and api (1), adopted at the first commit, the agent notifying as {@code settings} says. */
    private void startTwoPools(SimulatedMachineProvider.Behaviour cloud, NotificationSettings settings) throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 2, cloud);
        h.provider.seed("api", "api-1", Optional.empty(), Optional.empty());
        h.work.write("cluster.yaml", ScenarioSpecs.CLUSTER);
        h.work.write(WEB.file(), WEB.yaml());
        h.work.write(API.file(), API.yaml());
        h.work.commitAndPush("initial");
        h.startAgent("e2e", c -> c.with(settings));
        h.awaitAdopted("web", 2);
        h.awaitAdopted("api", 1);
    }

    private String bump(ScenarioSpecs.Pool... pools) throws Exception {
        for (ScenarioSpecs.Pool p : pools) {
            h.work.write(p.file(), p.withImage("1632.0.0").yaml());
        }
        return h.work.commitAndPush("image bump");
    }

    /** The requests to paths starting with {@code prefix}, oldest first. */
    private List<ServeEvent> sent(String prefix) {
        List<ServeEvent> events = new ArrayList<>(wireMock.getAllServeEvents().stream()
                .filter(e -> e.getRequest().getUrl().startsWith(prefix)).toList());
        events.sort(Comparator.comparing(e -> e.getRequest().getLoggedDate()));
        return events;
    }

    private static JsonNode body(ServeEvent e) {
        try {
            return JSON.readTree(e.getRequest().getBodyAsString());
        } catch (Exception x) {
            throw new IllegalStateException(x);
        }
    }

    /** The statuses posted for {@code commit}, as {@code state: description}, in order. */
    private List<String> statuses(String prefix, String commit) {
        return sent(prefix).stream().filter(e -> e.getRequest().getUrl().endsWith("/statuses/" + commit))
                .map(e -> body(e).path("state").asText() + ": " + body(e).path("description").asText()).toList();
    }

    private List<String> events(String commit) {
        return sent("/hook").stream().map(NotificationsIT::body).filter(b -> b.path("commit").asText().equals(commit))
                .map(b -> b.path("type").asText() + (b.path("pool").isNull() ? "" : " " + b.path("pool").asText())).toList();
    }

    private void assertNoSecretLeaked() throws Exception {
        String status = h.http("/status");
        String metrics = h.http("/metrics");
        String logged = String.join("\n", logs.list.stream().map(ILoggingEvent::getFormattedMessage).toList());
        for (String secret : List.of(TOKEN, SECRET, "/slack/services/T0/B0/XYZ")) {
            assertThat(status).as("/status").doesNotContain(secret);
            assertThat(metrics).as("/metrics").doesNotContain(secret);
            assertThat(logged).as("the logs").doesNotContain(secret);
        }
    }

    @Test
    void aRolloutIsToldToGitHubAWebhookAndSlackInOrder() throws Exception {
        startTwoPools(AgentHarness.CLOUD, settings(Forge.GITHUB, "/github", Duration.ofSeconds(5)));
        String commit = bump(WEB, API);

        await().atMost(Duration.ofSeconds(60)).until(() -> statuses("/github", commit).contains("success: 2/2 pools current"));

        List<String> github = statuses("/github", commit);
        assertThat(github.get(0)).startsWith("pending: 2 pools");
        assertThat(github).containsSubsequence(github.get(0), "pending: 1/2 pools current", "success: 2/2 pools current");
        assertThat(github).doesNotHaveDuplicates().last().isEqualTo("success: 2/2 pools current");
        ServeEvent first = sent("/github").get(0);
        assertThat(first.getRequest().getHeader("Authorization")).isEqualTo("Bearer " + TOKEN);
        assertThat(body(first).path("context").asText()).isEqualTo("nightshift/e2e");
        assertThat(body(first).path("target_url").asText()).isEqualTo("http://127.0.0.1:9400/status");

        await().atMost(Duration.ofSeconds(10)).until(() -> events(commit).contains("rollout.completed"));
        // The planner's order of pools (by role, then name): api, then web.
        assertThat(events(commit)).containsExactly("rollout.started", "pool.started api", "pool.completed api", "pool.started web",
                "pool.completed web", "rollout.completed");
        for (ServeEvent e : sent("/hook")) {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            assertThat(e.getRequest().getHeader("X-Nightshift-Signature-256")).as("the receiver verifies the HMAC of the body")
                    .isEqualTo("sha256=" + HexFormat.of().formatHex(mac.doFinal(e.getRequest().getBody())));
            assertThat(body(e).path("schema").asText()).isEqualTo("nightshift.dev/event/v1");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> sent("/slack").size() >= 2);
        assertThat(sent("/slack").stream().map(e -> body(e).path("text").asText()).filter(t -> t.contains(commit.substring(0, 7))))
                .satisfiesExactly(
                        t -> assertThat(t).startsWith(":arrow_forward: *e2e* `" + commit.substring(0, 7) + "` rollout.started: rollout of 2 pools started"),
                        t -> assertThat(t).isEqualTo(":white_check_mark: *e2e* `" + commit.substring(0, 7)
                                + "` rollout.completed: rollout completed: 2 of 2 pools current"));
        assertNoSecretLeaked();
        Samples.write(tmp, "github", sent("/github"), sent("/hook"), sent("/slack"));
    }

    /** Whether every pool of {@code commit} is current, from {@code /status}. */
    private boolean rolledOut(String commit) throws Exception {
        JsonNode status = JSON.readTree(h.http("/status"));
        if (!status.path("revision").asText().equals(commit)) {
            return false;
        }
        for (JsonNode pool : status.path("pools")) {
            if (pool.path("outdated").asInt() > 0 || pool.path("updating").asInt() > 0) {
                return false;
            }
        }
        return status.path("pools").size() == 2;
    }

    private double notifications(String destination, String result) throws Exception {
        return new Scrape(h.http("/metrics")).valueOrZero("nightshift_notifications_total", Map.of("destination", destination, "result", result));
    }

    @Test
    void failingDestinationsAreRetriedThenCountedWithoutSlowingTheRollout() throws Exception {
        // GitLab answers every status with a 500; the webhook receiver takes 5 s to answer, past the 2 s timeout.
        wireMock.stubFor(post(urlPathMatching("/gitlab/api/v4/projects/platform%2Ffleet-specs/statuses/[0-9a-f]{40}"))
                .willReturn(aResponse().withStatus(500).withBody("{\"message\":\"500 Internal Server Error\"}")));
        wireMock.stubFor(post(urlPathMatching("/hook")).willReturn(aResponse().withStatus(204).withFixedDelay(5000)));
        startTwoPools(AgentHarness.CLOUD, settings(Forge.GITLAB, "/gitlab/api/v4", Duration.ofSeconds(2)));
        java.time.Instant pushed = java.time.Instant.now();
        String commit = bump(WEB, API);

        await().atMost(Duration.ofSeconds(60)).until(() -> rolledOut(commit));
        Duration rollout = Duration.between(pushed, java.time.Instant.now());

        // The rollout went on at its own pace: no reconcile waited for a destination (each webhook try takes 2 s, and
        // every event would hold a waiting rollout up for 5 tries and 15 s of back-off).
        double longestReconcile = new Scrape(h.http("/metrics")).valueOrZero("nightshift_reconcile_duration_seconds_max", Map.of("result", "ok"));
        assertThat(longestReconcile).as("the longest reconcile, in seconds").isLessThan(2.0);
        assertThat(rollout).as("the rollout, while every notification failed").isLessThan(Duration.ofSeconds(45));

        await().atMost(Duration.ofSeconds(40)).until(() -> notifications("commit-status", "failed") >= 1);
        assertThat(notifications("commit-status", "retried")).isGreaterThanOrEqualTo(4);
        assertThat(sent("/gitlab")).as("five tries of the first status, with GitLab's token header and words")
                .hasSizeGreaterThanOrEqualTo(5).allSatisfy(e -> assertThat(e.getRequest().getHeader("PRIVATE-TOKEN")).isEqualTo(TOKEN));
        assertThat(body(sent("/gitlab").get(0)).path("name").asText()).isEqualTo("nightshift/e2e");
        await().atMost(Duration.ofSeconds(60)).until(() -> notifications("webhook-1", "failed") >= 1);
        assertThat(notifications("webhook-1", "retried")).isGreaterThanOrEqualTo(4);
        JsonNode destinations = JSON.readTree(h.http("/status")).path("notifications").path("destinations");
        assertThat(destinations.findValuesAsText("lastFailure")).anySatisfy(f -> assertThat(f).startsWith("commit-status status ")
                .endsWith(" not delivered: gitlab answered HTTP 500 (5 tries)"));
        assertThat(destinations.findValuesAsText("lastFailure")).anySatisfy(f -> assertThat(f).startsWith("webhook-1 ")
                .endsWith(" not delivered: webhook-1 did not answer within 2000 ms (5 tries)"));
        assertNoSecretLeaked();
        Files.createDirectories(Path.of("target", "notification-samples"));
        Files.writeString(Path.of("target", "notification-samples", "status.json"),
                JSON.readTree(h.http("/status")).path("notifications").toPrettyString());
    }

    @Test
    void aFailedPoolFailsItsCommitWithTheReasonAndAnInvalidSpecIsAnErrorAtFileAndLine() throws Exception {
        // No new machine ever registers: the pool's progress deadline passes.
        SimulatedMachineProvider.Behaviour c = AgentHarness.CLOUD;
        ScenarioSpecs.Pool web = WEB.with("progressDeadlineSeconds", "6").with("machineControllerManager", "{creationTimeout: 3s}");
        h = new AgentHarness(tmp, "e2e", "web", 2, new SimulatedMachineProvider.Behaviour(c.createDelay(), c.inPlaceDelay(),
                c.restartDelay(), 1.0, 0.0));
        h.push("initial", ScenarioSpecs.CLUSTER, web);
        h.startAgent("e2e", cfg -> cfg.with(settings(Forge.GITEA, "/gitea/api/v1", Duration.ofSeconds(5))));
        h.awaitAdopted("web", 2);
        String bumped = h.push("image bump", web.withImage("1632.0.0"));

        await().atMost(Duration.ofSeconds(45)).until(() -> statuses("/gitea", bumped).stream().anyMatch(s -> s.startsWith("failure")));
        // The pending description carries an ETA once the agent can estimate one (", ETA hh:mm UTC"): either way, one pool.
        List<String> told = statuses("/gitea", bumped);
        assertThat(told).hasSizeGreaterThanOrEqualTo(2);
        assertThat(told.get(0)).matches("pending: 1 pool(, ETA \\d\\d:\\d\\d UTC)?");
        assertThat(told.get(1)).isEqualTo("failure: pool web failed: 1 node failed: a new machine did not become a node within its creationTimeout");
        await().atMost(Duration.ofSeconds(10)).until(() -> events(bumped).contains("pool.failed web"));
        assertThat(events(bumped)).containsExactly("rollout.started", "pool.started web", "pool.failed web");
        await().atMost(Duration.ofSeconds(10)).until(() -> sent("/slack").stream().anyMatch(e -> body(e).path("text").asText().contains("pool.failed")));

        String broken = h.push("broken", web.withImage("1632.0.0").with("maxSurge", "lots"));
        await().atMost(Duration.ofSeconds(30)).until(() -> !statuses("/gitea", broken).isEmpty());
        assertThat(statuses("/gitea", broken)).containsExactly("error: pools/web.yaml:7: spec.maxSurge: must be an int >= 0 or a"
                + " percentage from 0% to 100%, got \"lots\"");
        await().atMost(Duration.ofSeconds(10)).until(() -> events(broken).contains("spec.invalid"));
        JsonNode invalid = sent("/hook").stream().map(NotificationsIT::body).filter(b -> b.path("type").asText().equals("spec.invalid"))
                .findFirst().orElseThrow();
        assertThat(invalid.path("data").path("errors").get(0).path("file").asText()).isEqualTo("pools/web.yaml");
        assertThat(invalid.path("data").path("errors").get(0).path("line").asInt()).isEqualTo(7);
        assertThat(sent("/gitea").get(0).getRequest().getHeader("Authorization")).isEqualTo("token " + TOKEN);
        Samples.write(tmp, "gitea", sent("/gitea"), sent("/hook"), sent("/slack"));
    }

    @Test
    void aRestartMidRolloutNeitherRepeatsWhatWasDeliveredNorLosesTheFinalStatus() throws Exception {
        startTwoPools(AgentHarness.CLOUD, settings(Forge.GITHUB, "/github", Duration.ofSeconds(5)));
        String commit = bump(WEB, API);
        await().atMost(Duration.ofSeconds(30)).until(() -> events(commit).contains("pool.completed api"));

        h.stopAgent();
        assertThat(statuses("/github", commit)).as("stopped mid-rollout").doesNotContain("success: 2/2 pools current");
        h.startAgent("e2e", c -> c.with(settings(Forge.GITHUB, "/github", Duration.ofSeconds(5))));

        await().atMost(Duration.ofSeconds(60)).until(() -> statuses("/github", commit).contains("success: 2/2 pools current"));
        await().atMost(Duration.ofSeconds(10)).until(() -> events(commit).contains("rollout.completed"));
        assertThat(statuses("/github", commit)).as("each status once, across both agents").doesNotHaveDuplicates()
                .last().isEqualTo("success: 2/2 pools current");
        assertThat(events(commit)).as("each event once, across both agents").doesNotHaveDuplicates()
                .containsSubsequence("rollout.started", "pool.started api", "pool.completed api", "pool.completed web", "rollout.completed");
        assertThat(sent("/hook").stream().map(e -> e.getRequest().getHeader("X-Nightshift-Delivery")).toList()).doesNotHaveDuplicates();
        // What the cluster keeps, beside the pool records: the last status and the events delivered, per destination.
        // Written just after each answer: the receiver may have it a moment before the ConfigMap does.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            JsonNode entry = JSON.readTree(kept().getData().get(commit));
            assertThat(entry.path("delivered").path("commit-status").path("status").path("state").asText()).isEqualTo("SUCCESS");
            assertThat(entry.path("delivered").path("webhook-1").path("events").toString()).contains("rollout.completed");
        });
        io.fabric8.kubernetes.api.model.ConfigMap kept = kept();
        Files.writeString(Path.of("target", "notification-samples", "ledger.json"), JSON.readTree(kept.getData().get(commit))
                .toPrettyString());
    }

    @Test
    void theSandboxTakesNotificationsFromAnAgentConfigFragment() throws Exception {
        Path fragmentFile = Files.writeString(tmp.resolve("notify.yaml"), """
                notifications:
                  commitStatus:
                    github: {apiUrl: "%s", repository: org/fleet-specs, tokenFile: "%s"}
                """.formatted(url("/github"), tokenFile));
        dev.nightshift.agent.config.AgentConfigLoader.Fragment fragment = new dev.nightshift.agent.config.AgentConfigLoader()
                .fragment(fragmentFile);
        assertThat(fragment.errors()).isEmpty();
        // A small world: cluster e2e with one pool of one node.
        Path spec = Files.createDirectories(tmp.resolve("spec").resolve("pools")).getParent();
        Files.writeString(spec.resolve("cluster.yaml"), ScenarioSpecs.CLUSTER);
        Files.writeString(spec.resolve(API.file()), API.yaml());
        Optional<dev.nightshift.spec.model.SpecSet> specs = dev.nightshift.agent.command.ValidSpecs.load(spec,
                new java.io.PrintWriter(System.err, true));

        try (dev.nightshift.sandbox.Sandbox sandbox = new dev.nightshift.sandbox.Sandbox(new dev.nightshift.sandbox.Sandbox.Options(
                Optional.of(spec), Optional.of("e2e"), Optional.of(tmp.resolve("sandbox")), 0, 0, false, Optional.empty(),
                dev.nightshift.sandbox.demo.EmbeddedWorld.Machines.SIMULATED, true, dev.nightshift.sandbox.machineapi.Holds.none(),
                dev.nightshift.sandbox.Sandbox.Scale.NONE, dev.nightshift.sandbox.machineapi.MachineApiCloud.Registration.REQUEST_LABELS,
                Optional.of(fragment)), specs, new java.io.PrintStream(java.io.OutputStream.nullOutputStream()),
                java.time.Clock.systemUTC())) {
            sandbox.start();

            // The sandbox's agent, configured by the sandbox, notifies as the fragment says: the spec is current at once.
            await().atMost(Duration.ofSeconds(60)).until(() -> sent("/github").stream()
                    .anyMatch(e -> body(e).path("context").asText().equals("nightshift/e2e") && body(e).path("state").asText().equals("success")));
        }
    }

    private io.fabric8.kubernetes.api.model.ConfigMap kept() {
        return h.kube.client().configMaps().inNamespace(Agent.NAMESPACE).withName("nightshift-notifications").get();
    }
}
