package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.Node;

/**
 * Each kind of change, pushed with the real git binary and carried out by the agent; what was done
 * to the cluster is read from the embedded API's request log.
 */
class ChangeKindsIT {

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "%s"}
              maintenance:
                windows: [{schedule: "0 0 * * * ?", duration: 1h, timeZone: UTC}]
              machineImages:
              - name: gardenlinux
                versions:
                - {version: 1631.0.0, inPlaceUpdates: {supported: true}}
                - {version: 1632.0.0, inPlaceUpdates: {supported: true, minVersionForUpdate: 1631.0.0}}
            """;

    private static String pool(String strategy, String version, String labels) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: e2e}
                spec:
                  minimum: 3
                  maximum: 6
                  maxSurge: 0
                  maxUnavailable: 1
                  updateStrategy: %s
                  interval: 0s
                  labels: {%s}
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(strategy, labels, version);
    }

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;
    /** The pool's nodes when the request log was cleared: where its replay starts. */
    private List<Node> start;

    private void startWith(String strategy) throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 3);
        h.work.write("cluster.yaml", CLUSTER.formatted("1.31.4"));
        h.work.write("pools/web.yaml", pool(strategy, "1631.0.0", "team: web"));
        h.work.commitAndPush("initial");
        h.startAgent("e2e");
        h.awaitAdopted("web", 3);
        start = h.nodes("web");
        h.kube.clearRequests();
    }

    private List<String> names() {
        return h.nodes("web").stream().map(n -> n.getMetadata().getName()).sorted().toList();
    }

    /** Writes the API server took: a node patch refused with 409 (made from a cached node another write overtook) changed nothing. */
    private List<RecordedRequest> writesTo(String prefix) {
        return h.kube.requests().stream().filter(r -> r.isWrite() && r.succeeded() && r.resourcePath().startsWith(prefix)).toList();
    }

    private long cordons() {
        return writesTo("/api/v1/nodes").stream().filter(r -> r.body().contains("\"unschedulable\":true")).count();
    }

    @Test
    void anInPlaceImageUpdateKeepsEveryMachineAndDrainsEachNodeOnce() throws Exception {
        startWith("AutoInPlaceUpdate");
        List<String> before = names();
        String oldHash = annotation(h.nodes("web").get(0), NodeMarks.ROLL_HASH);

        h.work.write("pools/web.yaml", pool("AutoInPlaceUpdate", "1632.0.0", "team: web"));
        h.work.commitAndPush("in-place image bump");

        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
            assertThat(h.nodes("web")).extracting(n -> annotation(n, NodeMarks.ROLL_HASH)).doesNotContain(oldHash).hasSize(3);
            assertThat(h.nodes("web")).allSatisfy(n -> assertThat(n.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE));
        });
        assertThat(names()).as("updated in place: the same machines").isEqualTo(before);
        assertThat(writesTo("/api/v1/nodes").stream().filter(r -> r.method().equals("POST") || r.method().equals("DELETE")))
                .isEmpty();
        Map<String, Long> cordonsPerNode = writesTo("/api/v1/nodes").stream().filter(r -> r.body().contains("\"unschedulable\":true"))
                .collect(Collectors.groupingBy(RecordedRequest::resourcePath, Collectors.counting()));
        assertThat(cordonsPerNode).hasSize(3).allSatisfy((node, count) -> assertThat(count).isOne());
        ClusterTimeline.Moment widest = ClusterTimeline.replay(start, h.kube.requests()).mostUnschedulable("web");
        assertThat(widest.unschedulableCount("web")).as("nodes cordoned at the same time (maxUnavailable 1): %s", widest).isOne();
    }

    @Test
    void aKubernetesPatchRestartsKubeletsWithoutCordoningOrReplacingAnything() throws Exception {
        startWith("AutoRollingUpdate");
        List<String> before = names();
        String rollHash = annotation(h.nodes("web").get(0), NodeMarks.ROLL_HASH);
        String kubeletHash = annotation(h.nodes("web").get(0), NodeMarks.KUBELET_HASH);

        h.work.write("cluster.yaml", CLUSTER.formatted("1.31.5"));
        h.work.commitAndPush("patch release");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(h.nodes("web"))
                .extracting(n -> annotation(n, NodeMarks.KUBELET_HASH)).doesNotContain(kubeletHash).hasSize(3));
        assertThat(names()).isEqualTo(before);
        assertThat(h.nodes("web")).extracting(n -> annotation(n, NodeMarks.ROLL_HASH)).containsOnly(rollHash);
        assertThat(cordons()).as("no node cordoned for a kubelet restart").isZero();
        assertThat(writesTo("/api/v1/namespaces/shop")).isEmpty();
    }

    @Test
    void aKubeletRestartAskedForByAnAgentThatStoppedBeforeTheCloudHeardIsAskedForAgainAfterTheHealthTimeout() throws Exception {
        startWith("AutoRollingUpdate");
        String kubeletHash = annotation(h.nodes("web").get(0), NodeMarks.KUBELET_HASH);
        h.stopAgent();
        h.work.write("cluster.yaml", CLUSTER.formatted("1.31.5"));
        h.work.commitAndPush("patch release");
        // What an agent leaves behind when it stops between marking a restart and asking the cloud
        // for it: the mark, older than the pool's healthTimeout (10m), and the old kubelet.
        String lostRequest = Instant.now().minus(Duration.ofMinutes(11)).toString();
        for (String node : names()) {
            h.kube.client().nodes().withName(node).edit(n -> {
                n.getMetadata().getAnnotations().put(NodeMarks.KUBELET_RESTART_AT, lostRequest);
                return n;
            });
        }

        h.startAgent("e2e");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(h.nodes("web"))
                .extracting(n -> annotation(n, NodeMarks.KUBELET_HASH)).doesNotContain(kubeletHash).hasSize(3));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(h.nodes("web"))
                .allSatisfy(n -> assertThat(annotation(n, NodeMarks.KUBELET_RESTART_AT)).as("restart mark cleared").isEmpty()));
        assertThat(cordons()).isZero();
    }

    @Test
    void aLabelChangeIsPropagatedWithoutDisruption() throws Exception {
        startWith("AutoRollingUpdate");
        List<String> before = names();
        h.kube.client().nodes().withName("web-1").edit(n -> {
            n.getMetadata().getLabels().put("owned-by-someone-else", "yes");
            return n;
        });

        h.work.write("pools/web.yaml", pool("AutoRollingUpdate", "1631.0.0", "tier: frontend"));
        h.work.commitAndPush("relabel");

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(h.nodes("web"))
                .allSatisfy(n -> assertThat(n.getMetadata().getLabels()).containsEntry("tier", "frontend").doesNotContainKey("team")));
        assertThat(names()).isEqualTo(before);
        assertThat(cordons()).isZero();
        Node web1 = h.kube.client().nodes().withName("web-1").get();
        assertThat(web1.getMetadata().getLabels()).as("labels others own are left alone").containsEntry("owned-by-someone-else", "yes");
    }

    @Test
    void anAgentStoppedMidRolloutIsRestartedAndFinishesWithoutDrainingANodeTwice() throws Exception {
        startWith("AutoRollingUpdate");
        String oldHash = annotation(h.nodes("web").get(0), NodeMarks.ROLL_HASH);

        h.work.write("pools/web.yaml", pool("AutoRollingUpdate", "1632.0.0", "team: web"));
        h.work.commitAndPush("image bump");
        await().atMost(Duration.ofSeconds(60)).until(() -> h.nodes("web").stream()
                .anyMatch(n -> !annotation(n, NodeMarks.DRAIN_STARTED_AT).isEmpty() || !annotation(n, NodeMarks.ROLL_HASH).equals(oldHash)));
        h.stopAgent();
        h.startAgent("e2e");

        await().atMost(Duration.ofSeconds(90)).untilAsserted(() ->
                assertThat(h.nodes("web")).hasSize(3).extracting(n -> annotation(n, NodeMarks.ROLL_HASH)).doesNotContain(oldHash));
        Map<String, Long> cordonsPerNode = writesTo("/api/v1/nodes").stream().filter(r -> r.body().contains("\"unschedulable\":true"))
                .collect(Collectors.groupingBy(RecordedRequest::resourcePath, Collectors.counting()));
        assertThat(cordonsPerNode).as("each old node cordoned once, across the restart").hasSize(3)
                .allSatisfy((node, count) -> assertThat(count).isOne());
        long created = writesTo("/api/v1/nodes").stream().filter(r -> r.method().equals("POST")).count();
        assertThat(created).as("one replacement per old node, none extra").isEqualTo(3);
    }
}
