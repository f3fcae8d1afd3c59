package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Taint;

/** How the agent carries out steps against the API, as the embedded cluster's request log shows it. */
class ExecutorIT {

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
            """;

    private static String pool(int nodes, int maxSurge, int maxUnavailable, String version, String labels) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: e2e}
                spec:
                  minimum: %d
                  maximum: %d
                  maxSurge: %d
                  maxUnavailable: %d
                  interval: 0s
                  labels: {%s}
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(nodes, nodes + 2, maxSurge, maxUnavailable, labels, version);
    }

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    /** Adopted nodes; returns what the cluster saw until then (the agent's start among it). */
    private List<RecordedRequest> adopted(int nodes, int maxSurge, int maxUnavailable) throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", nodes);
        h.work.write("cluster.yaml", CLUSTER);
        h.work.write("pools/web.yaml", pool(nodes, maxSurge, maxUnavailable, "1631.0.0", "team: web"));
        h.work.commitAndPush("initial");
        h.startAgent("e2e");
        h.awaitAdopted("web", nodes);
        List<RecordedRequest> start = h.kube.requests();
        h.kube.clearRequests();
        return start;
    }

    private List<RecordedRequest> agentRequests() {
        return h.kube.requests().stream().filter(r -> r.userAgent().equals(AgentHarness.AGENT)).toList();
    }

    private static Pod pod(String name, String node) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("shop").endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("c").withImage("c").endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build();
    }

    @Test
    void anIdleAgentAfterARolloutMakesNoListRequests() throws Exception {
        List<RecordedRequest> start = adopted(2, 1, 0);
        assertThat(start).as("the agent's informers listed once at start: the filter below sees LISTs")
                .anyMatch(r -> r.userAgent().equals(AgentHarness.AGENT) && SeenRequests.isList(r));
        String oldHash = annotation(h.nodes("web").get(0), NodeMarks.ROLL_HASH);
        h.work.write("pools/web.yaml", pool(2, 1, 0, "1632.0.0", "team: web"));
        h.work.commitAndPush("image bump");
        await().atMost(Duration.ofSeconds(45)).untilAsserted(() -> {
            assertThat(h.nodes("web")).hasSize(2).noneMatch(n -> annotation(n, NodeMarks.ROLL_HASH).equals(oldHash))
                    .noneMatch(n -> Boolean.TRUE.equals(n.getSpec().getUnschedulable()));
            assertThat(h.http("/status")).contains("\"phase\" : \"CURRENT\"");
        });

        h.kube.clearRequests();
        String node = h.nodes("web").get(0).getMetadata().getName();
        h.idleThroughReconciles(node, 3);
        // One change the agent must answer with a write: its label removed behind its back.
        h.kube.client().nodes().withName(node).edit(n -> {
            n.getMetadata().getLabels().remove("team");
            return n;
        });
        await().atMost(Duration.ofSeconds(20)).until(() -> "web".equals(h.kube.client().nodes().withName(node).get()
                .getMetadata().getLabels().get("team")));

        assertThat(agentRequests()).as("the agent did act while idle: the label was put back").anyMatch(RecordedRequest::isWrite);
        assertThat(agentRequests()).as("LIST requests from the agent in steady state").noneMatch(SeenRequests::isList);
    }

    @Test
    void daemonSetAndMirrorPodsOnADrainedNodeAreNeverEvictedAndTheNodeIsStillReplaced() throws Exception {
        adopted(1, 0, 1);
        h.kube.client().pods().inNamespace("shop").resource(pod("app-0", "web-1")).create();
        h.kube.client().pods().inNamespace("shop").resource(new PodBuilder(pod("node-agent-x1", "web-1")).editMetadata()
                .addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName("node-agent").withUid("ds-uid")
                .withController(true).endOwnerReference().endMetadata().build()).create();
        h.kube.client().pods().inNamespace("shop").resource(new PodBuilder(pod("kube-proxy-web-1", "web-1")).editMetadata()
                .addToAnnotations("kubernetes.io/config.mirror", "0123abcd").endMetadata().build()).create();

        h.work.write("pools/web.yaml", pool(1, 0, 1, "1632.0.0", "team: web"));
        h.work.commitAndPush("image bump");
        await().atMost(Duration.ofSeconds(45)).untilAsserted(() -> assertThat(h.nodes("web")).hasSize(1)
                .noneMatch(n -> n.getMetadata().getName().equals("web-1")));

        assertThat(h.kube.requests()).as("the ordinary pod was evicted")
                .anyMatch(r -> SeenRequests.isEvictionOf(r, "shop", "app-0") && r.succeeded());
        for (String kept : List.of("node-agent-x1", "kube-proxy-web-1")) {
            assertThat(h.kube.requests()).as("no eviction or deletion of " + kept)
                    .noneMatch(r -> SeenRequests.isEvictionOf(r, "shop", kept))
                    .noneMatch(r -> r.method().equals("DELETE") && r.resourcePath().equals("/api/v1/namespaces/shop/pods/" + kept));
        }
    }

    @Test
    void aConflictOnANodePatchIsReadAgainAndKeepsTheLabelAndTaintAnotherClientSetMeanwhile() throws Exception {
        adopted(2, 1, 0);
        h.kube.changeBeforeNext("PATCH", "/api/v1/nodes/web-1", "tier", """
                {"metadata": {"labels": {"example.com/owner": "ops"}},
                 "spec": {"taints": [{"key": "example.com/dedicated", "value": "ops", "effect": "NoSchedule"}]}}""");

        h.work.write("pools/web.yaml", pool(2, 1, 0, "1631.0.0", "tier: frontend"));
        h.work.commitAndPush("relabel");
        await().atMost(Duration.ofSeconds(45)).until(() -> "frontend".equals(h.kube.client().nodes().withName("web-1").get()
                .getMetadata().getLabels().get("tier")));

        List<RecordedRequest> toWeb1 = h.kube.requests().stream()
                .filter(r -> r.method().equals("PATCH") && r.resourcePath().equals("/api/v1/nodes/web-1")).toList();
        assertThat(toWeb1).as("the other client's write, then the agent's patch refused as stale, then accepted")
                .extracting(RecordedRequest::userAgent, RecordedRequest::status).startsWith(
                        tuple(EmbeddedKubernetes.INTERFERENCE, 200),
                        tuple(AgentHarness.AGENT, 409),
                        tuple(AgentHarness.AGENT, 200));
        Node web1 = h.kube.client().nodes().withName("web-1").get();
        assertThat(web1.getMetadata().getLabels()).containsEntry("example.com/owner", "ops").containsEntry("tier", "frontend")
                .doesNotContainKey("team");
        assertThat(web1.getSpec().getTaints()).extracting(Taint::getKey, Taint::getValue, Taint::getEffect)
                .contains(tuple("example.com/dedicated", "ops", "NoSchedule"));
    }
}
