package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.kube.NodeMarks;
import io.fabric8.kubernetes.api.model.Node;

/**
 * ManualInPlaceUpdate as Gardener has it: after an in-place change the agent labels the pool's
 * outdated nodes as candidates and waits; it updates exactly the nodes a person selects, and
 * {@code /status} lists the pool and its nodes as awaiting selection until then.
 */
class ManualInPlaceIT {

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

    private static String pool(String version) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: e2e}
                spec:
                  minimum: 3
                  maximum: 3
                  maxSurge: 0
                  maxUnavailable: 1
                  updateStrategy: ManualInPlaceUpdate
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(version);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    private JsonNode status() throws Exception {
        return JSON.readTree(h.agent.status());
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private JsonNode web() throws Exception {
        for (JsonNode p : status().path("pools")) {
            if (p.path("pool").asText().equals("web")) {
                return p;
            }
        }
        return JSON.missingNode();
    }

    private static String label(Node n, String key) {
        return n.getMetadata().getLabels() == null ? "" : n.getMetadata().getLabels().getOrDefault(key, "");
    }

    private long cordonsOf(String node) {
        return h.kube.requests().stream().filter(r -> r.isWrite() && r.resourcePath().equals("/api/v1/nodes/" + node)
                && r.body().contains("\"unschedulable\":true")).count();
    }

    @Test
    void onlyTheNodesAPersonSelectsAreUpdatedAndStatusListsTheRestAsAwaitingSelection() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 3);
        h.work.write("cluster.yaml", CLUSTER);
        h.work.write("pools/web.yaml", pool("1631.0.0"));
        h.work.commitAndPush("initial");
        h.startAgent("e2e");
        h.awaitAdopted("web", 3);
        String oldHash = annotation(h.nodes("web").get(0), NodeMarks.ROLL_HASH);
        h.kube.clearRequests();

        h.work.write("pools/web.yaml", pool("1632.0.0"));
        h.work.commitAndPush("in-place image bump, nodes to be chosen by hand");
        h.agent.pollNow();

        await().atMost(Duration.ofSeconds(60)).until(() -> h.nodes("web").stream()
                .allMatch(n -> label(n, NodeMarks.CANDIDATE_FOR_UPDATE).equals("true"))
                && web().path("phase").asText().equals("AWAITING_SELECTION"));
        assertThat(texts(status().at("/inPlaceUpdatesPending/awaitingSelection"))).containsExactly("web");
        assertThat(texts(status().at("/inPlaceUpdatesPending/automatic"))).isEmpty();
        assertThat(texts(web().path("awaitingSelection"))).containsExactlyInAnyOrder("web-1", "web-2", "web-3");
        assertThat(h.kube.requests()).as("nothing cordoned, evicted or deleted before a selection")
                .noneMatch(r -> r.isWrite() && (r.body().contains("\"unschedulable\":true") || r.resourcePath().endsWith("/eviction")
                        || r.method().equals("DELETE")));

        h.kube.client().nodes().withName("web-2").edit(n -> {
            n.getMetadata().getLabels().put(NodeMarks.SELECTED_FOR_UPDATE, "true");
            return n;
        });

        await().atMost(Duration.ofSeconds(90)).until(() -> {
            Node selected = h.kube.client().nodes().withName("web-2").get();
            return !annotation(selected, NodeMarks.ROLL_HASH).equals(oldHash) && !Boolean.TRUE.equals(selected.getSpec().getUnschedulable())
                    && texts(web().path("awaitingSelection")).equals(List.of("web-1", "web-3"));
        });
        Map<String, String> hashes = h.nodes("web").stream()
                .collect(Collectors.toMap(n -> n.getMetadata().getName(), n -> annotation(n, NodeMarks.ROLL_HASH)));
        assertThat(hashes).containsEntry("web-1", oldHash).containsEntry("web-3", oldHash).hasSize(3);
        assertThat(cordonsOf("web-2")).as("the selected node drained once").isOne();
        assertThat(cordonsOf("web-1") + cordonsOf("web-3")).as("nodes nobody selected are left alone").isZero();
        assertThat(h.kube.requests()).as("updated in place: no machine created or deleted")
                .noneMatch(r -> r.resourcePath().equals("/api/v1/nodes") && r.method().equals("POST")
                        || r.resourcePath().startsWith("/api/v1/nodes/") && r.method().equals("DELETE"));
        assertThat(texts(status().at("/inPlaceUpdatesPending/awaitingSelection"))).containsExactly("web");
    }
}
