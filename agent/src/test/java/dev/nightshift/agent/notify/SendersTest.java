package dev.nightshift.agent.notify;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.equalToJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;

/**
 * Each sender against WireMock playing the forge, the webhook receiver or Slack, stubbed from the documented request
 * and answer: the path, the headers (the token only in its header), the body's fields and the forge's words for states.
 */
class SendersTest {

    private static final String SHA = "0123456789abcdef0123456789abcdef01234567";
    private static final String TOKEN = "ghp_s3cr3t-token-value";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static WireMockServer wireMock;

    @TempDir
    Path tmp;
    private Path tokenFile;

    @BeforeAll
    static void start() {
        wireMock = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        wireMock.start();
    }

    @AfterAll
    static void stop() {
        wireMock.stop();
    }

    @BeforeEach
    void reset() throws Exception {
        wireMock.resetAll();
        tokenFile = Files.writeString(tmp.resolve("token"), TOKEN + "\n");
    }

    private URI base(String path) {
        return URI.create("http://127.0.0.1:" + wireMock.port() + path);
    }

    private ForgeStatuses forge(Forge forge, String apiPath, String repository) {
        return new ForgeStatuses(new NotificationSettings.CommitStatusTarget(forge, base(apiPath), repository, tokenFile),
                Optional.of(URI.create("https://nightshift.example.com/status")), JsonPost.of(Duration.ofSeconds(2)));
    }

    private static Notice.Status status(CommitState state, String description) {
        return new Notice.Status(new CommitStatus("prod-eu1", SHA, state, description));
    }

    private static LoggedRequest only() {
        assertThat(wireMock.getAllServeEvents()).hasSize(1);
        return wireMock.getAllServeEvents().get(0).getRequest();
    }

    @Test
    void gitHubGetsItsStatusesApiRequest() {
        // https://docs.github.com/en/rest/commits/statuses#create-a-commit-status: 201 with the status.
        wireMock.stubFor(post(urlPathEqualTo("/repos/org/fleet-specs/statuses/" + SHA)).willReturn(aResponse().withStatus(201)
                .withHeader("Content-Type", "application/json").withBody("{\"id\":1,\"state\":\"pending\",\"context\":\"nightshift/prod-eu1\"}")));

        Outcome outcome = forge(Forge.GITHUB, "", "org/fleet-specs").send(status(CommitState.PENDING, "4 pools, ETA 03:10 UTC"));

        assertThat(outcome).isInstanceOf(Outcome.Delivered.class);
        wireMock.verify(postRequestedFor(urlPathEqualTo("/repos/org/fleet-specs/statuses/" + SHA))
                .withHeader("Authorization", equalTo("Bearer " + TOKEN))
                .withHeader("Accept", equalTo("application/vnd.github+json"))
                .withHeader("X-GitHub-Api-Version", equalTo("2022-11-28"))
                .withRequestBody(equalToJson("{\"state\":\"pending\",\"target_url\":\"https://nightshift.example.com/status\","
                        + "\"description\":\"4 pools, ETA 03:10 UTC\",\"context\":\"nightshift/prod-eu1\"}")));
    }

    @Test
    void gitLabGetsItsCommitStatusesApiRequestWithItsOwnWords() {
        // https://docs.gitlab.com/api/commits/#set-the-pipeline-status-of-a-commit: the project's path URL-encoded.
        wireMock.stubFor(post(urlPathEqualTo("/api/v4/projects/platform%2Ffleet-specs/statuses/" + SHA)).willReturn(aResponse()
                .withStatus(201).withHeader("Content-Type", "application/json").withBody("{\"id\":93,\"status\":\"failed\"}")));

        Outcome outcome = forge(Forge.GITLAB, "/api/v4", "platform/fleet-specs").send(status(CommitState.ERROR, "pools/cpu.yaml:12: bad"));

        assertThat(outcome).isInstanceOf(Outcome.Delivered.class);
        wireMock.verify(postRequestedFor(urlPathEqualTo("/api/v4/projects/platform%2Ffleet-specs/statuses/" + SHA))
                .withHeader("PRIVATE-TOKEN", equalTo(TOKEN))
                .withRequestBody(equalToJson("{\"state\":\"failed\",\"target_url\":\"https://nightshift.example.com/status\","
                        + "\"description\":\"pools/cpu.yaml:12: bad\",\"name\":\"nightshift/prod-eu1\"}")));
        assertThat(only().getHeader("Authorization")).isNull();
    }

    @Test
    void giteaGetsItsStatusesApiRequest() {
        // https://gitea.com/api/swagger#/repository/repoCreateStatus: 201 with the CommitStatus.
        wireMock.stubFor(post(urlPathEqualTo("/api/v1/repos/org/fleet-specs/statuses/" + SHA)).willReturn(aResponse().withStatus(201)
                .withHeader("Content-Type", "application/json").withBody("{\"id\":7,\"status\":\"warning\"}")));

        Outcome outcome = forge(Forge.GITEA, "/api/v1", "org/fleet-specs").send(status(CommitState.SUPERSEDED, "superseded by abc1234"));

        assertThat(outcome).isInstanceOf(Outcome.Delivered.class);
        wireMock.verify(postRequestedFor(urlPathEqualTo("/api/v1/repos/org/fleet-specs/statuses/" + SHA))
                .withHeader("Authorization", equalTo("token " + TOKEN))
                .withRequestBody(equalToJson("{\"state\":\"warning\",\"target_url\":\"https://nightshift.example.com/status\","
                        + "\"description\":\"superseded by abc1234\",\"context\":\"nightshift/prod-eu1\"}")));
    }

    @Test
    void eachForgeSpellsEveryStateAsItsApiDocuments() {
        assertThat(java.util.Arrays.stream(CommitState.values()).map(Forge.GITHUB::state))
                .containsExactly("pending", "success", "failure", "error", "error");
        assertThat(java.util.Arrays.stream(CommitState.values()).map(Forge.GITLAB::state))
                .containsExactly("running", "success", "failed", "failed", "canceled");
        assertThat(java.util.Arrays.stream(CommitState.values()).map(Forge.GITEA::state))
                .containsExactly("pending", "success", "failure", "error", "warning");
    }

    @Test
    void gitLabIsNotAskedToGoFromRunningToRunning() {
        ForgeStatuses gitlab = forge(Forge.GITLAB, "/api/v4", "42");
        CommitStatus first = new CommitStatus("c", SHA, CommitState.PENDING, "4 pools");
        CommitStatus progress = new CommitStatus("c", SHA, CommitState.PENDING, "2/4 pools current");

        assertThat(gitlab.worthSending(first, progress)).isFalse();
        assertThat(gitlab.worthSending(progress, new CommitStatus("c", SHA, CommitState.SUCCESS, "4/4 pools current"))).isTrue();
        assertThat(forge(Forge.GITHUB, "", "o/r").worthSending(first, progress)).isTrue();
    }

    @Test
    void serverErrorsAndTimeoutsAreWorthAnotherTryAndClientErrorsAreNot() {
        wireMock.stubFor(post(urlPathEqualTo("/repos/o/five/statuses/" + SHA)).willReturn(aResponse().withStatus(502)));
        wireMock.stubFor(post(urlPathEqualTo("/repos/o/slow/statuses/" + SHA)).willReturn(aResponse().withStatus(201).withFixedDelay(3000)));
        wireMock.stubFor(post(urlPathEqualTo("/repos/o/limited/statuses/" + SHA)).willReturn(aResponse().withStatus(429)
                .withHeader("Retry-After", "7")));
        wireMock.stubFor(post(urlPathEqualTo("/repos/o/gone/statuses/" + SHA)).willReturn(aResponse().withStatus(422)
                .withBody("{\"message\":\"No commit found for SHA\",\"token\":\"" + TOKEN + "\"}")));
        ForgeStatuses fast = new ForgeStatuses(new NotificationSettings.CommitStatusTarget(Forge.GITHUB, base(""), "o/slow", tokenFile),
                Optional.empty(), JsonPost.of(Duration.ofMillis(500)));

        assertThat(forge(Forge.GITHUB, "", "o/five").send(status(CommitState.SUCCESS, "x"))).isEqualTo(
                new Outcome.Retry("github answered HTTP 502", Optional.empty()));
        assertThat(fast.send(status(CommitState.SUCCESS, "x"))).isEqualTo(
                new Outcome.Retry("github did not answer within 500 ms", Optional.empty()));
        assertThat(forge(Forge.GITHUB, "", "o/limited").send(status(CommitState.SUCCESS, "x"))).isEqualTo(
                new Outcome.Retry("github answered HTTP 429", Optional.of(Duration.ofSeconds(7))));
        Outcome refused = forge(Forge.GITHUB, "", "o/gone").send(status(CommitState.SUCCESS, "x"));
        assertThat(refused).isEqualTo(new Outcome.Failed("github answered HTTP 422"));
        assertThat(refused.toString()).doesNotContain(TOKEN);
    }

    @Test
    void aMissingTokenFileFailsNamingTheFileAndSendsNothing() throws Exception {
        Files.delete(tokenFile);

        Outcome outcome = forge(Forge.GITHUB, "", "o/r").send(status(CommitState.SUCCESS, "x"));

        assertThat(outcome).isEqualTo(new Outcome.Failed("github: cannot read the token file " + tokenFile));
        assertThat(wireMock.getAllServeEvents()).isEmpty();
    }

    @Test
    void aWebhookReceiverCanVerifyTheSignatureOfTheBody() throws Exception {
        Path secretFile = Files.writeString(tmp.resolve("secret"), "a-long-webhook-secret-0123456789\n");
        wireMock.stubFor(post(urlPathEqualTo("/hooks/nightshift")).willReturn(aResponse().withStatus(204)));
        Webhook hook = new Webhook("webhook-1", new NotificationSettings.WebhookTarget(base("/hooks/nightshift"), secretFile,
                Set.of(EventType.POOL_COMPLETED)), JsonPost.of(Duration.ofSeconds(2)));
        NotificationEvent event = new NotificationEvent(EventType.POOL_COMPLETED, Instant.parse("2026-11-27T03:04:05Z"), "prod-eu1",
                SHA, Optional.of("cpu-worker"), "pool.completed/cpu-worker", "pool cpu-worker completed: 3 of 3 nodes current",
                Map.of("nodes", 3));

        assertThat(hook.send(new Notice.Event(event))).isInstanceOf(Outcome.Delivered.class);

        LoggedRequest r = only();
        byte[] body = r.getBody();
        // What a receiver does: HMAC-SHA256 of the raw body with the shared secret, compared in constant time.
        javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
        mac.init(new javax.crypto.spec.SecretKeySpec("a-long-webhook-secret-0123456789".getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String expected = "sha256=" + java.util.HexFormat.of().formatHex(mac.doFinal(body));
        assertThat(java.security.MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8),
                r.getHeader("X-Nightshift-Signature-256").getBytes(StandardCharsets.UTF_8))).isTrue();
        assertThat(r.getHeader("X-Nightshift-Event")).isEqualTo("pool.completed");
        assertThat(r.getHeader("X-Nightshift-Delivery")).isEqualTo(event.id());
        JsonNode json = JSON.readTree(body);
        assertThat(json.path("schema").asText()).isEqualTo(EventJson.SCHEMA);
        assertThat(json.path("type").asText()).isEqualTo("pool.completed");
        assertThat(json.path("time").asText()).isEqualTo("2026-11-27T03:04:05Z");
        assertThat(json.path("cluster").asText()).isEqualTo("prod-eu1");
        assertThat(json.path("commit").asText()).isEqualTo(SHA);
        assertThat(json.path("pool").asText()).isEqualTo("cpu-worker");
        assertThat(json.path("data").path("nodes").asInt()).isEqualTo(3);
    }

    @Test
    void theSignatureIsGitHubsOwnScheme() {
        // GitHub's documented example: secret "It's a Secret to Everybody", payload "Hello, World!".
        assertThat(Hashes.signature("Hello, World!".getBytes(StandardCharsets.UTF_8),
                "It's a Secret to Everybody".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo("sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17");
    }

    @Test
    void slackGetsAReadableTextFromItsUrlFile() throws Exception {
        Path urlFile = Files.writeString(tmp.resolve("slack-url"), base("/services/T000/B000/XXXX") + "\n");
        // Slack's incoming webhooks answer 200 with the body "ok".
        wireMock.stubFor(post(urlPathEqualTo("/services/T000/B000/XXXX")).willReturn(aResponse().withStatus(200).withBody("ok")));
        Slack slack = new Slack(new NotificationSettings.SlackTarget(urlFile, Set.of(EventType.POOL_FAILED)), JsonPost.of(Duration.ofSeconds(2)));
        NotificationEvent event = new NotificationEvent(EventType.POOL_FAILED, Instant.parse("2026-11-27T03:04:05Z"), "prod-eu1", SHA,
                Optional.of("batch"), "pool.failed/batch", "pool batch failed: node-3: the update failed", Map.of());

        assertThat(slack.send(new Notice.Event(event))).isInstanceOf(Outcome.Delivered.class);
        assertThat(slack.wants(new Notice.Event(event))).isTrue();
        assertThat(slack.wants(status(CommitState.SUCCESS, "x"))).isFalse();

        assertThat(JSON.readTree(only().getBody())).isEqualTo(JSON.readTree(
                "{\"text\":\":x: *prod-eu1* `0123456` pool.failed: pool batch failed: node-3: the update failed\"}"));
    }
}
