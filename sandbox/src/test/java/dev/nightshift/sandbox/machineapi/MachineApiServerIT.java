package dev.nightshift.sandbox.machineapi;

import static dev.nightshift.sandbox.machineapi.MachineApiCloudIT.QUICK;
import static dev.nightshift.sandbox.machineapi.MachineApiCloudIT.REQUEST;
import static dev.nightshift.sandbox.machineapi.MachineApiCloudIT.SPEC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGeneratorFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.provider.http.ApiMachine;
import dev.nightshift.agent.provider.http.MachineApiJson;
import dev.nightshift.agent.provider.http.MachineState;
import dev.nightshift.agent.provider.http.UpdateRequest;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;

/** The machine API over real HTTP ({@code java.net.http}), as an adapter must serve it, against the sandbox's cloud. */
class MachineApiServerIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String KEY = "ns1-0123456789abcdef0123";

    @TempDir
    Path dir;

    private final EmbeddedKubernetes cluster = EmbeddedKubernetes.start();
    private final ScheduledExecutorService threads = Executors.newScheduledThreadPool(2);
    private MachineApiServer server;
    private String token;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        threads.shutdownNow();
        cluster.close();
    }

    private MachineApiServer start(Holds holds) throws IOException {
        MachineApiCloud cloud = new MachineApiCloud(cluster.client(), threads, Clock.systemUTC(),
                RandomGeneratorFactory.of("L64X128MixRandom").create(5), QUICK, new MachineLog(Optional.of(dir.resolve("machine-log.jsonl"))));
        server = MachineApiServer.start(cloud, new RequestLog(Optional.of(dir.resolve("requests.jsonl"))), holds,
                dir.resolve("machine-api-token"), Clock.systemUTC());
        token = Files.readString(dir.resolve("machine-api-token"));
        return server;
    }

    @Test
    void theTokenFileIsTheOwnersOnlyAndARequestWithoutOrWithAWrongTokenIs401WithAMessage() throws Exception {
        start(Holds.none());

        HttpResponse<String> without = HTTP.send(HttpRequest.newBuilder(url("/v1/pools/web/machines")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> wrong = send("GET", "/v1/pools/web/machines", "wrong-token", null, null);

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(server.tokenFile()))).isEqualTo("rw-------");
        assertThat(token).hasSize(64);
        assertThat(without.statusCode()).isEqualTo(401);
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(MachineApiJson.errorMessage(wrong.body())).hasValueSatisfying(m -> assertThat(m).contains("bearer token")
                .doesNotContain(token));
        assertThat(server.cloud().list("web")).isEmpty();
    }

    @Test
    void aPoolNeverSeenListsNoMachines() throws Exception {
        start(Holds.none());

        HttpResponse<String> list = send("GET", "/v1/pools/x/machines", token, null, null);

        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(list.body())).isEqualTo(JSON.readTree("{\"machines\":[]}"));
    }

    @Test
    void aCreateIs201AndTheSameKeyAgainIs200WithTheSameMachineAndNoOther() throws Exception {
        start(Holds.none());

        HttpResponse<String> first = send("POST", "/v1/pools/web/machines", token, KEY, MachineApiJson.machineRequest(REQUEST));
        HttpResponse<String> again = send("POST", "/v1/pools/web/machines", token, KEY, MachineApiJson.machineRequest(REQUEST));

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(again.statusCode()).isEqualTo(200);
        ApiMachine made = MachineApiJson.readMachine(first.body());
        assertThat(MachineApiJson.readMachine(again.body()).id()).isEqualTo(made.id());
        assertThat(made.state()).isEqualTo(MachineState.CREATING);
        assertThat(made.annotations()).isEqualTo(REQUEST.annotations());
        List<ApiMachine> listed = MachineApiJson.readMachineList(send("GET", "/v1/pools/web/machines", token, null, null).body());
        assertThat(listed).extracting(ApiMachine::id).containsExactly(made.id());
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.client().nodes().withName(made.nodeName()).get() != null);
        assertThat(cluster.client().nodes().withName(made.nodeName()).get().getMetadata().getLabels())
                .containsAllEntriesOf(REQUEST.labels()).hasSize(REQUEST.labels().size() + 1);
    }

    @Test
    void aDeleteIs202AndOnceTheMachineIsGone404() throws Exception {
        start(Holds.none());
        ApiMachine machine = server.cloud().seed("web", 1, Map.of(), Map.of()).get(0);

        HttpResponse<String> delete = send("DELETE", "/v1/machines/" + machine.id(), token, null, null);

        assertThat(delete.statusCode()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.client().nodes().withName(machine.nodeName()).get() == null);
        await().atMost(Duration.ofSeconds(10)).until(() -> send("DELETE", "/v1/machines/" + machine.id(), token, null, null)
                .statusCode() == 404);
        assertThat(JSON.readTree(send("GET", "/v1/pools/web/machines", token, null, null).body()).path("machines")).isEmpty();
    }

    @Test
    void aReplaceIs202WithTheReplacementWhileTheOldMachineIsDeleting() throws Exception {
        start(Holds.none());
        ApiMachine old = server.cloud().seed("web", 1, Map.of(), Map.of()).get(0);

        HttpResponse<String> replace = send("POST", "/v1/machines/" + old.id() + "/replace", token, KEY,
                MachineApiJson.machineRequest(REQUEST));

        assertThat(replace.statusCode()).isEqualTo(202);
        ApiMachine replacement = MachineApiJson.readMachine(replace.body());
        List<ApiMachine> listed = MachineApiJson.readMachineList(send("GET", "/v1/pools/web/machines", token, null, null).body());
        assertThat(listed).extracting(ApiMachine::id, ApiMachine::state).containsExactly(
                org.assertj.core.groups.Tuple.tuple(old.id(), MachineState.DELETING),
                org.assertj.core.groups.Tuple.tuple(replacement.id(), MachineState.CREATING));
        assertThat(send("POST", "/v1/machines/m-web-404/replace", token, "ns1-another-key-0000000", MachineApiJson.machineRequest(REQUEST))
                .statusCode()).as("replacing an unknown machine").isEqualTo(404);
    }

    @Test
    void anUpdateIs202ThenTheMachineIsUpdatingThenRunningWithTheNewAnnotations() throws Exception {
        start(Holds.none());
        ApiMachine machine = server.cloud().seed("web", 1, Map.of(), Map.of("nightshift.dev/roll-hash", "r0")).get(0);

        HttpResponse<String> update = send("POST", "/v1/machines/" + machine.id() + "/update", token, KEY, MachineApiJson.updateRequest(
                new UpdateRequest(UpdateRequest.Operation.IN_PLACE_UPDATE, Map.of("nightshift.dev/roll-hash", "r1"), SPEC)));

        assertThat(update.statusCode()).isEqualTo(202);
        assertThat(listed(machine.id()).state()).isEqualTo(MachineState.UPDATING);
        await().atMost(Duration.ofSeconds(10)).until(() -> listed(machine.id()).state() == MachineState.RUNNING);
        assertThat(listed(machine.id()).annotations()).isEqualTo(Map.of("nightshift.dev/roll-hash", "r1"));
    }

    @Test
    void aPatchMergesTheAnnotationsAndANullRemovesOne() throws Exception {
        start(Holds.none());
        ApiMachine machine = server.cloud().seed("web", 1, Map.of(), Map.of("a", "1", "b", "2")).get(0);

        HttpResponse<String> patch = send("PATCH", "/v1/machines/" + machine.id(), token, null, "{\"annotations\":{\"a\":null,\"c\":\"3\"}}");

        assertThat(patch.statusCode()).isEqualTo(200);
        assertThat(MachineApiJson.readMachine(patch.body()).annotations()).isEqualTo(Map.of("b", "2", "c", "3"));
        assertThat(send("PATCH", "/v1/machines/m-web-404", token, null, "{\"annotations\":{}}").statusCode()).isEqualTo(404);
    }

    @Test
    void aMalformedBodyOrAMissingKeyIs400WithTheFieldAndNothingIsCreated() throws Exception {
        start(Holds.none());

        HttpResponse<String> malformed = send("POST", "/v1/pools/web/machines", token, KEY, "{\"labels\":{},\"annotations\":{},\"taints\":[]}");
        HttpResponse<String> notJson = send("POST", "/v1/pools/web/machines", token, KEY, "{labels");
        HttpResponse<String> keyless = send("POST", "/v1/pools/web/machines", token, null, MachineApiJson.machineRequest(REQUEST));

        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(MachineApiJson.errorMessage(malformed.body())).hasValueSatisfying(m -> assertThat(m).contains("\"spec\""));
        assertThat(notJson.statusCode()).isEqualTo(400);
        assertThat(MachineApiJson.errorMessage(notJson.body())).hasValueSatisfying(m -> assertThat(m).contains("not JSON"));
        assertThat(keyless.statusCode()).isEqualTo(400);
        assertThat(MachineApiJson.errorMessage(keyless.body())).hasValueSatisfying(m -> assertThat(m).contains("Idempotency-Key"));
        assertThat(server.cloud().list("web")).isEmpty();
    }

    @Test
    void anUnknownPathIs404AndAWrongMethod405() throws Exception {
        start(Holds.none());

        assertThat(send("GET", "/v2/pools/web/machines", token, null, null).statusCode()).isEqualTo(404);
        assertThat(send("GET", "/v1/machines/m-web-1/explode", token, null, null).statusCode()).isEqualTo(404);
        HttpResponse<String> wrongMethod = send("PUT", "/v1/pools/web/machines", token, null, "{}");
        assertThat(wrongMethod.statusCode()).isEqualTo(405);
        assertThat(wrongMethod.headers().firstValue("Allow")).hasValue("GET, POST");
    }

    @Test
    void theAnswerToAChosenCreateIsHeldAfterItsWorkIsDoneUntilReleasedAndEveryRequestIsLogged() throws Exception {
        start(Holds.parse("create:2"));
        assertThat(send("POST", "/v1/pools/web/machines", token, KEY, MachineApiJson.machineRequest(REQUEST)).statusCode()).isEqualTo(201);

        CompletableFuture<HttpResponse<String>> second = HTTP.sendAsync(request("POST", "/v1/pools/web/machines", token,
                "ns1-the-second-create-key", MachineApiJson.machineRequest(REQUEST)), HttpResponse.BodyHandlers.ofString());

        await().atMost(Duration.ofSeconds(10)).until(() -> server.requests().entries().stream()
                .anyMatch(e -> e.phase() == RequestLog.Phase.HELD));
        RequestLog.Entry held = server.requests().entries().stream().filter(e -> e.phase() == RequestLog.Phase.HELD).findFirst().orElseThrow();
        assertThat(held.operation()).isEqualTo("createMachine");
        assertThat(held.ordinal()).isEqualTo(2);
        assertThat(held.status()).isEqualTo(201);
        assertThat(server.cloud().machine(held.machine())).as("the work is done while the answer is held").isPresent();
        assertThat(second).isNotDone();

        server.release();

        HttpResponse<String> answer = second.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(answer.statusCode()).isEqualTo(201);
        assertThat(MachineApiJson.readMachine(answer.body()).id()).isEqualTo(held.machine());
        List<JsonNode> lines = Files.readAllLines(dir.resolve("requests.jsonl"), StandardCharsets.UTF_8).stream().map(this::json).toList();
        assertThat(lines).extracting(l -> l.path("operation").asText(), l -> l.path("ordinal").asInt(), l -> l.path("phase").asText())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("createMachine", 1, "answered"),
                        org.assertj.core.groups.Tuple.tuple("createMachine", 2, "held"),
                        org.assertj.core.groups.Tuple.tuple("createMachine", 2, "released"));
        assertThat(lines.get(1).path("idempotencyKey").asText()).isEqualTo("ns1-the-second-create-key");
        assertThat(Files.readAllLines(dir.resolve("machine-log.jsonl"), StandardCharsets.UTF_8)).hasSize(2)
                .allMatch(l -> json(l).path("event").asText().equals("created"));
    }

    private ApiMachine listed(String id) throws IOException, InterruptedException {
        return MachineApiJson.readMachineList(send("GET", "/v1/pools/web/machines", token, null, null).body()).stream()
                .filter(m -> m.id().equals(id)).findFirst().orElseThrow();
    }

    private JsonNode json(String line) {
        try {
            return JSON.readTree(line);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private URI url(String path) {
        return URI.create(server.url() + path);
    }

    private HttpRequest request(String method, String path, String bearer, String key, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(url(path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Authorization", "Bearer " + bearer);
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        if (body != null) {
            b.header("Content-Type", method.equals("PATCH") ? "application/merge-patch+json" : "application/json");
        }
        return b.build();
    }

    private HttpResponse<String> send(String method, String path, String bearer, String key, String body)
            throws IOException, InterruptedException {
        return HTTP.send(request(method, path, bearer, key, body), HttpResponse.BodyHandlers.ofString());
    }
}
