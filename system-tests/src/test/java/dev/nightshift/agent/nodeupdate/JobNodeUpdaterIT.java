package dev.nightshift.agent.nodeupdate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.nightshift.agent.TestClusters;
import dev.nightshift.agent.kube.EventRecorder;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.provider.Machine;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredPool;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The Job node updater against the embedded API server, with the test in the Job controller's
 * place: it sets each Job's status (and the node's) as a controller and a kubelet would, and the
 * request log says which Jobs the updater created.
 */
class JobNodeUpdaterIT {

    private static final String NAMESPACE = "nightshift-node-updates";
    private static final String NODE = "web-1";
    private static final StampedHash OLD = new StampedHash(1, "0".repeat(32));
    private static final JobSettings SETTINGS = new JobSettings(NAMESPACE, "updater:1", List.of("/bin/update-node"),
            "nightshift-node-updater", Optional.empty());
    /** Kubernetes 1.31.4, the pool's version; healthTimeout 10m (the default). */
    private static final DesiredPool POOL = TestClusters.oneWebPool().pools().get(0);

    private final EmbeddedKubernetes kube = EmbeddedKubernetes.start();
    private final KubernetesClient client = kube.client();
    private final TestClock clock = new TestClock(Instant.now());
    private final List<String> updating = new ArrayList<>();
    private final MachineProvider machines = new RecordingMachines(updating);

    @AfterEach
    void stop() {
        kube.close();
    }

    private JobNodeUpdater updater() {
        return new JobNodeUpdater(client, SETTINGS, machines, new EventRecorder(client, clock, "agent-0"), clock);
    }

    /** A Ready node of pool web at the old hashes, its kubelet reporting {@code kubeletVersion}, Ready since {@code since}. */
    private void node(String kubeletVersion, Instant since) {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).addToLabels(NodeMarks.POOL, "web")
                .addToAnnotations(NodeMarks.hashes(OLD, OLD)).endMetadata()
                .withNewSpec().endSpec()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").withLastTransitionTime(since.toString())
                .withLastHeartbeatTime(since.toString()).endCondition()
                .withNewNodeInfo().withKubeletVersion(kubeletVersion).endNodeInfo().endStatus().build()).create();
    }

    /** What the executor writes before it calls the updater. */
    private void mark(String key) {
        client.nodes().withName(NODE).edit(n -> {
            n.getMetadata().getAnnotations().put(key, NodeMarks.instant(clock.instant()));
            return n;
        });
    }

    private Node current() {
        return client.nodes().withName(NODE).get();
    }

    private List<Job> jobs() {
        return client.batch().v1().jobs().inNamespace(NAMESPACE).list().getItems();
    }

    private List<RecordedRequest> jobCreations() {
        return kube.requests().stream().filter(r -> r.method().equals("POST")
                && r.resourcePath().equals("/apis/batch/v1/namespaces/" + NAMESPACE + "/jobs")).toList();
    }

    /** As the Job controller: the Job finished with condition {@code type} at {@code at}. */
    private void finish(Job job, String type, Instant at, String reason) {
        client.batch().v1().jobs().inNamespace(NAMESPACE).withName(job.getMetadata().getName()).editStatus(j -> {
            if (j.getStatus() == null) {
                j.setStatus(new io.fabric8.kubernetes.api.model.batch.v1.JobStatus());
            }
            j.getStatus().setConditions(new ArrayList<>(List.of(new JobConditionBuilder().withType(type).withStatus("True")
                    .withReason(reason).withMessage(type.equals("Failed") ? "Job has reached the specified backoff limit" : null)
                    .withLastTransitionTime(at.toString()).build())));
            if (type.equals("Complete")) {
                j.getStatus().setCompletionTime(at.toString());
            }
            return j;
        });
    }

    /** As the kubelet: it reports {@code version}, Ready since {@code since}. */
    private void kubelet(String version, Instant since) {
        client.nodes().withName(NODE).editStatus(n -> {
            n.getStatus().getNodeInfo().setKubeletVersion(version);
            n.getStatus().getConditions().get(0).setLastTransitionTime(since.toString());
            n.getStatus().getConditions().get(0).setLastHeartbeatTime(since.toString());
            return n;
        });
    }

    @Test
    void aKubeletRestartToANewVersionIsDoneOnlyWhenTheNodeReportsItAfterTheJobCompleted() {
        node("v1.31.3", clock.instant().minusSeconds(3600));
        mark(NodeMarks.KUBELET_RESTART_AT);
        JobNodeUpdater updater = updater();

        updater.restartKubelet(POOL, NODE);
        Job job = jobs().get(0);
        assertThat(job.getMetadata().getName()).isEqualTo("nightshift-kubelet-web-1-" + POOL.kubeletHash().value().substring(0, 10));
        assertThat(NodeMarks.annotation(current(), NodeMarks.UPDATE_JOB)).isEqualTo(job.getMetadata().getName());
        updater.settle(POOL);
        assertThat(NodeMarks.kubeletHash(NodeMarks.annotations(current()))).contains(OLD);

        clock.advance(Duration.ofMinutes(1));
        finish(job, "Complete", clock.instant(), null);
        updater.settle(POOL);
        assertThat(NodeMarks.kubeletHash(NodeMarks.annotations(current()))).as("complete, but the kubelet still reports v1.31.3")
                .contains(OLD);

        kubelet("v1.31.4+vendor.1", clock.instant().minusSeconds(30));
        updater.settle(POOL);
        Map<String, String> marks = NodeMarks.annotations(current());
        assertThat(NodeMarks.kubeletHash(marks)).contains(POOL.kubeletHash());
        assertThat(NodeMarks.rollHash(marks)).as("a kubelet restart stamps only the kubelet hash").contains(OLD);
        assertThat(marks).doesNotContainKeys(NodeMarks.UPDATE_JOB, NodeMarks.IN_PLACE_FAILED);
        assertThat(updating).containsExactly("web/web-1 true", "web/web-1 false");
    }

    @Test
    void aJobThatCompletesWhileTheKubeletVersionStaysFailsTheNodeAfterHealthTimeout() {
        node("v1.31.3", clock.instant().minusSeconds(3600));
        mark(NodeMarks.KUBELET_RESTART_AT);
        JobNodeUpdater updater = updater();
        updater.restartKubelet(POOL, NODE);
        finish(jobs().get(0), "Complete", clock.instant(), null);

        clock.advance(Duration.ofMinutes(9));
        updater.settle(POOL);
        assertThat(NodeMarks.annotations(current())).doesNotContainKey(NodeMarks.IN_PLACE_FAILED);

        clock.advance(Duration.ofMinutes(1));
        updater.settle(POOL);
        Map<String, String> marks = NodeMarks.annotations(current());
        assertThat(marks).containsEntry(NodeMarks.IN_PLACE_FAILED, "true").doesNotContainKey(NodeMarks.UPDATE_JOB);
        assertThat(marks.get(NodeMarks.IN_PLACE_FAILED_REASON)).contains("did not show the update within healthTimeout (600s)")
                .contains("its kubelet reports v1.31.3, not 1.31.4");
        assertThat(NodeMarks.kubeletHash(marks)).contains(OLD);
    }

    @Test
    void aFailedJobMarksTheNodeFailedWithTheUpdatersTerminationMessageAndAnEvent() {
        node("v1.31.3", clock.instant().minusSeconds(3600));
        mark(NodeMarks.IN_PLACE_STARTED_AT);
        JobNodeUpdater updater = updater();
        updater.updateInPlace(POOL, NODE);
        Job job = jobs().get(0);
        client.pods().inNamespace(NAMESPACE).resource(new PodBuilder().withNewMetadata().withName(job.getMetadata().getName() + "-x1")
                .addToLabels("batch.kubernetes.io/job-name", job.getMetadata().getName()).endMetadata()
                .withNewSpec().withNodeName(NODE).addNewContainer().withName("updater").withImage("updater:1").endContainer().endSpec()
                .withNewStatus().withPhase("Failed").addNewContainerStatus().withName("updater").withNewState().withNewTerminated()
                .withExitCode(3).withMessage("apt-get: package kubelet=1.31.4-1.1 not found\n").endTerminated().endState()
                .endContainerStatus().endStatus().build()).create();

        finish(job, "Failed", clock.instant(), "BackoffLimitExceeded");
        updater.settle(POOL);

        Map<String, String> marks = NodeMarks.annotations(current());
        assertThat(marks).containsEntry(NodeMarks.IN_PLACE_FAILED, "true");
        assertThat(marks.get(NodeMarks.IN_PLACE_FAILED_REASON)).isEqualTo("node updater Job " + NAMESPACE + "/"
                + job.getMetadata().getName() + " failed (BackoffLimitExceeded): apt-get: package kubelet=1.31.4-1.1 not found");
        assertThat(client.v1().events().inNamespace("default").list().getItems())
                .anySatisfy(e -> {
                    assertThat(e.getReason()).isEqualTo("NodeUpdateFailed");
                    assertThat(e.getType()).isEqualTo("Warning");
                    assertThat(e.getInvolvedObject().getName()).isEqualTo(NODE);
                    assertThat(e.getMessage()).contains("package kubelet=1.31.4-1.1 not found");
                });
    }

    @Test
    void anInPlaceUpdateIsDoneWhenTheNodeIsReadyAfterTheJobCompletedAndGetsBothHashes() {
        node("v1.31.4", clock.instant().minusSeconds(3600));
        mark(NodeMarks.IN_PLACE_STARTED_AT);
        JobNodeUpdater updater = updater();
        updater.updateInPlace(POOL, NODE);
        Job job = jobs().get(0);
        finish(job, "Complete", clock.instant(), null);

        updater.settle(POOL);
        assertThat(NodeMarks.rollHash(NodeMarks.annotations(current()))).as("Ready only since before the Job completed").contains(OLD);

        clock.advance(Duration.ofSeconds(20));
        kubelet("v1.31.4", clock.instant());
        updater.settle(POOL);
        Map<String, String> marks = NodeMarks.annotations(current());
        assertThat(NodeMarks.rollHash(marks)).contains(POOL.rollHash());
        assertThat(NodeMarks.kubeletHash(marks)).contains(POOL.kubeletHash());
        assertThat(marks).doesNotContainKey(NodeMarks.UPDATE_JOB);
    }

    @Test
    void anUpdaterRestartedWhileItsJobRunsFindsTheJobAndCreatesNoOther() {
        node("v1.31.3", clock.instant().minusSeconds(3600));
        mark(NodeMarks.KUBELET_RESTART_AT);
        updater().restartKubelet(POOL, NODE);
        // The agent died before it wrote which Job the node waits for.
        client.nodes().withName(NODE).edit(n -> {
            n.getMetadata().getAnnotations().remove(NodeMarks.UPDATE_JOB);
            return n;
        });

        JobNodeUpdater restarted = updater();
        restarted.restartKubelet(POOL, NODE);
        restarted.restartKubelet(POOL, NODE);
        restarted.settle(POOL);

        assertThat(jobCreations()).hasSize(1);
        assertThat(jobs()).hasSize(1);
        assertThat(NodeMarks.annotation(current(), NodeMarks.UPDATE_JOB)).isEqualTo(jobs().get(0).getMetadata().getName());
    }

    @Test
    void aRunningJobOfAnotherTargetIsNeitherJoinedByASecondNorDeleted() {
        node("v1.31.3", clock.instant().minusSeconds(3600));
        mark(NodeMarks.IN_PLACE_STARTED_AT);
        JobNodeUpdater updater = updater();
        updater.updateInPlace(POOL, NODE);
        String running = jobs().get(0).getMetadata().getName();
        DesiredPool changed = TestClusters.load("""
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: c}
                spec:
                  kubernetes: {version: "1.31.4"}
                ---
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: c}
                spec:
                  minimum: 1
                  maximum: 3
                  machine: {type: m5.large, image: {name: gardenlinux, version: 1632.0.0}}
                """).pools().get(0);

        updater.updateInPlace(changed, NODE);
        updater.restartKubelet(changed, NODE);

        assertThat(jobs()).extracting(j -> j.getMetadata().getName()).containsExactly(running);
        assertThat(kube.requests()).noneMatch(r -> r.method().equals("DELETE") && r.path().contains("/jobs"));
        assertThat(jobCreations()).hasSize(1);
    }

    @Test
    void aFinishedJobOfAnEarlierUpdateToTheSameTargetIsReplacedNotTakenForThisOne() {
        node("v1.31.4", clock.instant().minusSeconds(3600));
        mark(NodeMarks.IN_PLACE_STARTED_AT);
        JobNodeUpdater updater = updater();
        updater.updateInPlace(POOL, NODE);
        finish(jobs().get(0), "Complete", clock.instant(), null);
        kubelet("v1.31.4", clock.instant().plusSeconds(5));
        clock.advance(Duration.ofSeconds(10));
        updater.settle(POOL);
        // A → B → A: later, the node is asked to go to the same target again.
        clock.advance(Duration.ofMinutes(5));
        mark(NodeMarks.IN_PLACE_STARTED_AT);

        updater.updateInPlace(POOL, NODE);

        assertThat(jobCreations()).hasSize(2);
        assertThat(jobs()).singleElement().satisfies(j -> assertThat(j.getStatus() == null || j.getStatus().getConditions() == null
                || j.getStatus().getConditions().isEmpty()).as("a new Job, not the finished one").isTrue());
    }

    /** A clock the test moves. */
    private static final class TestClock extends Clock {
        private volatile Instant now;

        TestClock(Instant start) {
            this.now = start;
        }

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    /** Records the provider's notices that a node is being updated. */
    private record RecordingMachines(List<String> updating) implements MachineProvider, dev.nightshift.agent.provider.RemediationHolds {
        @Override
        public void nodeUpdating(String pool, String node, boolean on) {
            updating.add(pool + "/" + node + " " + on);
        }

        @Override
        public List<Machine> machines(String pool) {
            return List.of();
        }

        @Override
        public void create(DesiredPool pool, String surgeFor) {
        }

        @Override
        public Deletion delete(DesiredPool pool, String machine, boolean replace) {
            return Deletion.deferred("not here");
        }

        @Override
        public void stamp(String pool, String machine, StampedHash rollHash, StampedHash kubeletHash) {
        }
    }
}
