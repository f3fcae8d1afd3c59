package dev.nightshift.agent.provider.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.delete;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.equalToJson;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.patch;
import static com.github.tomakehurst.wiremock.client.WireMock.patchRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.nightshift.agent.fence.Fence;
import dev.nightshift.agent.fence.FencedException;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

/**
 * {@link HttpMachineApiClient} against WireMock. After each test every request the client sent is
 * judged against the OpenAPI file by Atlassian's validator ({@link MachineApiContract}).
 */
class HttpMachineApiClientTest {

    private static final String TOKEN = "s3cr3t-t0ken-4711";
    private static final Instant NOW = Instant.parse("2026-11-24T12:00:00Z");
    private static final RetryPolicy FAST = new RetryPolicy(6, Duration.ofMillis(500), Duration.ofSeconds(30));
    private static final String KEY = IdempotencyKeys.of("workers", "create", "surge-1", "roll-abc");
    private static final MachineRequest REQUEST = new MachineRequest(
            Map.of("node.kubernetes.io/pool", "workers"),
            Map.of("nightshift.dev/roll-hash", "roll-abc"),
            List.of(new MachineRequest.Taint("dedicated", "gpu", "NoSchedule"), new MachineRequest.Taint("draining", null, "NoExecute")),
            new MachineSpec("m5.large", new MachineSpec.Image("ubuntu", "24.04"), new MachineSpec.Volume("gp3", "50Gi"), "containerd",
                    "1.31.2", Map.of("maxPods", 110), Map.of("subnet", "a")));
    private static final ApiMachine MACHINE = new ApiMachine("m-1", "workers", null, MachineState.CREATING,
            Instant.parse("2026-11-24T11:59:00Z"), Map.of("nightshift.dev/roll-hash", "roll-abc"), null);
    private static final ApiMachine RUNNING = new ApiMachine("m-0", "workers", "workers-0", MachineState.RUNNING,
            Instant.parse("2026-11-20T08:00:00Z"), Map.of(), null);

    private static WireMockServer wireMock;
    private static final MachineApiContract CONTRACT = new MachineApiContract();

    @TempDir
    Path tmp;
    private Path tokenFile;
    private final List<Duration> sleeps = new ArrayList<>();
    private String basePath = "";

    @BeforeAll
    static void startServer() {
        wireMock = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
        wireMock.start();
    }

    @AfterAll
    static void stopServer() {
        wireMock.stop();
    }

    @BeforeEach
    void writeToken() throws Exception {
        wireMock.resetAll();
        tokenFile = Files.writeString(tmp.resolve("token"), TOKEN + "\n");
    }

    @AfterEach
    void everyRequestKeptTheOpenApiFile() {
        assertThat(CONTRACT.violations(wireMock.getAllServeEvents(), basePath)).isEmpty();
    }

    private HttpMachineApiClient client() {
        return client(FAST, Duration.ofSeconds(5));
    }

    private HttpMachineApiClient client(RetryPolicy retry, Duration timeout) {
        return client(URI.create(wireMock.baseUrl()), retry, timeout);
    }

    private HttpMachineApiClient client(URI url, RetryPolicy retry, Duration timeout) {
        return new HttpMachineApiClient(new MachineApiEndpoint(url, tokenFile, Optional.empty(), timeout), retry, new SplittableRandom(42),
                sleeps::add, Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private String url(String path) {
        return wireMock.baseUrl() + path;
    }

    private static List<LoggedRequest> requests() {
        return wireMock.findAll(anyRequestedFor(anyUrl()));
    }

    private static ResponseDefinitionBuilder json(int status, String body) {
        return aResponse().withStatus(status).withHeader("Content-Type", "application/json").withBody(body);
    }

    // ---- every endpoint ----

    @Test
    void listReadsThePoolsMachinesWithTheBearerToken() {
        wireMock.stubFor(get("/v1/pools/workers/machines").willReturn(json(200, MachineApiJson.machineList(List.of(RUNNING, MACHINE)))));

        assertThat(client().list("workers")).containsExactly(RUNNING, MACHINE);

        LoggedRequest request = requests().get(0);
        assertThat(request.getHeader("Authorization")).isEqualTo("Bearer " + TOKEN);
        assertThat(request.getHeader("Accept")).isEqualTo("application/json");
        assertThat(request.getHeader("User-Agent")).startsWith("nightshift/");
        assertThat(request.containsHeader("Idempotency-Key")).isFalse();
    }

    @Test
    void createSendsTheRequestWithItsKeyAndReadsTheNewMachine() {
        wireMock.stubFor(post("/v1/pools/workers/machines").willReturn(json(201, MachineApiJson.machine(MACHINE))));

        assertThat(client().create("workers", KEY, REQUEST)).isEqualTo(MACHINE);

        wireMock.verify(1, postRequestedFor(urlPathEqualTo("/v1/pools/workers/machines"))
                .withHeader("Idempotency-Key", equalTo(KEY))
                .withHeader("Authorization", equalTo("Bearer " + TOKEN))
                .withHeader("Content-Type", equalTo("application/json"))
                .withRequestBody(equalToJson(MachineApiJson.machineRequest(REQUEST))));
    }

    @Test
    void createWithAKeyTheServerHasSeenReturnsTheMachineThatRequestMade() {
        wireMock.stubFor(post("/v1/pools/workers/machines").willReturn(json(200, MachineApiJson.machine(MACHINE))));

        assertThat(client().create("workers", KEY, REQUEST)).isEqualTo(MACHINE);
    }

    @Test
    void replaceSendsTheRequestWithItsKeyAndReadsTheReplacement() {
        String key = IdempotencyKeys.of("workers", "replace", "m-0", "roll-abc");
        wireMock.stubFor(post("/v1/machines/m-0/replace").willReturn(json(202, MachineApiJson.machine(MACHINE))));

        assertThat(client().replace("m-0", key, REQUEST)).isEqualTo(MACHINE);

        wireMock.verify(1, postRequestedFor(urlPathEqualTo("/v1/machines/m-0/replace"))
                .withHeader("Idempotency-Key", equalTo(key))
                .withRequestBody(equalToJson(MachineApiJson.machineRequest(REQUEST))));
    }

    @Test
    void deleteThatStartedIsTrue() {
        wireMock.stubFor(delete("/v1/machines/m-0").willReturn(aResponse().withStatus(202)));

        assertThat(client().delete("m-0")).isTrue();
        assertThat(requests()).hasSize(1);
    }

    @Test
    void deleteOfAMachineAlreadyGoneIsFalseNotAnError() {
        wireMock.stubFor(delete("/v1/machines/m-0").willReturn(json(404, MachineApiJson.error("no machine m-0"))));

        assertThat(client().delete("m-0")).isFalse();
        assertThat(requests()).hasSize(1);
    }

    @Test
    void updateSendsTheRequestWithItsKey() {
        String key = IdempotencyKeys.of("workers", "in-place-update", "m-0", "roll-abc");
        UpdateRequest update = new UpdateRequest(UpdateRequest.Operation.IN_PLACE_UPDATE, Map.of("nightshift.dev/roll-hash", "roll-abc"), REQUEST.spec());
        wireMock.stubFor(post("/v1/machines/m-0/update").willReturn(aResponse().withStatus(202)));

        client().update("m-0", key, update);

        wireMock.verify(1, postRequestedFor(urlPathEqualTo("/v1/machines/m-0/update"))
                .withHeader("Idempotency-Key", equalTo(key))
                .withRequestBody(equalToJson(MachineApiJson.updateRequest(update))));
    }

    @Test
    void patchSendsAMergePatchWhereNullRemovesAKey() {
        Map<String, String> patch = new HashMap<>();
        patch.put("nightshift.dev/roll-hash", "roll-def");
        patch.put("nightshift.dev/surge-partner", null);
        ApiMachine patched = RUNNING.withAnnotations(Map.of("nightshift.dev/roll-hash", "roll-def"));
        wireMock.stubFor(patch(urlPathEqualTo("/v1/machines/m-0")).willReturn(json(200, MachineApiJson.machine(patched))));

        assertThat(client().patchAnnotations("m-0", patch)).isEqualTo(patched);

        wireMock.verify(1, patchRequestedFor(urlPathEqualTo("/v1/machines/m-0"))
                .withHeader("Content-Type", equalTo("application/merge-patch+json"))
                .withRequestBody(equalToJson("{\"annotations\": {\"nightshift.dev/roll-hash\": \"roll-def\", \"nightshift.dev/surge-partner\": null}}")));
    }

    @Test
    void aBasePathInTheUrlIsKept() {
        basePath = "/clouds/eu-1";
        wireMock.stubFor(get("/clouds/eu-1/v1/pools/workers/machines").willReturn(json(200, MachineApiJson.machineList(List.of()))));

        assertThat(client(URI.create(wireMock.baseUrl() + "/clouds/eu-1/"), FAST, Duration.ofSeconds(5)).list("workers")).isEmpty();
    }

    @Test
    void theTokenIsReadAgainForEveryRequestSoARotatedOneIsUsed() throws Exception {
        wireMock.stubFor(get("/v1/pools/workers/machines").willReturn(json(200, MachineApiJson.machineList(List.of()))));
        HttpMachineApiClient client = client();

        client.list("workers");
        Files.writeString(tokenFile, "rotated-t0ken\r\n");
        client.list("workers");

        assertThat(requests()).extracting(r -> r.getHeader("Authorization")).containsExactly("Bearer " + TOKEN, "Bearer rotated-t0ken");
    }

    @Test
    void aMissingTokenFileIsAnErrorNamingItAndSendsNothing() throws Exception {
        Files.delete(tokenFile);

        assertThatThrownBy(() -> client().list("workers"))
                .isInstanceOf(MachineApiException.class)
                .hasMessage("GET " + url("/v1/pools/workers/machines") + ": token file " + tokenFile + ": no such file");
        assertThat(requests()).isEmpty();
    }

    // ---- retries ----

    @Test
    void serverErrorsAreRetriedWithTheSameKeyAndBodyUntilOneSucceeds() {
        String scenario = "two 5xx, then created";
        wireMock.stubFor(post("/v1/pools/workers/machines").inScenario(scenario).whenScenarioStateIs(Scenario.STARTED)
                .willReturn(json(500, MachineApiJson.error("database unavailable"))).willSetStateTo("one failed"));
        wireMock.stubFor(post("/v1/pools/workers/machines").inScenario(scenario).whenScenarioStateIs("one failed")
                .willReturn(json(503, MachineApiJson.error("overloaded"))).willSetStateTo("two failed"));
        wireMock.stubFor(post("/v1/pools/workers/machines").inScenario(scenario).whenScenarioStateIs("two failed")
                .willReturn(json(201, MachineApiJson.machine(MACHINE))));

        assertThat(client().create("workers", KEY, REQUEST)).isEqualTo(MACHINE);

        List<LoggedRequest> attempts = requests();
        assertThat(attempts).hasSize(3);
        assertThat(attempts).extracting(r -> r.getHeader("Idempotency-Key")).containsOnly(KEY);
        assertThat(attempts).extracting(LoggedRequest::getBodyAsString).containsOnly(attempts.get(0).getBodyAsString());
        // Equal jitter: half the ceiling, then up to the ceiling (500 ms, then 1 s).
        assertThat(sleeps).hasSize(2);
        assertThat(sleeps.get(0)).isBetween(Duration.ofMillis(250), Duration.ofMillis(500));
        assertThat(sleeps.get(1)).isBetween(Duration.ofMillis(500), Duration.ofMillis(1000));
    }

    @Test
    void anAnswerLostAfterTheServerCreatedTheMachineIsRetriedWithTheSameKeyAndYieldsOneMachine() {
        String scenario = "created, answer lost";
        wireMock.stubFor(post("/v1/pools/workers/machines").inScenario(scenario).whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)).willSetStateTo("created"));
        // The server has seen the key: it answers 200 with the machine the first request made.
        wireMock.stubFor(post("/v1/pools/workers/machines").inScenario(scenario).whenScenarioStateIs("created")
                .withHeader("Idempotency-Key", equalTo(KEY))
                .willReturn(json(200, MachineApiJson.machine(MACHINE))));

        assertThat(client().create("workers", KEY, REQUEST)).isEqualTo(MACHINE);

        List<LoggedRequest> attempts = requests();
        assertThat(attempts).hasSize(2);
        assertThat(attempts).extracting(r -> r.getHeader("Idempotency-Key")).containsExactly(KEY, KEY);
        assertThat(sleeps).hasSize(1);
    }

    @Test
    void timeoutsAreRetriedAndAfterTheLastAttemptFailNamingTheUrl() {
        wireMock.stubFor(get("/v1/pools/workers/machines").willReturn(json(200, MachineApiJson.machineList(List.of())).withFixedDelay(3_000)));
        RetryPolicy threeAttempts = new RetryPolicy(3, Duration.ofMillis(100), Duration.ofSeconds(1));

        MachineApiException e = catchThrowableOfType(MachineApiException.class,
                () -> client(threeAttempts, Duration.ofMillis(300)).list("workers"));

        assertThat(e.getMessage()).startsWith("GET " + url("/v1/pools/workers/machines") + ": gave up after 3 attempts; the last: no complete answer within 300 ms");
        assertThat(e.retryable()).isTrue();
        assertThat(e.status()).isZero();
        assertThat(sleeps).hasSize(2);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(requests()).hasSize(3));
    }

    @Test
    void anAnswerThatStallsInItsBodyTimesOutToo() {
        // Headers at once, then the body a byte at a time over 3 s: the JDK's request timeout alone never fires.
        wireMock.stubFor(get("/v1/pools/workers/machines").willReturn(json(200, MachineApiJson.machineList(List.of(RUNNING)))
                .withChunkedDribbleDelay(20, 3_000)));

        MachineApiException e = catchThrowableOfType(MachineApiException.class,
                () -> client(new RetryPolicy(2, Duration.ofMillis(100), Duration.ofSeconds(1)), Duration.ofMillis(400)).list("workers"));

        assertThat(e.getMessage()).isEqualTo("GET " + url("/v1/pools/workers/machines") + ": gave up after 2 attempts; the last: "
                + "no complete answer within 400 ms");
        assertThat(sleeps).hasSize(1);
    }

    @Test
    void aRefusedConnectionIsRetriedAndThenFailsNamingTheUrlAndTheCause() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        URI nobody = URI.create("http://127.0.0.1:" + closedPort);

        MachineApiException e = catchThrowableOfType(MachineApiException.class,
                () -> client(nobody, new RetryPolicy(3, Duration.ofMillis(100), Duration.ofSeconds(1)), Duration.ofSeconds(2)).delete("m-0"));

        assertThat(e.getMessage()).startsWith("DELETE " + nobody + "/v1/machines/m-0: gave up after 3 attempts; the last: ConnectException");
        assertThat(e.retryable()).isTrue();
        assertThat(sleeps).hasSize(2);
    }

    @Test
    void aWriteRetryingPastTheLeasesRenewDeadlineStopsAtItsNextAttemptAndSendsNothingMore() {
        wireMock.stubFor(post("/v1/pools/workers/machines").willReturn(json(503, MachineApiJson.error("overloaded"))));
        java.util.concurrent.atomic.AtomicReference<Instant> now = new java.util.concurrent.atomic.AtomicReference<>(NOW);
        Clock clock = new Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now.get();
            }
        };
        Fence fence = Fence.lease(clock, Duration.ofSeconds(10));
        fence.renewed(NOW);
        // Each wait between attempts takes 4 s of the fence's clock: three attempts go out, the fourth would start 12 s after
        // the renewal, past the 10 s deadline.
        HttpMachineApiClient client = new HttpMachineApiClient(new MachineApiEndpoint(URI.create(wireMock.baseUrl()), tokenFile,
                Optional.empty(), Duration.ofSeconds(5)), FAST, new SplittableRandom(42), d -> now.set(now.get().plusSeconds(4)),
                Clock.fixed(NOW, ZoneOffset.UTC), fence);

        FencedException e = catchThrowableOfType(FencedException.class, () -> client.create("workers", KEY, REQUEST));

        assertThat(e.getMessage()).startsWith("POST " + url("/v1/pools/workers/machines") + ": not sent: this replica's lease was not renewed");
        assertThat(requests()).hasSize(3);
    }

    @Test
    void readsAreNotFencedAReplicaStandingByKeepsItsView() {
        wireMock.stubFor(get("/v1/pools/workers/machines").willReturn(json(200, "{\"machines\": []}")));
        Fence lost = Fence.lease(Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofSeconds(10));

        HttpMachineApiClient client = new HttpMachineApiClient(new MachineApiEndpoint(URI.create(wireMock.baseUrl()), tokenFile,
                Optional.empty(), Duration.ofSeconds(5)), FAST, new SplittableRandom(42), sleeps::add, Clock.fixed(NOW, ZoneOffset.UTC), lost);

        assertThat(client.list("workers")).isEmpty();
    }

    @Test
    void serverErrorsUntilTheLastAttemptFailNamingTheLastStatusAndMessage() {
        wireMock.stubFor(get("/v1/pools/workers/machines").willReturn(json(503, MachineApiJson.error("maintenance"))));

        MachineApiException e = catchThrowableOfType(MachineApiException.class, () -> client().list("workers"));

        assertThat(e.getMessage()).isEqualTo("GET " + url("/v1/pools/workers/machines") + ": gave up after 6 attempts; the last: 503 maintenance");
        assertThat(e.status()).isEqualTo(503);
        assertThat(e.retryable()).isTrue();
        assertThat(requests()).hasSize(6);
        assertThat(sleeps).hasSize(5);
    }

    @Test
    void tooManyRequestsIsRetried() {
        String scenario = "throttled once";
        wireMock.stubFor(delete("/v1/machines/m-0").inScenario(scenario).whenScenarioStateIs(Scenario.STARTED)
                .willReturn(json(429, MachineApiJson.error("slow down"))).willSetStateTo("allowed"));
        wireMock.stubFor(delete("/v1/machines/m-0").inScenario(scenario).whenScenarioStateIs("allowed").willReturn(aResponse().withStatus(202)));

        assertThat(client().delete("m-0")).isTrue();

        assertThat(requests()).hasSize(2);
    }

    @Test
    void retryAfterInSecondsIsWaitedInsteadOfTheBackoff() {
        String scenario = "throttled with Retry-After";
        wireMock.stubFor(get("/v1/pools/workers/machines").inScenario(scenario).whenScenarioStateIs(Scenario.STARTED)
                .willReturn(json(429, MachineApiJson.error("slow down")).withHeader("Retry-After", "7")).willSetStateTo("allowed"));
        wireMock.stubFor(get("/v1/pools/workers/machines").inScenario(scenario).whenScenarioStateIs("allowed")
                .willReturn(json(200, MachineApiJson.machineList(List.of()))));

        client().list("workers");

        assertThat(sleeps).containsExactly(Duration.ofSeconds(7));
    }

    @Test
    void retryAfterAsAnHttpDateIsWaitedUntilThatTimeByTheClock() {
        String at = DateTimeFormatter.RFC_1123_DATE_TIME.format(NOW.plusSeconds(12).atZone(ZoneOffset.UTC));
        String scenario = "unavailable until a date";
        wireMock.stubFor(get("/v1/pools/workers/machines").inScenario(scenario).whenScenarioStateIs(Scenario.STARTED)
                .willReturn(json(503, MachineApiJson.error("maintenance")).withHeader("Retry-After", at)).willSetStateTo("back"));
        wireMock.stubFor(get("/v1/pools/workers/machines").inScenario(scenario).whenScenarioStateIs("back")
                .willReturn(json(200, MachineApiJson.machineList(List.of()))));

        client().list("workers");

        assertThat(sleeps).containsExactly(Duration.ofSeconds(12));
    }

    @Test
    void retryAfterLongerThanTheMaximumBackoffIsCappedAtIt() {
        String scenario = "asks for an hour";
        wireMock.stubFor(get("/v1/pools/workers/machines").inScenario(scenario).whenScenarioStateIs(Scenario.STARTED)
                .willReturn(json(429, MachineApiJson.error("quota")).withHeader("Retry-After", "3600")).willSetStateTo("allowed"));
        wireMock.stubFor(get("/v1/pools/workers/machines").inScenario(scenario).whenScenarioStateIs("allowed")
                .willReturn(json(200, MachineApiJson.machineList(List.of()))));

        client().list("workers");

        assertThat(sleeps).containsExactly(FAST.maxBackoff());
    }

    @Test
    void eachRetryIsLoggedAtWarnWithMethodUrlAttemptAndWaitButNeitherTokenNorBody() {
        String scenario = "fails once";
        wireMock.stubFor(post("/v1/pools/workers/machines").inScenario(scenario).whenScenarioStateIs(Scenario.STARTED)
                .willReturn(json(500, MachineApiJson.error("oops"))).willSetStateTo("ok"));
        wireMock.stubFor(post("/v1/pools/workers/machines").inScenario(scenario).whenScenarioStateIs("ok")
                .willReturn(json(201, MachineApiJson.machine(MACHINE))));

        List<ILoggingEvent> log = new ArrayList<>();
        captureLog(log, () -> client().create("workers", KEY, REQUEST));

        assertThat(log).singleElement().satisfies(event -> {
            assertThat(event.getLevel()).isEqualTo(Level.WARN);
            assertThat(event.getFormattedMessage()).isEqualTo("POST " + url("/v1/pools/workers/machines") + ": attempt 1 of 6 failed: 500 oops; "
                    + "trying again in " + sleeps.get(0).toMillis() + " ms");
            assertThat(event.getFormattedMessage()).doesNotContain(TOKEN, "m5.large", "roll-abc");
        });
    }

    // ---- answers that are not what the API says: never retried ----

    @Test
    void malformedJsonIsAClearErrorAndIsNotRetried() {
        wireMock.stubFor(get("/v1/pools/workers/machines").willReturn(json(200, "{\"machines\": [")));

        MachineApiException e = catchThrowableOfType(MachineApiException.class, () -> client().list("workers"));

        assertThat(e.getMessage()).startsWith("GET " + url("/v1/pools/workers/machines") + ": 200 answer not as the machine API says: not JSON");
        assertThat(e.status()).isEqualTo(200);
        assertThat(e.retryable()).isFalse();
        assertThat(requests()).hasSize(1);
        assertThat(sleeps).isEmpty();
    }

    @Test
    void anUnknownStateIsAClearErrorNamingTheFieldAndIsNotRetried() {
        String body = MachineApiJson.machineList(List.of(RUNNING)).replace("\"running\"", "\"hibernating\"");
        wireMock.stubFor(get("/v1/pools/workers/machines").willReturn(json(200, body)));

        MachineApiException e = catchThrowableOfType(MachineApiException.class, () -> client().list("workers"));

        assertThat(e.getMessage()).isEqualTo("GET " + url("/v1/pools/workers/machines") + ": 200 answer not as the machine API says: "
                + "field \"machines[0].state\" is \"hibernating\", not one of creating, running, updating, deleting, failed");
        assertThat(e.retryable()).isFalse();
        assertThat(requests()).hasSize(1);
    }

    @Test
    void aMachineWithoutIdIsAClearErrorNamingTheFieldAndIsNotRetried() {
        String body = MachineApiJson.machine(MACHINE).replace("\"id\":\"m-1\",", "");
        wireMock.stubFor(post("/v1/pools/workers/machines").willReturn(json(201, body)));

        MachineApiException e = catchThrowableOfType(MachineApiException.class, () -> client().create("workers", KEY, REQUEST));

        assertThat(e.getMessage()).isEqualTo("POST " + url("/v1/pools/workers/machines") + ": 201 answer not as the machine API says: "
                + "field \"id\" must be a non-empty string");
        assertThat(e.status()).isEqualTo(201);
        assertThat(e.retryable()).isFalse();
        assertThat(requests()).hasSize(1);
    }

    @Test
    void anUnexpectedSuccessStatusIsAnErrorAndIsNotRetried() {
        wireMock.stubFor(post("/v1/pools/workers/machines").willReturn(aResponse().withStatus(204)));

        MachineApiException e = catchThrowableOfType(MachineApiException.class, () -> client().create("workers", KEY, REQUEST));

        assertThat(e.getMessage()).isEqualTo("POST " + url("/v1/pools/workers/machines") + ": 204 (no message) (expected 200 or 201)");
        assertThat(e.retryable()).isFalse();
        assertThat(requests()).hasSize(1);
    }

    // ---- client errors: never retried ----

    @ParameterizedTest
    @ValueSource(ints = {401, 403})
    void aRefusedTokenNamesTheUrlAndTheTokenFileButNotTheTokenAndIsNotRetried(int status) {
        wireMock.stubFor(any(anyUrl()).willReturn(json(status, MachineApiJson.error("invalid credentials"))));

        List<ILoggingEvent> log = new ArrayList<>();
        MachineApiException e = catchThrowableOfType(MachineApiException.class,
                () -> captureLog(log, () -> client().create("workers", KEY, REQUEST)));

        assertThat(e.getMessage()).isEqualTo("POST " + url("/v1/pools/workers/machines") + ": " + status + " invalid credentials (the token in "
                + tokenFile + " was refused)");
        assertThat(e.getMessage()).doesNotContain(TOKEN);
        assertThat(e.status()).isEqualTo(status);
        assertThat(e.retryable()).isFalse();
        assertThat(requests()).hasSize(1);
        assertThat(log).isEmpty();
    }

    @Test
    void aServerThatEchoesTheTokenDoesNotGetItIntoTheMessage() {
        wireMock.stubFor(any(anyUrl()).willReturn(json(401, MachineApiJson.error("token " + TOKEN + " is unknown"))));

        MachineApiException e = catchThrowableOfType(MachineApiException.class, () -> client().list("workers"));

        assertThat(e.getMessage()).doesNotContain(TOKEN).contains("token <token> is unknown");
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 404, 409, 422})
    void otherClientErrorsAreThrownAtOnceWithTheServersMessage(int status) {
        wireMock.stubFor(post("/v1/machines/m-0/replace").willReturn(json(status, MachineApiJson.error("what went wrong"))));

        MachineApiException e = catchThrowableOfType(MachineApiException.class,
                () -> client().replace("m-0", IdempotencyKeys.of("workers", "replace", "m-0", "roll-abc"), REQUEST));

        assertThat(e.getMessage()).isEqualTo("POST " + url("/v1/machines/m-0/replace") + ": " + status + " what went wrong");
        assertThat(e.status()).isEqualTo(status);
        assertThat(e.retryable()).isFalse();
        assertThat(requests()).hasSize(1);
        assertThat(sleeps).isEmpty();
    }

    @Test
    void anErrorWithoutAJsonMessageShowsTheStartOfTheBody() {
        wireMock.stubFor(get("/v1/pools/workers/machines").willReturn(aResponse().withStatus(400).withBody("<html>\n<h1>Bad Request</h1>\n</html>")));

        MachineApiException e = catchThrowableOfType(MachineApiException.class, () -> client().list("workers"));

        assertThat(e.getMessage()).isEqualTo("GET " + url("/v1/pools/workers/machines") + ": 400 <html> <h1>Bad Request</h1> </html>");
    }

    // ---- answers too large to be the machine API's ----

    /** A machine whose annotation makes its JSON about {@code kib} KiB. */
    private static ApiMachine machineOf(String id, int kib) {
        return new ApiMachine(id, "workers", null, MachineState.RUNNING, Instant.parse("2026-11-20T08:00:00Z"),
                Map.of("note", "x".repeat(kib * 1024)), null);
    }

    @Test
    void anAnswerLargerThanOneMebibyteIsRefusedUnreadNamingTheUrlAndIsNotRetried() {
        wireMock.stubFor(post("/v1/pools/workers/machines").willReturn(json(201, MachineApiJson.machine(machineOf("m-1", 1025)))));

        MachineApiException e = catchThrowableOfType(MachineApiException.class, () -> client().create("workers", KEY, REQUEST));

        assertThat(e).isNotNull();
        assertThat(e.getMessage()).isEqualTo("POST " + url("/v1/pools/workers/machines") + ": the answer is larger than 1 MiB;"
                + " refused, unread");
        assertThat(e.retryable()).isFalse();
        assertThat(requests()).hasSize(1);
    }

    @Test
    void aListingMayBeLargerThanOneAnswerButNotLargerThanSixteenMebibytes() {
        List<ApiMachine> two = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            two.add(machineOf("m-" + i, 100));
        }
        wireMock.stubFor(get("/v1/pools/workers/machines").willReturn(json(200, MachineApiJson.machineList(two))));
        assertThat(client().list("workers")).as("2 MiB of machines").hasSize(20);

        List<ApiMachine> seventeen = new ArrayList<>();
        for (int i = 0; i < 175; i++) {
            seventeen.add(machineOf("m-" + i, 100));
        }
        wireMock.stubFor(get("/v1/pools/workers/machines").willReturn(json(200, MachineApiJson.machineList(seventeen))));
        MachineApiException e = catchThrowableOfType(MachineApiException.class, () -> client().list("workers"));

        assertThat(e).isNotNull();
        assertThat(e.getMessage()).isEqualTo("GET " + url("/v1/pools/workers/machines") + ": the answer is larger than 16 MiB;"
                + " refused, unread");
        assertThat(e.retryable()).isFalse();
    }

    // ---- the token only where no one else reads it ----

    @Test
    void theTokenIsNeverSentOverPlainHttpToAHostThatIsNotLoopback() {
        // Nothing listens there: the refusal comes before any connection.
        assertThatThrownBy(() -> client(URI.create("http://machines.example.com:9500"), FAST, Duration.ofSeconds(5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http://machines.example.com:9500 is plain http:// to a host that is not loopback");
        wireMock.stubFor(get("/v1/pools/workers/machines").willReturn(json(200, MachineApiJson.machineList(List.of()))));
        assertThat(client(URI.create("http://localhost:" + wireMock.port()), FAST, Duration.ofSeconds(5)).list("workers")).isEmpty();
    }

    // ---- paths ----

    @Test
    void idsArePercentEncodedAsOnePathSegment() {
        assertThat(HttpMachineApiClient.segment("i-0abc")).isEqualTo("i-0abc");
        assertThat(HttpMachineApiClient.segment("zone a/vm 1")).isEqualTo("zone%20a%2Fvm%201");
        assertThat(HttpMachineApiClient.segment("..")).isEqualTo("%2E%2E");
        assertThat(HttpMachineApiClient.segment("ü")).isEqualTo("%C3%BC");
    }

    /** Runs the action and adds what the client logged meanwhile to {@code into}, also when it throws. */
    private static void captureLog(List<ILoggingEvent> into, Runnable action) {
        Logger logger = (Logger) LoggerFactory.getLogger(HttpMachineApiClient.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            action.run();
        } finally {
            logger.detachAppender(appender);
            into.addAll(appender.list);
        }
    }
}
