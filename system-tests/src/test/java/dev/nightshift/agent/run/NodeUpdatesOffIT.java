package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.Node;

/**
 * {@code nodeUpdates.type: none}: a kubelet-only change and an in-place image change are reported
 * and never executed, and the pool after them in order is still replaced. What was done is read
 * from the embedded API's request log.
 */
class NodeUpdatesOffIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
              maintenance:
                windows: [{schedule: "0 0 * * * ?", duration: 1h, timeZone: UTC}]
              machineImages:
              - name: gardenlinux
                versions:
                - {version: 1631.0.0, inPlaceUpdates: {supported: true}}
                - {version: 1632.0.0, inPlaceUpdates: {supported: true, minVersionForUpdate: 1631.0.0}}
            """;

    /** A pool of two; {@code kubeReserved}/{@code systemReserved} CPU split as given (the sum, 300m, stays: a kubelet-only change). */
    private static String pool(String name, String strategy, String version, String kubeCpu, String systemCpu) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: %s, cluster: e2e}
                spec:
                  minimum: 2
                  maximum: 4
                  maxSurge: 0
                  maxUnavailable: 1
                  updateStrategy: %s
                  interval: 0s
                  kubernetes:
                    kubelet:
                      kubeReserved: {cpu: %s}
                      systemReserved: {cpu: %s}
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(name, strategy, kubeCpu, systemCpu, version);
    }

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    private JsonNode pool(String name) throws Exception {
        for (JsonNode p : JSON.readTree(h.http("/status")).path("pools")) {
            if (p.path("pool").asText().equals(name)) {
                return p;
            }
        }
        return JSON.missingNode();
    }

    private List<String> names(String pool) {
        return h.nodes(pool).stream().map(n -> n.getMetadata().getName()).sorted().toList();
    }

    private List<RecordedRequest> nodeWrites(String pool) {
        return h.kube.requests().stream().filter(r -> r.isWrite() && r.resourcePath().startsWith("/api/v1/nodes/" + pool + "-"))
                .toList();
    }

    @Test
    void kubeletOnlyAndInPlaceChangesAreReportedNotExecutedAndTheNextPoolIsReplaced() throws Exception {
        // In rollout order: app (a kubelet-only change), batch (an in-place image change), web (an image change, replaced).
        h = new AgentHarness(tmp, "e2e", "app", 2);
        for (String pool : List.of("batch", "web")) {
            for (int i = 1; i <= 2; i++) {
                h.provider.seed(pool, pool + "-" + i, Optional.empty(), Optional.empty());
            }
        }
        h.work.write("cluster.yaml", CLUSTER);
        h.work.write("pools/app.yaml", pool("app", "AutoRollingUpdate", "1631.0.0", "100m", "200m"));
        h.work.write("pools/batch.yaml", pool("batch", "AutoInPlaceUpdate", "1631.0.0", "100m", "200m"));
        h.work.write("pools/web.yaml", pool("web", "AutoRollingUpdate", "1631.0.0", "100m", "200m"));
        h.work.commitAndPush("initial");
        h.startAgent("e2e", config -> config.with(AgentConfig.NodeUpdates.of(AgentConfig.NodeUpdates.NONE)));
        for (String pool : List.of("app", "batch", "web")) {
            h.awaitAdopted(pool, 2);
        }
        Map<String, String> kubeletHashes = h.nodes("app").stream()
                .collect(Collectors.toMap(n -> n.getMetadata().getName(), n -> annotation(n, NodeMarks.KUBELET_HASH)));
        String batchHash = annotation(h.nodes("batch").get(0), NodeMarks.ROLL_HASH);
        String webHash = annotation(h.nodes("web").get(0), NodeMarks.ROLL_HASH);
        List<String> batchBefore = names("batch");
        h.kube.clearRequests();

        h.work.write("pools/app.yaml", pool("app", "AutoRollingUpdate", "1631.0.0", "200m", "100m"));
        h.work.write("pools/batch.yaml", pool("batch", "AutoInPlaceUpdate", "1632.0.0", "100m", "200m"));
        h.work.write("pools/web.yaml", pool("web", "AutoRollingUpdate", "1632.0.0", "100m", "200m"));
        h.work.commitAndPush("kubelet split, in-place and rolling image bumps");

        await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> assertThat(h.nodes("web")).hasSize(2)
                .allSatisfy(n -> assertThat(annotation(n, NodeMarks.ROLL_HASH)).isNotEqualTo(webHash))
                .allSatisfy(n -> assertThat(n.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE)));
        assertThat(names("web")).as("web's machines were replaced").doesNotContain("web-1", "web-2");

        List<RecordedRequest> untouched = new ArrayList<>(nodeWrites("app"));
        untouched.addAll(nodeWrites("batch"));
        assertThat(untouched).as("no restart mark, cordon, drain, in-place start or deletion on app's and batch's nodes")
                .noneMatch(r -> r.body().contains(NodeMarks.KUBELET_RESTART_AT) || r.body().contains("\"unschedulable\":true")
                        || r.body().contains(NodeMarks.DRAIN_STARTED_AT) || r.body().contains(NodeMarks.IN_PLACE_STARTED_AT)
                        || r.method().equals("DELETE"));
        assertThat(h.nodes("app")).allSatisfy(n -> assertThat(annotation(n, NodeMarks.KUBELET_HASH))
                .isEqualTo(kubeletHashes.get(n.getMetadata().getName())));
        assertThat(names("batch")).isEqualTo(batchBefore);
        assertThat(h.nodes("batch")).allSatisfy(n -> assertThat(annotation(n, NodeMarks.ROLL_HASH)).isEqualTo(batchHash));

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode app = pool("app");
            assertThat(app.path("phase").asText()).isEqualTo("NODE_UPDATES_OFF");
            assertThat(app.path("pendingAction").asText()).isEqualTo("KUBELET_RESTART");
            assertThat(app.path("outdated").asInt()).isEqualTo(2);
            JsonNode batch = pool("batch");
            assertThat(batch.path("phase").asText()).isEqualTo("NODE_UPDATES_OFF");
            assertThat(batch.path("pendingAction").asText()).isEqualTo("IN_PLACE");
            JsonNode pending = JSON.readTree(h.http("/status")).path("inPlaceUpdatesPending");
            assertThat(pending.path("notExecuted")).extracting(JsonNode::asText).containsExactly("batch");
            assertThat(pending.path("automatic")).isEmpty();
            assertThat(pool("web").path("phase").asText()).isEqualTo("CURRENT");
        });
    }
}
