package dev.nightshift.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.StreamSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.Kubectl;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * The acceptance points of health-based repair and pool annotations, run as a user runs them:
 * {@code java -jar nightshift.jar sandbox} started on a spec directory written here, changes pushed
 * with the real {@code git} from the sandbox's clone, nodes changed and read with the real
 * {@code kubectl} (Debian's kubernetes-client), and the agent's {@code /status}. One sandbox per
 * scenario. {@code HealthRepairIT} and {@code AnnotationPropagationIT} prove the same in process,
 * from the request log.
 */
class SandboxAcceptanceIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Generous: a 2-core machine shared with other builds starts a JVM, an API server and an agent slowly. */
    private static final Duration OUTCOME = Duration.ofSeconds(120);
    private static final Duration HEALTH_TIMEOUT = Duration.ofSeconds(5);
    private static final List<String> SEEDED = List.of("web-1", "web-2", "web-3");
    private static final String RECORD = "nightshift-pool-web";
    private static final String RECORDS_NAMESPACE = "nightshift-system";

    /** The only window opens on 1 January 2099: closed for as long as these tests run. */
    private static final String CLUSTER_WINDOW_CLOSED = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: acceptance}
            spec:
              kubernetes: {version: "1.31.4"}
              maintenance:
                windows: [{schedule: "0 0 0 1 1 ? 2099", duration: 1h, timeZone: UTC}]
            """;

    /** No maintenance windows: always open. */
    private static final String CLUSTER_ALWAYS_OPEN = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: acceptance}
            spec:
              kubernetes: {version: "1.31.4"}
            """;

    private static final String OWNER = "example.com/owner";
    private static final String FOREIGN = "example.com/oncall";
    private static final String EMERGENCY = "nightshift.dev/rollout-outside-window";

    @TempDir
    Path tmp;

    /** Pool {@code web} of 3 nodes, maxSurge 1 and maxUnavailable 0, with {@code annotations} and the {@code machineControllerManager} given. */
    private static String pool(String annotations, String machineControllerManager) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata:
                  name: web
                  cluster: acceptance
                  annotations: {%s}
                spec:
                  minimum: 3
                  maximum: 6
                  maxSurge: 1
                  maxUnavailable: 0
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                  machineControllerManager: {%s}
                """.formatted(annotations, machineControllerManager);
    }

    private Path specDirectory(String cluster, String pool) throws IOException {
        Path dir = tmp.resolve("spec");
        Files.createDirectories(dir.resolve("pools"));
        Files.writeString(dir.resolve("cluster.yaml"), cluster, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("pools/web.yaml"), pool, StandardCharsets.UTF_8);
        return dir;
    }

    private SandboxProcess start(String cluster, String pool) throws IOException {
        return SandboxProcess.start(tmp.resolve("run"), specDirectory(cluster, pool));
    }

    @Test
    void aNodeWithDiskPressureForLongerThanHealthTimeoutIsReplacedWhileTheWindowIsClosed() throws Exception {
        try (SandboxProcess sandbox = start(CLUSTER_WINDOW_CLOSED, pool("", "healthTimeout: 5s"))) {
            awaitPoolRecord(sandbox);
            assertThat(sandbox.status().path("window").path("open").asBoolean(true)).as("the maintenance window is closed").isFalse();
            Map<String, JsonNode> before = webNodes(sandbox);
            assertThat(before).containsOnlyKeys(SEEDED);

            // Paused by hand (docs/commands/plan.md: the annotation on the pool's status record), so that /status can be
            // read while the node is failed and not yet repaired: without pods to drain, a repair can
            // start and end between two looks. A pause stops repairs as it stops everything else.
            Instant paused = Instant.now();
            kubectl(sandbox, "annotate", "configmap", RECORD, "-n", RECORDS_NAMESPACE, "nightshift.dev/paused=true", "--overwrite");
            awaitReconcileAfter(sandbox, paused);
            Instant since = setCondition(sandbox, "web-2", "DiskPressure", "True");

            await("web-2 reported failed").atMost(OUTCOME).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(webPool(sandbox).path("failedNodes")).singleElement().satisfies(failed -> {
                        assertThat(failed.path("node").asText()).isEqualTo("web-2");
                        assertThat(failed.path("condition").asText()).isEqualTo("DiskPressure");
                        assertThat(Instant.parse(failed.path("since").asText())).isEqualTo(since);
                    }));
            assertThat(webPool(sandbox).path("failed").asInt()).as("/status failed count").isEqualTo(1);
            assertThat(webNodes(sandbox)).as("held by the pause: nothing cordoned or deleted yet").containsOnlyKeys(SEEDED)
                    .allSatisfy((name, node) -> assertThat(cordoned(node)).as(name + " cordoned").isFalse());

            kubectl(sandbox, "annotate", "configmap", RECORD, "-n", RECORDS_NAMESPACE, "nightshift.dev/paused-");

            // Watched with kubectl while it is repaired: every web node listed, the most at once, who was cordoned.
            Set<String> seen = new HashSet<>();
            Set<String> cordoned = new HashSet<>();
            AtomicInteger most = new AtomicInteger();
            await("web-2 replaced by one Ready node").atMost(OUTCOME).pollInterval(Duration.ofMillis(300)).until(() -> {
                Map<String, JsonNode> nodes = webNodes(sandbox);
                seen.addAll(nodes.keySet());
                most.accumulateAndGet(nodes.size(), Math::max);
                nodes.forEach((name, node) -> {
                    if (cordoned(node)) {
                        cordoned.add(name);
                    }
                });
                return !nodes.containsKey("web-2") && nodes.size() == 3 && nodes.values().stream().allMatch(SandboxAcceptanceIT::ready);
            });

            Map<String, JsonNode> after = webNodes(sandbox);
            Set<String> added = new HashSet<>(seen);
            SEEDED.forEach(added::remove);
            assertThat(added).as("new machines kubectl ever listed").hasSize(1);
            assertThat(after).as("web's nodes at the end").containsKeys("web-1", "web-3").doesNotContainKey("web-2")
                    .containsKeys(added.toArray(String[]::new));
            assertThat(most.get()).as("most web nodes listed at once, count + maxSurge").isLessThanOrEqualTo(4);
            assertThat(cordoned).as("nodes kubectl saw cordoned").isSubsetOf(Set.of("web-2"));
            for (String untouched : List.of("web-1", "web-3")) {
                assertThat(after.get(untouched).at("/metadata/uid").asText()).as(untouched + " is the same object")
                        .isEqualTo(before.get(untouched).at("/metadata/uid").asText());
                assertThat(cordoned(after.get(untouched))).as(untouched + " cordoned").isFalse();
            }
            assertThat(items(kubectlJson(sandbox, "get", "events", "-A", "-o", "json")))
                    .as("an Event on web-2 names the condition").anySatisfy(event -> {
                        assertThat(event.path("reason").asText()).isEqualTo("NodeFailed");
                        assertThat(event.at("/involvedObject/name").asText()).isEqualTo("web-2");
                        assertThat(event.path("message").asText()).contains("DiskPressure");
                    });
            await("/status without failed or unhealthy nodes").atMost(OUTCOME).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                JsonNode web = webPool(sandbox);
                assertThat(web.path("failedNodes")).as("failedNodes").isEmpty();
                assertThat(web.path("unhealthyNodes")).as("unhealthyNodes").isEmpty();
                assertThat(web.path("failed").asInt()).as("failed").isZero();
            });
            assertThat(sandbox.status().path("window").path("open").asBoolean(true)).as("the window is still closed").isFalse();
        }
    }

    @Test
    void withDisableHealthTimeoutAnUnhealthyNodeIsOnlyReportedAndStays() throws Exception {
        try (SandboxProcess sandbox = start(CLUSTER_WINDOW_CLOSED, pool("", "healthTimeout: 5s, disableHealthTimeout: true"))) {
            awaitPoolRecord(sandbox);
            Map<String, JsonNode> before = webNodes(sandbox);
            assertThat(before).containsOnlyKeys(SEEDED);

            Instant since = setCondition(sandbox, "web-2", "DiskPressure", "True");

            await("web-2 reported unhealthy").atMost(OUTCOME).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(webPool(sandbox).path("unhealthyNodes")).singleElement().satisfies(unhealthy -> {
                        assertThat(unhealthy.path("node").asText()).isEqualTo("web-2");
                        assertThat(unhealthy.path("condition").asText()).isEqualTo("DiskPressure");
                        assertThat(Instant.parse(unhealthy.path("since").asText())).isEqualTo(since);
                    }));
            // Long past healthTimeout, the agent reconciles three more times (each woken by a touch on web-1).
            Instant deadline = since.plus(HEALTH_TIMEOUT).plusSeconds(1);
            await("healthTimeout passed").atMost(OUTCOME).until(() -> Instant.now().isAfter(deadline));
            for (int touch = 1; touch <= 3; touch++) {
                Instant touched = Instant.now();
                kubectl(sandbox, "annotate", "node", "web-1", "example.com/touched=" + touch, "--overwrite");
                awaitReconcileAfter(sandbox, touched);
            }

            JsonNode web = webPool(sandbox);
            assertThat(web.path("unhealthyNodes")).as("still reported unhealthy").singleElement()
                    .satisfies(unhealthy -> assertThat(unhealthy.path("node").asText()).isEqualTo("web-2"));
            assertThat(web.path("failedNodes")).as("never failed").isEmpty();
            assertThat(web.path("failed").asInt()).as("failed").isZero();
            Map<String, JsonNode> after = webNodes(sandbox);
            assertThat(after).as("no node replaced").containsOnlyKeys(SEEDED);
            after.forEach((name, node) -> {
                assertThat(node.at("/metadata/uid").asText()).as(name + " is the same object").isEqualTo(before.get(name).at("/metadata/uid").asText());
                assertThat(cordoned(node)).as(name + " cordoned").isFalse();
            });
        }
    }

    @Test
    void aPoolAnnotationAddedChangedAndRemovedInGitShowsOnAndDisappearsFromTheNodesWhileAnotherClientsStays() throws Exception {
        try (SandboxProcess sandbox = start(CLUSTER_ALWAYS_OPEN, pool("", ""))) {
            awaitPoolRecord(sandbox);
            Map<String, JsonNode> before = webNodes(sandbox);
            kubectl(sandbox, "annotate", "node", "web-1", FOREIGN + "=ops");

            pushPool(sandbox, OWNER + ": team-web, " + EMERGENCY + ": \"true\"", "annotate web's nodes");
            awaitOnEveryNode(sandbox, "the pool annotation added", node -> assertThat(annotations(node)).containsEntry(OWNER, "team-web"));
            assertForeignStaysAndNothingElseChanged(sandbox, before);

            pushPool(sandbox, OWNER + ": team-api", "change the owner");
            awaitOnEveryNode(sandbox, "the pool annotation changed", node -> assertThat(annotations(node)).containsEntry(OWNER, "team-api"));
            assertForeignStaysAndNothingElseChanged(sandbox, before);

            pushPool(sandbox, "", "remove the owner");
            awaitOnEveryNode(sandbox, "the pool annotation removed", node -> assertThat(annotations(node)).doesNotContainKey(OWNER));
            assertForeignStaysAndNothingElseChanged(sandbox, before);
        }
    }

    private void pushPool(SandboxProcess sandbox, String annotations, String message) throws IOException, InterruptedException {
        Files.writeString(sandbox.info().workingClone().resolve("pools/web.yaml"), pool(annotations, ""), StandardCharsets.UTF_8);
        sandbox.commitAndPush(message);
    }

    private void awaitOnEveryNode(SandboxProcess sandbox, String what, Consumer<JsonNode> requirement) {
        await(what).atMost(OUTCOME).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                assertThat(webNodes(sandbox)).hasSize(3).allSatisfy((name, node) -> requirement.accept(node)));
    }

    private void assertForeignStaysAndNothingElseChanged(SandboxProcess sandbox, Map<String, JsonNode> before) throws Exception {
        Map<String, JsonNode> nodes = webNodes(sandbox);
        assertThat(annotations(nodes.get("web-1"))).as("the annotation another client set stays").containsEntry(FOREIGN, "ops");
        assertThat(nodes).as("the same machines: metadata only").containsOnlyKeys(before.keySet()).allSatisfy((name, node) -> {
            assertThat(node.at("/metadata/uid").asText()).as(name + " is the same object").isEqualTo(before.get(name).at("/metadata/uid").asText());
            assertThat(cordoned(node)).as(name + " cordoned").isFalse();
            assertThat(annotations(node)).as("a control annotation never reaches a node").doesNotContainKey(EMERGENCY);
        });
    }

    /**
     * Sets a condition on a node's status, as a real node's kubelet or node-problem-detector does.
     * kubectl 1.20 cannot patch the status subresource, so this one write goes through a fabric8
     * client built from the sandbox's kubeconfig. Returns the condition's lastTransitionTime (whole
     * seconds, as the API server keeps it).
     */
    private static Instant setCondition(SandboxProcess sandbox, String node, String type, String status) throws IOException {
        Instant since = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        NodeCondition condition = new NodeConditionBuilder().withType(type).withStatus(status).withReason("Test")
                .withLastTransitionTime(since.toString()).withLastHeartbeatTime(since.toString()).build();
        Config config = Config.fromKubeconfig(Files.readString(sandbox.info().kubeconfig(), StandardCharsets.UTF_8));
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
            client.nodes().withName(node).editStatus(n -> {
                List<NodeCondition> conditions = new ArrayList<>(n.getStatus().getConditions());
                conditions.removeIf(c -> c.getType().equals(type));
                conditions.add(condition);
                n.getStatus().setConditions(conditions);
                return n;
            });
        }
        return since;
    }

    /** The agent has written web's status record: it runs and has reconciled the pool. */
    private void awaitPoolRecord(SandboxProcess sandbox) {
        await("the pool's status record").atMost(OUTCOME).pollInterval(Duration.ofMillis(500)).until(() ->
                Kubectl.run(tmp, sandbox.info().kubeconfig(), "get", "configmap", RECORD, "-n", RECORDS_NAMESPACE).exitCode() == 0);
    }

    /** Waits until /status reports a reconcile later than {@code instant}. */
    private static void awaitReconcileAfter(SandboxProcess sandbox, Instant instant) {
        await("a reconcile after " + instant).atMost(OUTCOME).pollInterval(Duration.ofMillis(200)).until(() -> {
            String last = sandbox.status().path("lastReconcile").asText("");
            return !last.isEmpty() && Instant.parse(last).isAfter(instant);
        });
    }

    private static JsonNode webPool(SandboxProcess sandbox) throws IOException, InterruptedException {
        return StreamSupport.stream(sandbox.status().path("pools").spliterator(), false)
                .filter(p -> "web".equals(p.path("pool").asText())).findFirst().orElse(JSON.missingNode());
    }

    /** web's nodes by name, as {@code kubectl get nodes -l nightshift.dev/pool=web -o json} lists them. */
    private Map<String, JsonNode> webNodes(SandboxProcess sandbox) throws IOException, InterruptedException {
        Map<String, JsonNode> nodes = new TreeMap<>();
        items(kubectlJson(sandbox, "get", "nodes", "-l", NodeMarks.POOL + "=web", "-o", "json"))
                .forEach(n -> nodes.put(n.at("/metadata/name").asText(), n));
        return nodes;
    }

    private static boolean cordoned(JsonNode node) {
        return node.at("/spec/unschedulable").asBoolean(false);
    }

    private static boolean ready(JsonNode node) {
        return StreamSupport.stream(node.at("/status/conditions").spliterator(), false)
                .anyMatch(c -> "Ready".equals(c.path("type").asText()) && "True".equals(c.path("status").asText()));
    }

    private static Map<String, String> annotations(JsonNode node) {
        Map<String, String> annotations = new TreeMap<>();
        node.at("/metadata/annotations").fields().forEachRemaining(e -> annotations.put(e.getKey(), e.getValue().asText()));
        return annotations;
    }

    private static List<JsonNode> items(JsonNode list) {
        return StreamSupport.stream(list.path("items").spliterator(), false).toList();
    }

    private String kubectl(SandboxProcess sandbox, String... args) throws IOException, InterruptedException {
        Kubectl.Run run = Kubectl.run(tmp, sandbox.info().kubeconfig(), args);
        assertThat(run.exitCode()).as("kubectl %s; stderr: %s", String.join(" ", args), run.stderr()).isZero();
        return run.stdout();
    }

    private JsonNode kubectlJson(SandboxProcess sandbox, String... args) throws IOException, InterruptedException {
        return JSON.readTree(kubectl(sandbox, args));
    }
}
