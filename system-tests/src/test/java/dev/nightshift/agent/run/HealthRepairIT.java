package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;

/**
 * Health-based repair against the embedded cluster, judged from the request log: a node with a
 * watched condition True for longer than healthTimeout is replaced while the maintenance window
 * is closed; with disableHealthTimeout, and in an in-place pool where it defaults to true, it is
 * only reported; a pool whose nodes are mostly Unknown repairs nothing.
 */
class HealthRepairIT {

    /** The only window opens in 2099: closed for as long as this test runs. */
    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
              maintenance:
                windows: [{schedule: "0 0 0 1 1 ? 2099", duration: 1h, timeZone: UTC}]
            """;

    /** Limits maxSurge 1, maxUnavailable 0 unless {@code extra} sets its own (a key given twice is refused). */
    private static String pool(int size, String extra) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: e2e}
                spec:
                  minimum: %d
                  maximum: 10
                %s  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                %s
                """.formatted(size, extra.contains("maxSurge:") ? "" : "  maxSurge: 1\n  maxUnavailable: 0\n", extra.indent(2));
    }

    /** Longer ago than the default healthTimeout of 10 minutes. */
    private static final Instant LONG_AGO = Instant.now().minus(Duration.ofMinutes(20));
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    private void start(int size, String extra) throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", size);
        h.work.write("cluster.yaml", CLUSTER);
        h.work.write("pools/web.yaml", pool(size, extra));
        h.work.commitAndPush("initial");
        h.startAgent("e2e");
        h.awaitAdopted("web", size);
        h.awaitPoolRecord("web");
    }

    /** Sets a condition on a node's status, as the kubelet or a node-problem detector would. */
    private void setCondition(String node, String type, String status, Instant since) {
        NodeCondition condition = new NodeConditionBuilder().withType(type).withStatus(status).withReason("Test")
                .withLastTransitionTime(since.toString()).withLastHeartbeatTime(since.toString()).build();
        h.kube.client().nodes().withName(node).editStatus(n -> {
            List<NodeCondition> conditions = new ArrayList<>(n.getStatus().getConditions());
            conditions.removeIf(c -> c.getType().equals(type));
            conditions.add(condition);
            n.getStatus().setConditions(conditions);
            return n;
        });
    }

    private JsonNode poolStatus() throws Exception {
        for (JsonNode p : JSON.readTree(h.http("/status")).path("pools")) {
            if ("web".equals(p.path("pool").asText())) {
                return p;
            }
        }
        return JSON.missingNode();
    }

    private List<RecordedRequest> log() {
        return h.kube.requests();
    }

    private long nodesCreated() {
        return log().stream().filter(r -> "POST".equals(r.method()) && r.resourcePath().equals("/api/v1/nodes") && r.succeeded()).count();
    }

    private static boolean isNodeDelete(RecordedRequest r) {
        return "DELETE".equals(r.method()) && r.resourcePath().startsWith("/api/v1/nodes/") && r.succeeded();
    }

    /** The most Node objects that existed at once, replaying creates and deletions in the order they took effect. */
    private static int mostNodesAtOnce(List<RecordedRequest> log, int initial) {
        Set<String> gone = new HashSet<>();
        int nodes = initial;
        int most = nodes;
        for (RecordedRequest r : log) {
            if ("POST".equals(r.method()) && r.resourcePath().equals("/api/v1/nodes") && r.succeeded()) {
                most = Math.max(most, ++nodes);
            } else if (isNodeDelete(r) && gone.add(r.resourcePath())) {
                nodes--;
            }
        }
        return most;
    }

    @Test
    void aNodeWithDiskPressureForLongerThanHealthTimeoutIsReplacedWhileTheWindowIsClosed() throws Exception {
        start(3, "");
        long createdBefore = nodesCreated();

        setCondition("web-2", "DiskPressure", "True", LONG_AGO);

        await().atMost(Duration.ofSeconds(90)).until(() -> log().stream().anyMatch(r -> isNodeDelete(r)
                && r.resourcePath().equals("/api/v1/nodes/web-2")));
        await().atMost(Duration.ofSeconds(60)).until(() -> h.nodes("web").size() == 3 && h.nodes("web").stream()
                .allMatch(n -> n.getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("Ready")
                        && c.getStatus().equals("True"))));

        List<RecordedRequest> log = log();
        assertThat(nodesCreated() - createdBefore).as("one new machine").isEqualTo(1);
        assertThat(log.stream().filter(HealthRepairIT::isNodeDelete).map(RecordedRequest::resourcePath))
                .as("only the failed node is deleted").containsOnly("/api/v1/nodes/web-2");
        assertThat(log.stream().filter(SeenRequests::isCordon).map(RecordedRequest::resourcePath))
                .as("no other node is disrupted").containsOnly("/api/v1/nodes/web-2");
        assertThat(mostNodesAtOnce(log, 0)).as("count + maxSurge").isLessThanOrEqualTo(4);
        assertThat(h.kube.client().v1().events().inAnyNamespace().list().getItems())
                .anySatisfy(e -> {
                    assertThat(e.getReason()).isEqualTo("NodeFailed");
                    assertThat(e.getInvolvedObject().getName()).isEqualTo("web-2");
                    assertThat(e.getMessage()).contains("DiskPressure");
                });
    }

    @Test
    void anUnreachableFailedNodeIsNotHeldForDrainTimeoutByAPodItCannotConfirmGone() throws Exception {
        // The seeded machines are seconds old: past a creationTimeout of 5s a node not Ready is judged by health.
        start(3, "machineControllerManager: {creationTimeout: 5s}");
        // Its finalizer keeps the evicted pod with a deletionTimestamp, as a kubelet that no longer reports does.
        h.kube.client().pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName("app-1")
                .withFinalizers("example.com/hold").endMetadata()
                .withNewSpec().withNodeName("web-2").addNewContainer().withName("app").withImage("app:1").endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build()).create();

        setCondition("web-2", "Ready", "Unknown", LONG_AGO);

        // drainTimeout is 2 h: only the unreachable-node rule lets the machine go this soon.
        await().atMost(Duration.ofSeconds(90)).until(() -> log().stream().anyMatch(r -> isNodeDelete(r)
                && r.resourcePath().equals("/api/v1/nodes/web-2")));
        assertThat(log()).as("the pod was asked to leave").anyMatch(r -> "POST".equals(r.method())
                && r.resourcePath().equals("/api/v1/namespaces/default/pods/app-1/eviction") && r.succeeded());
        assertThat(h.kube.client().pods().inNamespace("default").withName("app-1").get().getMetadata().getDeletionTimestamp())
                .as("never confirmed gone").isNotNull();
    }

    @Test
    void aFailedNodeIsNotTouchedWhileTheApiServersReadyzFailsAndIsRepairedOnceItRecovers() throws Exception {
        start(3, "");
        long createdBefore = nodesCreated();
        h.kube.readyz(false);

        setCondition("web-2", "DiskPressure", "True", LONG_AGO);

        // Reported failed, unless a repair started at once.
        await().atMost(Duration.ofSeconds(60)).until(() -> web2Touched() || poolStatus().path("failedNodes").size() == 1);
        h.idleThroughReconciles("web-1", 3);
        assertThat(web2Touched()).as("web-2 cordoned or deleted while /readyz fails").isFalse();
        assertThat(log()).as("the agent asked the API server whether it is ready")
                .anyMatch(r -> r.userAgent().equals(AgentHarness.AGENT) && r.resourcePath().equals("/readyz"));
        assertThat(nodesCreated()).isEqualTo(createdBefore);

        h.kube.readyz(true);

        await().atMost(Duration.ofSeconds(90)).until(() -> log().stream().anyMatch(r -> isNodeDelete(r)
                && r.resourcePath().equals("/api/v1/nodes/web-2")));
    }

    private boolean web2Touched() {
        return log().stream().anyMatch(r -> r.resourcePath().equals("/api/v1/nodes/web-2") && (isNodeDelete(r) || SeenRequests.isCordon(r)));
    }

    @Test
    void aDryRunReportsAFailedNodeButWritesNothing() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 3);
        h.work.write("cluster.yaml", CLUSTER);
        h.work.write("pools/web.yaml", pool(3, ""));
        h.work.commitAndPush("initial");
        setCondition("web-2", "DiskPressure", "True", LONG_AGO);
        h.kube.clearRequests();

        h.startAgent("e2e", true);

        await().atMost(Duration.ofSeconds(60)).until(() -> poolStatus().path("failedNodes").size() == 1
                && poolStatus().path("failedNodes").get(0).path("node").asText().equals("web-2"));
        h.idleThroughReconciles("web-1", 3);

        assertThat(log()).as("a dry run writes nothing: no cordon, drain mark, eviction, Event or status record")
                .filteredOn(r -> r.userAgent().equals(AgentHarness.AGENT)).noneMatch(RecordedRequest::isWrite);
        assertThat(log()).as("nor asks the cloud for a machine or deletes one")
                .noneMatch(r -> r.isWrite() && (r.resourcePath().equals("/api/v1/nodes") || isNodeDelete(r)));
    }

    /** Pools in which health-based repair is off: the spec lines that turn it off. */
    static Stream<Arguments> repairsOff() {
        return Stream.of(
                argumentSet("with disableHealthTimeout", "machineControllerManager: {disableHealthTimeout: true}"),
                // disableHealthTimeout is left out: the in-place strategies default it to true.
                argumentSet("in an in-place pool, by default", "updateStrategy: AutoInPlaceUpdate\nmaxSurge: 0\nmaxUnavailable: 1"));
    }

    @ParameterizedTest
    @MethodSource("repairsOff")
    void anUnhealthyNodeIsOnlyReported(String extra) throws Exception {
        start(3, extra);
        long createdBefore = nodesCreated();

        setCondition("web-2", "DiskPressure", "True", LONG_AGO);

        await().atMost(Duration.ofSeconds(60)).until(() -> {
            JsonNode unhealthy = poolStatus().path("unhealthyNodes");
            return unhealthy.size() == 1 && unhealthy.get(0).path("node").asText().equals("web-2")
                    && unhealthy.get(0).path("condition").asText().equals("DiskPressure")
                    && Instant.parse(unhealthy.get(0).path("since").asText()).equals(LONG_AGO);
        });
        h.idleThroughReconciles("web-1", 3);

        assertThat(poolStatus().path("failedNodes").size()).isZero();
        assertThat(poolStatus().path("failed").asInt()).isZero();
        assertThat(nodesCreated()).isEqualTo(createdBefore);
        assertThat(log()).noneMatch(r -> isNodeDelete(r) || SeenRequests.isCordon(r));
    }

    @Test
    void aPoolWithMostNodesUnknownRepairsNothing() throws Exception {
        // The seeded machines are seconds old: past a creationTimeout of 1s they are judged by health.
        start(5, "machineControllerManager: {creationTimeout: 1s}");
        long createdBefore = nodesCreated();

        // All at once, as a partition does (set one by one under a running agent, the first would be
        // repaired alone): the agent is stopped meanwhile, and restarted keeps the clocks of the conditions.
        h.stopAgent();
        for (String node : List.of("web-1", "web-2", "web-3")) {
            setCondition(node, "Ready", "Unknown", LONG_AGO);
        }
        h.startAgent("e2e");

        await().atMost(Duration.ofSeconds(60)).until(() -> poolStatus().path("failedNodes").size() == 3);
        h.idleThroughReconciles("web-5", 3);

        assertThat(nodesCreated()).isEqualTo(createdBefore);
        assertThat(log()).noneMatch(r -> isNodeDelete(r) || SeenRequests.isCordon(r));
    }
}
