package dev.nightshift.agent.nodeupdate;

import static dev.nightshift.agent.kube.NodeMarks.annotation;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.kube.EventRecorder;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.kube.NodePatcher;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.agent.provider.ProviderCapabilities;
import dev.nightshift.agent.provider.NodeUpdater;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredPool;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.ScalableResource;
import io.fabric8.kubernetes.api.model.batch.v1.JobList;
import io.fabric8.kubernetes.api.model.DeletionPropagation;

/**
 * {@code nodeUpdates.type: job}: each node update is a privileged Job pinned to the node
 * ({@link UpdaterJobs}), named deterministically ({@link JobNames}), so a restarted agent finds the
 * Job it created and waits for it. Never two Jobs for one node at once: while any Job of the node
 * runs, no other is created; a running Job is never deleted, whatever the target became.
 *
 * <p>The node names the Job it waits for ({@link NodeMarks#UPDATE_JOB}). Done means observed
 * ({@link #settle}): a Job {@code Complete} and the node Ready with the target kubelet version (a
 * restart to a new version), or Ready after the Job's completion (an in-place update, a kubelet
 * change that keeps the version); then the node is stamped with the Job's hashes and the planner
 * goes on. A {@code Failed} Job, or a completed one whose effect does not show within the pool's
 * healthTimeout, marks the node failed with the reason ({@link NodeMarks#IN_PLACE_FAILED}), an Event
 * says so, and the pool stops there as for any failed in-place update. Outcomes are recorded on the
 * node while the Job is still kept ({@link UpdaterJobs#LEAST_TTL}).
 */
public final class JobNodeUpdater implements NodeUpdater {

    private static final Logger LOG = LoggerFactory.getLogger(JobNodeUpdater.class);
    /** Pod labels the Job controller sets: the newer one, and the one every version sets. */
    private static final List<String> JOB_NAME_LABELS = List.of("batch.kubernetes.io/job-name", "job-name");
    private static final int MAX_REASON_BYTES = 1024;

    private final KubernetesClient client;
    private final JobSettings settings;
    /** Told while a node is updated (Cluster API holds its health checks off), if the provider has holds. */
    private final ProviderCapabilities machines;
    private final EventRecorder events;
    private final Clock clock;
    private final NodePatcher patcher;

    /** @param machines told while a node is updated, so that its own health checks leave the machine alone */
    public JobNodeUpdater(KubernetesClient client, JobSettings settings, MachineProvider machines, EventRecorder events, Clock clock) {
        this.client = client;
        this.settings = settings;
        this.machines = new ProviderCapabilities(machines);
        this.events = events;
        this.clock = clock;
        this.patcher = new NodePatcher(client);
    }

    @Override
    public void updateInPlace(DesiredPool pool, String node) {
        start(UpdateOperation.IN_PLACE, pool, node, NodeMarks.IN_PLACE_STARTED_AT);
    }

    @Override
    public void restartKubelet(DesiredPool pool, String node) {
        start(UpdateOperation.RESTART_KUBELET, pool, node, NodeMarks.KUBELET_RESTART_AT);
    }

    private NonNamespaceOperation<Job, JobList, ScalableResource<Job>> jobs() {
        return client.batch().v1().jobs().inNamespace(settings.namespace());
    }

    /**
     * Creates the node's Job for this target unless it exists. A Job of that name that finished before
     * this update was asked for ({@code askedMark}) is from an earlier update to the same target (A → B
     * → A): it says nothing about this one, so it is deleted and replaced.
     */
    private void start(UpdateOperation operation, DesiredPool pool, String node, String askedMark) {
        Node n = client.nodes().withName(node).get();
        if (n == null) {
            return;
        }
        Job job = UpdaterJobs.build(settings, operation, pool, node, kubeletVersion(n).orElse(""));
        String name = job.getMetadata().getName();
        Job existing = jobs().withName(name).get();
        if (existing != null) {
            if (name.equals(annotation(n, NodeMarks.UPDATE_JOB))) {
                return;
            }
            Optional<Instant> asked = NodeMarks.instant(annotation(n, askedMark));
            boolean earlier = finished(existing) && asked.filter(a -> created(existing).isBefore(a.minusSeconds(1))).isPresent();
            if (!earlier) {
                follow(node, name);
                return;
            }
            LOG.info("node updater Job {} finished before this update of {} was asked for: replacing it", name, node);
            jobs().withName(name).withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
        }
        Optional<Job> running = jobsOf(node).stream().filter(j -> !finished(j)).findFirst();
        if (running.isPresent()) {
            LOG.info("not updating {} yet: node updater Job {} still runs on it", node, running.get().getMetadata().getName());
            return;
        }
        machines.nodeUpdating(pool.name(), node, true);
        try {
            jobs().resource(job).create();
            LOG.info("node updater Job {}/{} created: {} on {}", settings.namespace(), name, operation.value(), node);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            if (existing != null) {
                // The earlier Job is still being deleted: the next ask creates this one.
                return;
            }
        }
        follow(node, name);
    }

    private void follow(String node, String job) {
        patcher.patch(node, n -> job.equals(annotation(n, NodeMarks.UPDATE_JOB)) ? Optional.empty()
                : Optional.of(Map.of("metadata", Map.of("annotations", Map.of(NodeMarks.UPDATE_JOB, job)))));
    }

    /** The Jobs of {@code node}, by its label and (the label may be shortened) its full name. */
    private List<Job> jobsOf(String node) {
        return jobs().withLabel(UpdaterJobs.NODE, JobNames.labelValue(node)).list().getItems().stream()
                .filter(j -> node.equals(jobAnnotation(j, UpdaterJobs.NODE))).toList();
    }

    @Override
    public void settle(DesiredPool pool) {
        Map<String, Job> byName = new HashMap<>();
        jobs().withLabel(UpdaterJobs.POOL, pool.name()).list().getItems().forEach(j -> byName.put(j.getMetadata().getName(), j));
        for (Node n : client.nodes().withLabel(NodeMarks.POOL, pool.name()).list().getItems()) {
            String followed = annotation(n, NodeMarks.UPDATE_JOB);
            if (followed != null) {
                settle(pool, n, followed, byName.get(followed));
            }
        }
    }

    /**
     * Reads only the nodes the cache shows waiting, and the Job each follows, one GET each: no LIST of the pool's nodes
     * or Jobs before every plan, and nothing at all when no node of the pool is being updated.
     */
    @Override
    public void settle(DesiredPool pool, Set<String> waiting) {
        for (String name : new TreeSet<>(waiting)) {
            Node n = client.nodes().withName(name).get();
            String followed = n == null || !pool.name().equals(NodeMarks.labels(n).get(NodeMarks.POOL)) ? null
                    : annotation(n, NodeMarks.UPDATE_JOB);
            if (followed != null) {
                settle(pool, n, followed, jobs().withName(followed).get());
            }
        }
    }

    private void settle(DesiredPool pool, Node n, String followed, Job job) {
        String node = n.getMetadata().getName();
        if (job == null || !node.equals(jobAnnotation(job, UpdaterJobs.NODE))) {
            // Deleted by someone: nothing to wait for; the next ask creates it again.
            LOG.warn("node updater Job {} that {} waited for is gone", followed, node);
            patcher.patch(node, x -> followed.equals(annotation(x, NodeMarks.UPDATE_JOB))
                    ? Optional.of(Map.of("metadata", Map.of("annotations", mapOf(NodeMarks.UPDATE_JOB, null)))) : Optional.empty());
            return;
        }
        judge(pool, job, n);
    }

    private void judge(DesiredPool pool, Job job, Node n) {
        String node = n.getMetadata().getName();
        String name = job.getMetadata().getName();
        Optional<JobCondition> failed = condition(job, "Failed");
        if (failed.isPresent()) {
            fail(pool, node, name, "node updater Job " + settings.namespace() + "/" + name + " failed ("
                    + Objects.toString(failed.get().getReason(), "Failed") + "): " + terminationMessage(job)
                    .orElse(Objects.toString(failed.get().getMessage(), "no message")));
            return;
        }
        Optional<Instant> completed = completed(job);
        if (completed.isEmpty()) {
            return;
        }
        UpdateOperation operation = UpdateOperation.of(jobLabel(job, UpdaterJobs.OPERATION)).orElse(UpdateOperation.IN_PLACE);
        String target = jobAnnotation(job, UpdaterJobs.TARGET_VERSION);
        Optional<String> reported = kubeletVersion(n);
        boolean versionChange = !KubeletVersions.same(jobAnnotation(job, UpdaterJobs.KUBELET_VERSION_BEFORE), target);
        Optional<Instant> readySince = readyAfter(n, completed.get());
        boolean done = operation == UpdateOperation.RESTART_KUBELET && versionChange
                ? ready(n) && reported.filter(v -> KubeletVersions.same(v, target)).isPresent()
                : readySince.isPresent();
        Map<String, String> marks = job.getMetadata().getAnnotations() == null ? Map.of() : job.getMetadata().getAnnotations();
        if (done) {
            Map<String, Object> stamp = new HashMap<>();
            Optional<StampedHash> kubelet = NodeMarks.kubeletHash(marks);
            kubelet.ifPresent(h -> stamp.putAll(NodeMarks.kubeletHash(h)));
            if (operation == UpdateOperation.IN_PLACE) {
                NodeMarks.rollHash(marks).ifPresent(h -> stamp.putAll(NodeMarks.rollHash(h)));
            }
            stamp.put(NodeMarks.UPDATE_JOB, null);
            patcher.patch(node, x -> name.equals(annotation(x, NodeMarks.UPDATE_JOB))
                    ? Optional.of(Map.of("metadata", Map.of("annotations", stamp))) : Optional.empty());
            machines.nodeUpdating(pool.name(), node, false);
            LOG.info("node {} runs its target: node updater Job {} completed and the node shows it", node, name);
            return;
        }
        Duration health = pool.spec().pool().machineControllerManager().healthTimeout();
        if (!completed.get().plus(health).isAfter(clock.instant())) {
            String shows = operation == UpdateOperation.RESTART_KUBELET && versionChange
                    ? "its kubelet reports " + reported.orElse("no version") + ", not " + target + (ready(n) ? "" : ", and it is not Ready")
                    : "it has not been Ready since";
            fail(pool, node, name, "node updater Job " + settings.namespace() + "/" + name + " completed at " + completed.get()
                    + ", but the node did not show the update within healthTimeout (" + health.toSeconds() + "s): " + shows);
        }
    }

    private void fail(DesiredPool pool, String node, String job, String reason) {
        String cut = cut(reason);
        Map<String, Object> marks = new HashMap<>();
        marks.put(NodeMarks.IN_PLACE_FAILED, "true");
        marks.put(NodeMarks.IN_PLACE_FAILED_REASON, cut);
        marks.put(NodeMarks.UPDATE_JOB, null);
        boolean[] written = {false};
        patcher.patch(node, x -> {
            written[0] = job.equals(annotation(x, NodeMarks.UPDATE_JOB));
            return written[0] ? Optional.of(Map.of("metadata", Map.of("annotations", marks))) : Optional.empty();
        });
        if (written[0]) {
            LOG.warn("update of node {} in pool {} failed: {}", node, pool.name(), cut);
            events.node(node, EventRecorder.Reason.NodeUpdateFailed, "Update of node " + node + " in pool " + pool.name()
                    + " failed; the pool stops until a person decides: " + cut);
        }
    }

    /** The termination message of the Job's newest pod that has one (the updater's reason, or its log's tail). */
    private Optional<String> terminationMessage(Job job) {
        String name = job.getMetadata().getName();
        for (String label : JOB_NAME_LABELS) {
            List<Pod> pods = client.pods().inNamespace(settings.namespace()).withLabel(label, name).list().getItems().stream()
                    .sorted(Comparator.comparing((Pod p) -> Objects.toString(p.getMetadata().getCreationTimestamp(), "")).reversed())
                    .toList();
            for (Pod p : pods) {
                Optional<String> message = p.getStatus() == null || p.getStatus().getContainerStatuses() == null ? Optional.empty()
                        : p.getStatus().getContainerStatuses().stream().map(JobNodeUpdater::message).flatMap(Optional::stream).findFirst();
                if (message.isPresent()) {
                    return message;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> message(ContainerStatus s) {
        for (var state : java.util.Arrays.asList(s.getState(), s.getLastState())) {
            ContainerStateTerminated t = state == null ? null : state.getTerminated();
            if (t != null && t.getMessage() != null && !t.getMessage().isBlank()) {
                return Optional.of(t.getMessage().strip());
            }
        }
        return Optional.empty();
    }

    static boolean finished(Job job) {
        return condition(job, "Complete").isPresent() || condition(job, "Failed").isPresent();
    }

    private static Optional<JobCondition> condition(Job job, String type) {
        if (job.getStatus() == null || job.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return job.getStatus().getConditions().stream().filter(c -> type.equals(c.getType()) && "True".equals(c.getStatus())).findFirst();
    }

    /** When the Job completed: its {@code completionTime}, else its Complete condition's transition. */
    private static Optional<Instant> completed(Job job) {
        Optional<JobCondition> complete = condition(job, "Complete");
        if (complete.isEmpty()) {
            return Optional.empty();
        }
        return NodeMarks.instant(job.getStatus().getCompletionTime()).or(() -> NodeMarks.instant(complete.get().getLastTransitionTime()))
                .or(() -> Optional.of(Instant.EPOCH));
    }

    private static Instant created(Job job) {
        return NodeMarks.instant(job.getMetadata().getCreationTimestamp()).orElse(Instant.EPOCH);
    }

    private static Optional<String> kubeletVersion(Node n) {
        return n.getStatus() == null || n.getStatus().getNodeInfo() == null ? Optional.empty()
                : Optional.ofNullable(n.getStatus().getNodeInfo().getKubeletVersion()).filter(v -> !v.isBlank());
    }

    private static Optional<NodeCondition> readyCondition(Node n) {
        if (n.getStatus() == null || n.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return n.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType())).findFirst();
    }

    private static boolean ready(Node n) {
        return readyCondition(n).filter(c -> "True".equals(c.getStatus())).isPresent();
    }

    /**
     * The node is Ready and its kubelet said so after {@code completed}: it became Ready then, or its
     * last heartbeat came then (a kubelet restart may not change the condition at all).
     */
    private static Optional<Instant> readyAfter(Node n, Instant completed) {
        return readyCondition(n).filter(c -> "True".equals(c.getStatus())).flatMap(c -> {
            Optional<Instant> transition = NodeMarks.instant(c.getLastTransitionTime());
            Optional<Instant> heartbeat = NodeMarks.instant(c.getLastHeartbeatTime());
            return java.util.stream.Stream.of(transition, heartbeat).flatMap(Optional::stream).filter(t -> t.isAfter(completed))
                    .max(Instant::compareTo);
        });
    }

    private static String jobAnnotation(Job job, String key) {
        return job.getMetadata().getAnnotations() == null ? null : job.getMetadata().getAnnotations().get(key);
    }

    private static String jobLabel(Job job, String key) {
        return job.getMetadata().getLabels() == null ? "" : job.getMetadata().getLabels().getOrDefault(key, "");
    }

    private static String cut(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= MAX_REASON_BYTES) {
            return text;
        }
        return new String(bytes, 0, MAX_REASON_BYTES - 3, StandardCharsets.UTF_8).replaceAll("\uFFFD$", "") + "...";
    }

    private static Map<String, Object> mapOf(String key, Object value) {
        Map<String, Object> m = new HashMap<>();
        m.put(key, value);
        return m;
    }
}
