package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.nodeupdate.JobContract;
import dev.nightshift.agent.nodeupdate.JobSettings;
import dev.nightshift.agent.nodeupdate.UpdateOperation;
import dev.nightshift.sandbox.capi.ClusterApiResources;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.sandbox.jobs.Behaviour;
import dev.nightshift.sandbox.jobs.JobControllers;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;

/**
 * End to end with {@code nodeUpdates.type: job}, for each machine provider ({@link RolloutBackend}): the agent's Jobs,
 * run by the embedded Job controller double ({@link JobControllers}: scheduled only where kube-scheduler would put
 * them, the node changed only as the updater would change it), carry out a Kubernetes patch and an in-place image
 * update. What was done is read from the request log: the Jobs created and finished, cordons, evictions and, with
 * Cluster API, the Machines' {@code skip-remediation}.
 */
class JobNodeUpdatesIT {

    static final String NAMESPACE = "nightshift-node-updates";
    static final JobSettings JOBS = new JobSettings(NAMESPACE, "registry.example.com/node-updater:1.4",
            List.of("/bin/update-node"), "nightshift-node-updater", Optional.empty());
    private static final String SKIP_REMEDIATION = "cluster.x-k8s.io/skip-remediation";
    private static final Duration ROLLOUT = Duration.ofSeconds(90);
    static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "%s"}
              machineImages:
              - name: gardenlinux
                versions:
                - {version: 1631.0.0, inPlaceUpdates: {supported: true}}
                - {version: 1632.0.0, inPlaceUpdates: {supported: true, minVersionForUpdate: 1631.0.0}}
            """;

    static String pool(String strategy, String version, String extra) {
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
                """.formatted(strategy, version) + extra;
    }

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;
    private final ScheduledExecutorService jobExecutor = Executors.newSingleThreadScheduledExecutor();
    private JobControllers jobs;

    @AfterEach
    void stopJobs() {
        if (jobs != null) {
            jobs.close();
        }
        jobExecutor.shutdownNow();
    }

    private void startWith(RolloutBackend backend, String strategy) throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 3, backend, Duration.ofMillis(400));
        h.kube.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build()).create();
        jobs = new JobControllers(h.kube.client(), NAMESPACE, jobExecutor, Clock.systemUTC(),
                RandomGeneratorFactory.of("L64X128MixRandom").create(7), Behaviour.fast());
        jobs.start();
        h.work.write("cluster.yaml", CLUSTER.formatted(AgentHarness.KUBERNETES_VERSION));
        h.work.write("pools/web.yaml", pool(strategy, "1631.0.0", ""));
        h.work.commitAndPush("initial");
        h.startAgent("e2e", config -> config.with(AgentConfig.NodeUpdates.job(JOBS)));
        h.awaitAdopted("web", 3);
        h.kube.clearRequests();
    }

    private UpdaterJobsSeen seen() {
        return new UpdaterJobsSeen(NAMESPACE, h.kube.requests());
    }

    private List<String> nodeNames() {
        return h.nodes("web").stream().map(n -> n.getMetadata().getName()).sorted().toList();
    }

    /** The agent's own writes to nodes (not their status, which the kubelets report) that cordoned one. */
    private Map<String, Long> cordonsByNode() {
        return h.kube.requests().stream().filter(r -> r.userAgent().equals(AgentHarness.AGENT) && SeenRequests.isCordon(r)
                        && !r.resourcePath().endsWith("/status"))
                .collect(Collectors.groupingBy(RecordedRequest::resourcePath, Collectors.counting()));
    }

    @ParameterizedTest
    @EnumSource(RolloutBackend.class)
    void aKubernetesPatchRestartsEveryKubeletThroughExactlyOneJobPerNodeWithoutCordoningAnything(RolloutBackend backend) throws Exception {
        startWith(backend, "AutoRollingUpdate");
        List<String> nodes = nodeNames();
        String kubeletHash = annotation(h.nodes("web").get(0), NodeMarks.KUBELET_HASH);

        h.work.write("cluster.yaml", CLUSTER.formatted("1.31.5"));
        h.work.commitAndPush("patch release");
        h.agent.pollNow();

        await("every kubelet at 1.31.5").atMost(ROLLOUT)
                .failFast("an updater pod left Unschedulable", () -> seen().assertNoPodLeftUnschedulable())
                .untilAsserted(() -> assertThat(h.nodes("web")).hasSize(3).allSatisfy(n -> {
            assertThat(annotation(n, NodeMarks.KUBELET_HASH)).isNotEqualTo(kubeletHash);
            assertThat(n.getStatus().getNodeInfo().getKubeletVersion()).isEqualTo("v1.31.5");
            assertThat(annotation(n, NodeMarks.UPDATE_JOB)).isEmpty();
        }));
        assertThat(nodeNames()).as("no machine replaced").isEqualTo(nodes);
        UpdaterJobsSeen seen = seen();
        assertThat(seen.nodes()).as("one Job per node").containsExactlyInAnyOrderElementsOf(nodes);
        seen.runs().forEach(run -> JobContract.meetsTheContract(run.job(), run.node(), "web", UpdateOperation.RESTART_KUBELET));
        assertThat(seen.mostAtOnce("web")).as("Jobs of the pool at once: max(1, maxUnavailable)").isOne();
        seen.assertNoPodLeftUnschedulable();
        assertThat(cordonsByNode()).as("no node cordoned for a kubelet restart").isEmpty();
        assertThat(h.kube.requests()).as("nothing drained").noneMatch(r -> r.path().contains("/eviction"));
        if (backend == RolloutBackend.CLUSTER_API) {
            assertSkipsRemediationOnlyWhileUpdated(seen);
        }
    }

    @ParameterizedTest
    @EnumSource(RolloutBackend.class)
    void anInPlaceImageUpdateDrainsLeavesTheUpdatersPodAloneAndStampsEachNodeThroughOneJob(RolloutBackend backend) throws Exception {
        startWith(backend, "AutoInPlaceUpdate");
        List<String> nodes = nodeNames();
        String rollHash = annotation(h.nodes("web").get(0), NodeMarks.ROLL_HASH);
        // A pod of an earlier updater Job still on a node (its Job gone; the double leaves it be): the drain must
        // neither evict it nor wait for it.
        h.kube.client().pods().inNamespace(NAMESPACE).resource(new PodBuilder().withNewMetadata().withName("updater-pod")
                .withNamespace(NAMESPACE).addToLabels("batch.kubernetes.io/job-name", "nightshift-in-place-earlier-0000000000")
                .endMetadata()
                .withNewSpec().withNodeName(nodes.get(0)).addNewContainer().withName("updater").withImage("u").endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build()).create();

        h.work.write("pools/web.yaml", pool("AutoInPlaceUpdate", "1632.0.0", ""));
        h.work.commitAndPush("in-place image bump");
        h.agent.pollNow();

        await("every node updated in place").atMost(ROLLOUT)
                .failFast("an updater pod left Unschedulable", () -> seen().assertNoPodLeftUnschedulable())
                .untilAsserted(() -> assertThat(h.nodes("web")).hasSize(3).allSatisfy(n -> {
            assertThat(annotation(n, NodeMarks.ROLL_HASH)).isNotEqualTo(rollHash);
            assertThat(annotation(n, NodeMarks.UPDATE_JOB)).isEmpty();
            assertThat(n.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
        }));
        assertThat(nodeNames()).as("no machine replaced").isEqualTo(nodes);
        UpdaterJobsSeen seen = seen();
        assertThat(seen.nodes()).as("one Job per node").containsExactlyInAnyOrderElementsOf(nodes);
        seen.runs().forEach(run -> JobContract.meetsTheContract(run.job(), run.node(), "web", UpdateOperation.IN_PLACE));
        assertThat(seen.mostAtOnce("web")).as("Jobs of the pool at once: max(1, maxUnavailable)").isOne();
        seen.assertNoPodLeftUnschedulable();
        assertThat(cordonsByNode()).as("each node drained once").hasSize(3).allSatisfy((node, count) -> assertThat(count).isOne());
        assertThat(h.kube.requests()).as("the updater's pod neither evicted nor deleted")
                .noneMatch(r -> r.isWrite() && r.path().contains("/namespaces/" + NAMESPACE + "/pods/updater-pod"));
        if (backend == RolloutBackend.CLUSTER_API) {
            assertSkipsRemediationOnlyWhileUpdated(seen);
        }
    }

    /**
     * From the request log: each node's Machine got {@code skip-remediation} before its Job was created and lost it
     * only after the Job finished; no Machine carries it at the end.
     */
    private void assertSkipsRemediationOnlyWhileUpdated(UpdaterJobsSeen seen) {
        List<GenericKubernetesResource> machines = h.kube.client().genericKubernetesResources(ClusterApiResources.MACHINES)
                .inNamespace(EmbeddedKubernetes.NAMESPACE).list().getItems();
        List<RecordedRequest> log = h.kube.requests();
        for (Node node : h.nodes("web")) {
            String name = node.getMetadata().getName();
            GenericKubernetesResource machine = machines.stream().filter(m -> name.equals(nodeRef(m))).findFirst().orElseThrow();
            String path = "/namespaces/" + EmbeddedKubernetes.NAMESPACE + "/machines/" + machine.getMetadata().getName();
            UpdaterJobsSeen.Run run = seen.runOn(name).orElseThrow();
            List<RecordedRequest> marks = log.stream().filter(r -> r.method().equals("PATCH") && r.succeeded()
                    && r.resourcePath().endsWith(path) && r.body().contains(SKIP_REMEDIATION)).toList();
            assertThat(marks).as("skip-remediation set and removed on %s's Machine", name).hasSize(2);
            assertThat(marks.get(0).body()).contains("\"" + SKIP_REMEDIATION + "\":\"\"");
            assertThat(marks.get(0).sequence()).as("set before the Job was created").isLessThan(run.created());
            assertThat(marks.get(1).body()).contains("\"" + SKIP_REMEDIATION + "\":null");
            assertThat(run.finished()).as("the Job finished").isPositive();
            assertThat(marks.get(1).sequence()).as("removed after the Job finished").isGreaterThan(run.finished());
            assertThat(machine.getMetadata().getAnnotations()).doesNotContainKey(SKIP_REMEDIATION);
        }
    }

    private static String nodeRef(GenericKubernetesResource machine) {
        Object status = machine.getAdditionalProperties().get("status");
        if (status instanceof Map<?, ?> s && s.get("nodeRef") instanceof Map<?, ?> ref) {
            return String.valueOf(ref.get("name"));
        }
        return "";
    }
}
