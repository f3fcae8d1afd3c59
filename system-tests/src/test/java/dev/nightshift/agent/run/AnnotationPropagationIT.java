package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.Node;

/**
 * Pool annotations pushed to Git reach the nodes, are changed there and removed again, while an
 * annotation another client set stays and control annotations ({@code nightshift.dev/…}) never reach
 * a node; judged from the nodes and the embedded API's request log.
 */
class AnnotationPropagationIT {

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
            """;
    private static final String OWNER = "example.com/owner";
    private static final String FOREIGN = "example.com/oncall";
    private static final String EMERGENCY = "nightshift.dev/rollout-outside-window";
    private static final String FORCE = "nightshift.dev/force-in-place-update";

    private static String pool(String annotations) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata:
                  name: web
                  cluster: e2e
                  annotations: {%s}
                spec:
                  minimum: 3
                  maximum: 6
                  maxSurge: 0
                  maxUnavailable: 1
                  interval: 0s
                  labels: {team: web}
                  machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                """.formatted(annotations);
    }

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    private List<String> names() {
        return h.nodes("web").stream().map(n -> n.getMetadata().getName()).sorted().toList();
    }

    private void push(String annotations, String message) throws Exception {
        h.work.write("pools/web.yaml", pool(annotations));
        h.work.commitAndPush(message);
    }

    private void awaitOwnerOnEveryNode(String value) {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(h.nodes("web")).hasSize(3)
                .allSatisfy(n -> assertThat(n.getMetadata().getAnnotations()).containsEntry(OWNER, value)));
    }

    @Test
    void aPoolAnnotationAddedChangedAndRemovedInGitShowsOnAndDisappearsFromTheNodesWhileAnotherClientsStays() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 3);
        h.work.write("cluster.yaml", CLUSTER);
        push("", "initial");
        h.startAgent("e2e");
        h.awaitAdopted("web", 3);
        List<String> before = names();
        h.kube.client().nodes().withName("web-1").edit(n -> {
            n.getMetadata().getAnnotations().put(FOREIGN, "ops");
            return n;
        });
        h.kube.clearRequests();

        push(OWNER + ": team-web, " + EMERGENCY + ": \"true\", " + FORCE + ": token-1", "annotate");
        awaitOwnerOnEveryNode("team-web");
        push(OWNER + ": team-api, " + EMERGENCY + ": \"true\"", "re-annotate");
        awaitOwnerOnEveryNode("team-api");
        push("", "remove the annotations");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(h.nodes("web")).hasSize(3)
                .allSatisfy(n -> assertThat(n.getMetadata().getAnnotations()).doesNotContainKey(OWNER)
                        .containsEntry(NodeMarks.MANAGED_ANNOTATIONS, "[]")));
        List<RecordedRequest> log = h.kube.requests();

        Node web1 = h.kube.client().nodes().withName("web-1").get();
        assertThat(web1.getMetadata().getAnnotations()).as("the other client's annotation stays").containsEntry(FOREIGN, "ops");
        assertThat(h.nodes("web")).as("control annotations never reach a node")
                .allSatisfy(n -> assertThat(n.getMetadata().getAnnotations()).doesNotContainKeys(EMERGENCY, FORCE));
        assertThat(names()).as("the same machines: metadata only").isEqualTo(before);

        List<RecordedRequest> agentNodeWrites = log.stream().filter(r -> r.userAgent().equals(AgentHarness.AGENT)
                && r.isWrite() && r.resourcePath().startsWith("/api/v1/nodes")).toList();
        assertThat(agentNodeWrites).as("the agent wrote to the nodes").isNotEmpty()
                .allSatisfy(r -> {
                    assertThat(r.method()).as(r.toString()).isEqualTo("PATCH");
                    assertThat(r.contentType()).as(r.toString()).startsWith("application/merge-patch+json");
                    assertThat(r.body()).as("a write that names a control annotation or another client's: " + r)
                            .doesNotContain(EMERGENCY).doesNotContain(FORCE).doesNotContain(FOREIGN);
                });
        for (String value : List.of("\"" + OWNER + "\":\"team-web\"", "\"" + OWNER + "\":\"team-api\"", "\"" + OWNER + "\":null")) {
            assertThat(agentNodeWrites.stream().filter(r -> r.succeeded() && r.body().contains(value)).map(RecordedRequest::resourcePath)
                    .distinct()).as("every node patched with " + value).hasSize(3);
        }
        assertThat(log).as("no cordon").noneMatch(SeenRequests::isCordon);
        assertThat(log).as("no machine created or deleted")
                .noneMatch(r -> r.resourcePath().startsWith("/api/v1/nodes") && (r.method().equals("POST") || r.method().equals("DELETE")));
        assertThat(h.nodes("web")).extracting(n -> annotation(n, NodeMarks.DRAIN_STARTED_AT)).containsOnly("");
    }
}
