package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.nodeupdate.JobContract;
import dev.nightshift.agent.nodeupdate.JobSettings;
import dev.nightshift.agent.nodeupdate.UpdateOperation;
import dev.nightshift.agent.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * End to end with {@code nodeUpdates.type: job} and the simulated provider: the agent's Jobs, run
 * by a Job controller standing in for the cluster's, carry out a Kubernetes patch and an in-place
 * image update; what was done is read from the request log.
 */
class JobNodeUpdatesIT {

    private static final String NAMESPACE = "nightshift-node-updates";
    private static final JobSettings JOBS = new JobSettings(NAMESPACE, "registry.example.com/node-updater:1.4",
            List.of("/bin/update-node"), "nightshift-node-updater", Optional.empty());
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

    private static String pool(String strategy, String version) {
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
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(strategy, version);
    }

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;
    @AutoClose
    private TestJobController jobs;

    private void startWith(String strategy) throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 3);
        h.work.write("cluster.yaml", CLUSTER.formatted("1.31.4"));
        h.work.write("pools/web.yaml", pool(strategy, "1631.0.0"));
        h.work.commitAndPush("initial");
        h.startAgent("e2e", config -> config.with(AgentConfig.NodeUpdates.job(JOBS)));
        h.awaitAdopted("web", 3);
        jobs = new TestJobController(h.kube.client(), NAMESPACE);
        h.kube.clearRequests();
    }

    private List<Job> jobsCreated() {
        return h.kube.requests().stream().filter(r -> r.method().equals("POST") && r.succeeded()
                        && r.resourcePath().equals("/apis/batch/v1/namespaces/" + NAMESPACE + "/jobs"))
                .map(r -> Serialization.unmarshal(r.body(), Job.class)).toList();
    }

    private long writesTo(String prefix, String bodyContains) {
        return h.kube.requests().stream().filter(r -> r.isWrite() && r.resourcePath().startsWith(prefix) && r.body().contains(bodyContains))
                .count();
    }

    @Test
    void aKubernetesPatchRestartsEveryKubeletThroughExactlyOneJobPerNodeWithoutCordoningAnything() throws Exception {
        startWith("AutoRollingUpdate");
        String kubeletHash = annotation(h.nodes("web").get(0), NodeMarks.KUBELET_HASH);

        h.work.write("cluster.yaml", CLUSTER.formatted("1.31.5"));
        h.work.commitAndPush("patch release");

        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(h.nodes("web")).hasSize(3).allSatisfy(n -> {
            assertThat(annotation(n, NodeMarks.KUBELET_HASH)).isNotEqualTo(kubeletHash);
            assertThat(n.getStatus().getNodeInfo().getKubeletVersion()).isEqualTo("v1.31.5");
            assertThat(annotation(n, NodeMarks.KUBELET_RESTART_AT)).isEmpty();
        }));
        List<Job> created = jobsCreated();
        assertThat(created).extracting(j -> JobContract.nodeOf(j)).containsExactlyInAnyOrder("web-1", "web-2", "web-3");
        created.forEach(j -> JobContract.meetsTheContract(j, JobContract.nodeOf(j), "web", UpdateOperation.RESTART_KUBELET));
        assertThat(jobs.mostAtOnce.get()).as("Jobs of the pool at once (max(1, maxUnavailable))").isOne();
        assertThat(writesTo("/api/v1/nodes", "\"unschedulable\":true")).as("no node cordoned for a kubelet restart").isZero();
        assertThat(h.kube.requests()).noneMatch(r -> r.path().contains("/eviction"));
    }

    @Test
    void anInPlaceImageUpdateDrainsLeavesTheUpdatersPodAloneAndStampsEachNodeThroughOneJob() throws Exception {
        startWith("AutoInPlaceUpdate");
        String rollHash = annotation(h.nodes("web").get(0), NodeMarks.ROLL_HASH);
        // A pod of an earlier updater Job still on a node: the drain must neither evict it nor wait for it.
        h.kube.client().pods().inNamespace(NAMESPACE).resource(new PodBuilder().withNewMetadata().withName("updater-pod")
                .withNamespace(NAMESPACE).addToLabels("batch.kubernetes.io/job-name", "nightshift-in-place-web-1-0000000000")
                .addNewOwnerReference().withApiVersion("batch/v1").withKind("Job").withName("nightshift-in-place-web-1-0000000000")
                .withUid("u1").endOwnerReference().endMetadata()
                .withNewSpec().withNodeName("web-1").addNewContainer().withName("updater").withImage("u").endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build()).create();

        h.work.write("pools/web.yaml", pool("AutoInPlaceUpdate", "1632.0.0"));
        h.work.commitAndPush("in-place image bump");

        await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> assertThat(h.nodes("web")).hasSize(3).allSatisfy(n -> {
            assertThat(annotation(n, NodeMarks.ROLL_HASH)).isNotEqualTo(rollHash);
            assertThat(n.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
        }));
        List<Job> created = jobsCreated();
        assertThat(created).extracting(j -> JobContract.nodeOf(j)).containsExactlyInAnyOrder("web-1", "web-2", "web-3");
        created.forEach(j -> JobContract.meetsTheContract(j, JobContract.nodeOf(j), "web", UpdateOperation.IN_PLACE));
        assertThat(jobs.mostAtOnce.get()).isOne();
        Map<String, Long> cordons = h.kube.requests().stream().filter(r -> r.isWrite() && r.resourcePath().startsWith("/api/v1/nodes/")
                && r.body().contains("\"unschedulable\":true")).collect(Collectors.groupingBy(RecordedRequest::resourcePath, Collectors.counting()));
        assertThat(cordons).as("each node drained once").hasSize(3).allSatisfy((node, count) -> assertThat(count).isOne());
        assertThat(h.kube.requests()).noneMatch(r -> r.path().contains("/namespaces/" + NAMESPACE + "/pods/updater-pod"));
    }
}
