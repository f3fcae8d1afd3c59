package dev.nightshift.sandbox.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGeneratorFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.KubernetesClient;

import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.embedded.Kubectl;
import dev.nightshift.sandbox.embedded.RecordedRequest;

/**
 * The Job controller double against the embedded API server: what the {@code job} node updater will meet. Outcomes
 * are read from the API as another client sees them, and from the request log.
 */
class JobControllersIT {

    private static final String NS = "nightshift-node-updates";
    private static final String NODE = "ip-10-0-1-17";
    private static final String OTHER = "ip-10-0-1-18";
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String KUBELET_TARGET = """
            {"machineImage": {"name": "ubuntu", "version": "24.04.2"}, "kubernetesVersion": "1.31.5",
             "kubelet": {"kubeReserved": {"cpu": "100m"}}, "cri": "containerd"}""";
    /** Long before the test: a new Ready transition is later whatever the seconds. */
    private static final String LONG_AGO = Instant.now().minus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS).toString();

    private final EmbeddedKubernetes cluster = EmbeddedKubernetes.start();
    private final KubernetesClient client = cluster.client();
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    private JobControllers controllers;

    @TempDir
    Path tmp;

    @BeforeEach
    void start() {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
        client.nodes().resource(node(NODE)).create();
        client.nodes().resource(node(OTHER)).create();
    }

    private void startControllers(Behaviour behaviour) {
        controllers = new JobControllers(client, NS, executor, Clock.systemUTC(),
                RandomGeneratorFactory.of("L64X128MixRandom").create(42), behaviour);
        controllers.start();
    }

    @AfterEach
    void stop() {
        if (controllers != null) {
            controllers.close();
        }
        executor.shutdownNow();
        cluster.close();
    }

    private static Node node(String name) {
        return new NodeBuilder().withNewMetadata().withName(name)
                .withLabels(Map.of("kubernetes.io/hostname", name, "kubernetes.io/os", "linux")).endMetadata()
                .withNewSpec().withProviderID("embedded:///" + name).endSpec()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady")
                .withLastTransitionTime(LONG_AGO).withLastHeartbeatTime(LONG_AGO).endCondition()
                .withNewNodeInfo().withKubeletVersion("v1.31.4").withOsImage("Ubuntu 24.04.1 LTS").endNodeInfo().endStatus()
                .build();
    }

    /** The node as the agent leaves it before an update: cordoned and tainted. */
    private void cordonAndTaint(String name) {
        client.nodes().withName(name).edit(n -> new NodeBuilder(n).editSpec().withUnschedulable(true)
                .addNewTaint().withKey("node.kubernetes.io/unschedulable").withEffect("NoSchedule").endTaint()
                .addNewTaint().withKey("nightshift.dev/updating").withValue("true").withEffect("NoSchedule").endTaint()
                .endSpec().build());
    }

    private static final Toleration EVERYTHING = new TolerationBuilder().withOperator("Exists").build();

    /** A node updater's Job as the contract describes it: pinned with matchFields, privileged, the host at /host. */
    private static JobBuilder updaterJob(String name, String node, String operation, List<Toleration> tolerations) {
        return new JobBuilder().withNewMetadata().withName(name).withNamespace(NS)
                .withLabels(Map.of("nightshift.dev/node", node, "nightshift.dev/operation", operation)).endMetadata()
                .withNewSpec().withBackoffLimit(2).withTtlSecondsAfterFinished(3600)
                .withNewTemplate().withNewMetadata().withLabels(Map.of("app.kubernetes.io/name", "nightshift-node-updater")).endMetadata()
                .withNewSpec().withRestartPolicy("Never").withHostPID(true).withServiceAccountName("nightshift-node-updater")
                .withNewAffinity().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm().addNewMatchField().withKey("metadata.name").withOperator("In").withValues(node).endMatchField()
                .endNodeSelectorTerm().endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity()
                .withTolerations(tolerations)
                .addNewContainer().withName("update").withImage("registry.example.com/platform/node-updater:1.4")
                .withCommand("/bin/update-node").withNewSecurityContext().withPrivileged(true).endSecurityContext()
                .addNewEnv().withName("NIGHTSHIFT_OPERATION").withValue(operation).endEnv()
                .addNewEnv().withName("NIGHTSHIFT_NODE").withValue(node).endEnv()
                .addNewEnv().withName("NIGHTSHIFT_POOL").withValue("web").endEnv()
                .addNewEnv().withName("NIGHTSHIFT_TARGET").withValue(KUBELET_TARGET).endEnv()
                .addNewVolumeMount().withName("host").withMountPath("/host").endVolumeMount().endContainer()
                .addNewVolume().withName("host").withNewHostPath().withPath("/").endHostPath().endVolume()
                .endSpec().endTemplate().endSpec();
    }

    private Job create(JobBuilder job) {
        return client.batch().v1().jobs().inNamespace(NS).resource(job.build()).create();
    }

    private Job job(String name) {
        return client.batch().v1().jobs().inNamespace(NS).withName(name).get();
    }

    private List<Pod> podsOf(String job) {
        return client.pods().inNamespace(NS).withLabel("batch.kubernetes.io/job-name", job).list().getItems();
    }

    private static Optional<JobCondition> condition(Job job, String type) {
        return job == null || job.getStatus() == null || job.getStatus().getConditions() == null ? Optional.empty()
                : job.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
    }

    private static Optional<PodCondition> condition(Pod pod, String type) {
        return pod.getStatus() == null || pod.getStatus().getConditions() == null ? Optional.empty()
                : pod.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
    }

    private NodeCondition ready(String node) {
        return client.nodes().withName(node).get().getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType()))
                .findFirst().orElseThrow();
    }

    private String kubeletVersion(String node) {
        return client.nodes().withName(node).get().getStatus().getNodeInfo().getKubeletVersion();
    }

    private Job awaitCondition(String job, String type) {
        await().atMost(WAIT).until(() -> condition(job(job), type).filter(c -> "True".equals(c.getStatus())).isPresent());
        return job(job);
    }

    /** The writes the double made to {@code node}'s status, in the order the cluster saw them. */
    private List<RecordedRequest> nodeStatusWrites(String node) {
        return cluster.requests().stream().filter(r -> r.isWrite() && r.path().startsWith("/api/v1/nodes/" + node + "/status")
                && JobControllers.USER_AGENT.equals(r.userAgent())).toList();
    }

    @Test
    void aKubeletJobPinnedToACordonedTaintedNodeThatToleratesEverythingRunsThereSetsTheKubeletVersionAndCompletes() {
        cordonAndTaint(NODE);
        startControllers(Behaviour.fast());
        Job created = create(updaterJob("nightshift-kubelet-" + NODE + "-0123456789", NODE, "restart-kubelet", List.of(EVERYTHING)));

        Job done = awaitCondition(created.getMetadata().getName(), "Complete");

        assertThat(kubeletVersion(NODE)).isEqualTo("v1.31.5");
        assertThat(kubeletVersion(OTHER)).isEqualTo("v1.31.4");
        assertThat(ready(NODE).getStatus()).isEqualTo("True");
        assertThat(ready(NODE).getLastTransitionTime()).as("a kubelet restart is no reboot").isEqualTo(LONG_AGO);
        assertThat(done.getStatus().getSucceeded()).isEqualTo(1);
        assertThat(done.getStatus().getActive()).isZero();
        assertThat(done.getStatus().getCompletionTime()).isNotEmpty();
        assertThat(done.getStatus().getStartTime()).isNotEmpty();
        assertThat(condition(done, "SuccessCriteriaMet")).get().extracting(JobCondition::getStatus, JobCondition::getReason)
                .containsExactly("True", "CompletionsReached");
        assertThat(condition(done, "Complete")).get().extracting(JobCondition::getReason).isEqualTo("CompletionsReached");
        Pod pod = podsOf(created.getMetadata().getName()).get(0);
        assertThat(pod.getMetadata().getName()).matches(created.getMetadata().getName() + "-[bcdfghjklmnpqrstvwxz2456789]{5}");
        assertThat(pod.getMetadata().getLabels()).containsEntry("job-name", created.getMetadata().getName())
                .containsEntry("controller-uid", created.getMetadata().getUid())
                .containsEntry("batch.kubernetes.io/controller-uid", created.getMetadata().getUid())
                .containsEntry("app.kubernetes.io/name", "nightshift-node-updater");
        assertThat(pod.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(o -> assertThat(List.of(o.getKind(), o.getName(), o.getUid(), String.valueOf(o.getController())))
                        .containsExactly("Job", created.getMetadata().getName(), created.getMetadata().getUid(), "true"));
        assertThat(pod.getSpec().getNodeName()).isEqualTo(NODE);
        assertThat(pod.getStatus().getPhase()).isEqualTo("Succeeded");
        assertThat(pod.getStatus().getContainerStatuses()).singleElement()
                .satisfies(c -> assertThat(c.getState().getTerminated().getExitCode()).isZero());
        assertThat(cluster.requests()).filteredOn(r -> r.isWrite() && (r.path().contains("/pods") || r.path().contains("/jobs/")))
                .extracting(RecordedRequest::userAgent).containsOnly(JobControllers.USER_AGENT);
        // The kubelet reports its node's status once more after the pod ended (Ready's heartbeat moves on); then quiet.
        Instant ended = Instant.parse(pod.getStatus().getContainerStatuses().get(0).getState().getTerminated().getFinishedAt());
        await().atMost(WAIT).until(() -> !Instant.parse(ready(NODE).getLastHeartbeatTime()).isBefore(ended));
        long writes = doublesWrites();
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6)).until(() -> doublesWrites() == writes);
    }

    /** How many writes the double made: a finished Job must not keep it writing (each write is a watch event, and a pass). */
    private long doublesWrites() {
        return cluster.requests().stream().filter(r -> r.isWrite() && JobControllers.USER_AGENT.equals(r.userAgent())).count();
    }

    @Test
    void aJobThatDoesNotTolerateTheUnschedulableTaintStaysPendingAsUnschedulableAndNeverCompletes() {
        cordonAndTaint(NODE);
        startControllers(Behaviour.fast());
        Toleration updatingOnly = new TolerationBuilder().withKey("nightshift.dev/updating").withOperator("Exists").build();
        create(updaterJob("kubelet-untolerated", NODE, "restart-kubelet", List.of(updatingOnly)));

        await().atMost(WAIT).until(() -> podsOf("kubelet-untolerated").stream()
                .anyMatch(p -> condition(p, "PodScheduled").filter(c -> "Unschedulable".equals(c.getReason())).isPresent()));
        Pod pod = podsOf("kubelet-untolerated").get(0);
        assertThat(condition(pod, "PodScheduled")).get().extracting(PodCondition::getStatus, PodCondition::getMessage)
                .containsExactly("False", "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
                        + "1 node(s) were unschedulable.");
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> podsOf("kubelet-untolerated").stream()
                .allMatch(p -> "Pending".equals(p.getStatus().getPhase()) && p.getSpec().getNodeName() == null)
                && condition(job("kubelet-untolerated"), "Complete").isEmpty());
        assertThat(kubeletVersion(NODE)).isEqualTo("v1.31.4");
        assertThat(job("kubelet-untolerated").getStatus().getActive()).isEqualTo(1);
    }

    @Test
    void aJobPinnedToAMissingNodeStaysPending() {
        startControllers(Behaviour.fast());
        create(updaterJob("kubelet-nowhere", "ip-10-0-9-9", "restart-kubelet", List.of(EVERYTHING)));

        await().atMost(WAIT).until(() -> podsOf("kubelet-nowhere").stream()
                .anyMatch(p -> condition(p, "PodScheduled").filter(c -> "Unschedulable".equals(c.getReason())).isPresent()));
        assertThat(condition(podsOf("kubelet-nowhere").get(0), "PodScheduled")).get().extracting(PodCondition::getMessage)
                .isEqualTo("0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.");
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(4))
                .until(() -> condition(job("kubelet-nowhere"), "Complete").isEmpty());
    }

    @Test
    void aPendingPodIsScheduledOnceItsNodeIsUncordoned() {
        client.nodes().withName(NODE).edit(n -> new NodeBuilder(n).editSpec().withUnschedulable(true).endSpec().build());
        startControllers(Behaviour.fast());
        create(updaterJob("kubelet-later", NODE, "restart-kubelet", List.of()));
        await().atMost(WAIT).until(() -> podsOf("kubelet-later").stream()
                .anyMatch(p -> condition(p, "PodScheduled").filter(c -> "Unschedulable".equals(c.getReason())).isPresent()));

        client.nodes().withName(NODE).edit(n -> new NodeBuilder(n).editSpec().withUnschedulable(false).endSpec().build());

        awaitCondition("kubelet-later", "Complete");
        assertThat(kubeletVersion(NODE)).isEqualTo("v1.31.5");
    }

    @Test
    void anInPlaceJobRebootsTheNodeWhichIsReadyAgainRunningTheTargetBeforeTheJobCompletes() {
        cordonAndTaint(NODE);
        startControllers(Behaviour.fast());
        create(updaterJob("in-place", NODE, "in-place-update", List.of(EVERYTHING)));

        Job done = awaitCondition("in-place", "Complete");

        Node node = client.nodes().withName(NODE).get();
        assertThat(node.getStatus().getNodeInfo().getOsImage()).isEqualTo("ubuntu 24.04.2");
        assertThat(node.getStatus().getNodeInfo().getKubeletVersion()).isEqualTo("v1.31.5");
        assertThat(ready(NODE).getStatus()).isEqualTo("True");
        assertThat(Instant.parse(ready(NODE).getLastTransitionTime())).isAfter(Instant.parse(LONG_AGO))
                .isBeforeOrEqualTo(Instant.parse(done.getStatus().getCompletionTime()));
        List<RecordedRequest> writes = nodeStatusWrites(NODE);
        assertThat(writes).as("NotReady (rebooting), then Ready").hasSize(2);
        assertThat(writes.get(0).body()).contains("\"type\":\"Ready\"").contains("\"status\":\"False\"").contains("rebooting");
        assertThat(writes.get(1).body()).contains("\"osImage\":\"ubuntu 24.04.2\"").doesNotContain("\"status\":\"False\"");
        List<RecordedRequest> all = cluster.requests();
        int completed = all.stream().filter(r -> r.isWrite() && r.path().endsWith("/jobs/in-place/status")
                && r.body().contains("\"Complete\"")).findFirst().map(all::indexOf).orElseThrow();
        assertThat(all.indexOf(writes.get(1))).as("Ready again before the Job completes").isLessThan(completed);
    }

    @Test
    void aFailingUpdaterFailsItsPodsWithTheTerminationMessageUntilTheBackoffLimitIsExceeded() {
        startControllers(Behaviour.fast());
        controllers.failOn(NODE, "apt-get: Version '1.31.5-*' for 'kubelet' was not found");
        create(updaterJob("kubelet-fails", NODE, "restart-kubelet", List.of(EVERYTHING)));

        Job failed = awaitCondition("kubelet-fails", "Failed");

        assertThat(condition(failed, "Failed")).get().extracting(JobCondition::getReason, JobCondition::getMessage)
                .containsExactly("BackoffLimitExceeded", "Job has reached the specified backoff limit");
        assertThat(condition(failed, "FailureTarget")).get().extracting(JobCondition::getReason).isEqualTo("BackoffLimitExceeded");
        assertThat(condition(failed, "Complete")).isEmpty();
        assertThat(failed.getStatus().getFailed()).isEqualTo(3);
        assertThat(podsOf("kubelet-fails")).as("backoffLimit 2: three pods, all kept").hasSize(3).allSatisfy(p -> {
            assertThat(p.getStatus().getPhase()).isEqualTo("Failed");
            assertThat(p.getStatus().getContainerStatuses().get(0).getState().getTerminated())
                    .satisfies(t -> assertThat(List.of(String.valueOf(t.getExitCode()), t.getMessage()))
                            .containsExactly("1", "apt-get: Version '1.31.5-*' for 'kubelet' was not found"));
        });
        assertThat(kubeletVersion(NODE)).isEqualTo("v1.31.4");
    }

    @Test
    void aPodThatFailsOnceIsReplacedAndTheJobStillCompletes() {
        startControllers(Behaviour.fast());
        controllers.failOn(NODE, "dpkg lock held", 1);
        create(updaterJob("kubelet-retry", NODE, "restart-kubelet", List.of(EVERYTHING)));

        Job done = awaitCondition("kubelet-retry", "Complete");

        assertThat(done.getStatus().getFailed()).isEqualTo(1);
        assertThat(done.getStatus().getSucceeded()).isEqualTo(1);
        assertThat(podsOf("kubelet-retry")).extracting(p -> p.getStatus().getPhase()).containsExactlyInAnyOrder("Failed", "Succeeded");
        assertThat(kubeletVersion(NODE)).isEqualTo("v1.31.5");
    }

    @Test
    void aNeverFinishingUpdaterFailsItsJobAtTheActiveDeadline() {
        startControllers(Behaviour.fast());
        controllers.neverFinishOn(NODE);
        create(updaterJob("kubelet-hangs", NODE, "restart-kubelet", List.of(EVERYTHING)).editSpec().withActiveDeadlineSeconds(2L).endSpec());
        await().atMost(WAIT).until(() -> podsOf("kubelet-hangs").stream().anyMatch(p -> "Running".equals(p.getStatus().getPhase())));

        Job failed = awaitCondition("kubelet-hangs", "Failed");

        assertThat(condition(failed, "Failed")).get().extracting(JobCondition::getReason, JobCondition::getMessage)
                .containsExactly("DeadlineExceeded", "Job was active longer than specified deadline");
        assertThat(Duration.between(Instant.parse(failed.getStatus().getStartTime()),
                Instant.parse(condition(failed, "Failed").get().getLastTransitionTime()))).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        assertThat(podsOf("kubelet-hangs")).as("the running pod is deleted").isEmpty();
        assertThat(kubeletVersion(NODE)).isEqualTo("v1.31.4");
    }

    @Test
    void anUpdaterWithoutEffectCompletesItsJobWhileTheNodeKeepsItsKubelet() {
        startControllers(Behaviour.fast());
        controllers.completeWithoutEffectOn(NODE);
        create(updaterJob("kubelet-noop", NODE, "restart-kubelet", List.of(EVERYTHING)));

        awaitCondition("kubelet-noop", "Complete");

        assertThat(kubeletVersion(NODE)).isEqualTo("v1.31.4");
        assertThat(nodeStatusWrites(NODE)).isEmpty();
    }

    @Test
    void aFinishedJobAndItsPodsAreDeletedOnceItsScaledTtlIsOver() {
        startControllers(Behaviour.fast().withTtlScale(2.0 / 3600));
        create(updaterJob("kubelet-ttl", NODE, "restart-kubelet", List.of(EVERYTHING)));
        awaitCondition("kubelet-ttl", "Complete");
        assertThat(podsOf("kubelet-ttl")).hasSize(1);

        await().atMost(WAIT).until(() -> job("kubelet-ttl") == null);

        assertThat(podsOf("kubelet-ttl")).isEmpty();
        assertThat(cluster.requests()).filteredOn(r -> r.method().equals("DELETE") && r.path().endsWith("/jobs/kubelet-ttl"))
                .singleElement().extracting(RecordedRequest::userAgent).isEqualTo(JobControllers.USER_AGENT);
    }

    @Test
    void kubectlGetJobsListsTheJobs() throws Exception {
        startControllers(Behaviour.fast());
        create(updaterJob("nightshift-kubelet-" + NODE + "-0123456789", NODE, "restart-kubelet", List.of(EVERYTHING)));
        awaitCondition("nightshift-kubelet-" + NODE + "-0123456789", "Complete");
        Path kubeconfig = cluster.writeKubeconfig(tmp.resolve("kubeconfig"));

        Kubectl.Run run = Kubectl.run(tmp, kubeconfig, "get", "jobs", "-n", NS);

        assertThat(run.exitCode()).as("exit code; stderr: %s", run.stderr()).isZero();
        assertThat(run.stdout()).contains("NAME").contains("nightshift-kubelet-" + NODE + "-0123456789");
    }
}
