package dev.nightshift.sandbox.jobs;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.UncountedTerminatedPods;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The Job controller's part of the double, for Jobs of one pod ({@code completions} and {@code parallelism} 1, as
 * node updaters are): it starts the Job ({@code status.startTime}), creates its pod, replaces a failed pod after a
 * doubling backoff until {@code backoffLimit + 1} pods failed, and ends the Job as Kubernetes 1.31 does: an
 * intermediate condition ({@code SuccessCriteriaMet}, {@code FailureTarget}) and the terminal one ({@code Complete},
 * {@code Failed}) with the same reason. Past {@code activeDeadlineSeconds} (times {@link Behaviour#deadlineScale()})
 * the running pod is deleted and the Job fails with {@code DeadlineExceeded}. The TTL-after-finished controller and the
 * garbage collector are played too: a finished Job goes, with its pods, {@code ttlSecondsAfterFinished} (times
 * {@link Behaviour#ttlScale()}) after its terminal condition; a pod whose Job is gone is deleted.
 */
final class JobSync {

    static final String JOB_NAME = "batch.kubernetes.io/job-name";
    static final String CONTROLLER_UID = "batch.kubernetes.io/controller-uid";
    static final String LEGACY_JOB_NAME = "job-name";
    static final String LEGACY_CONTROLLER_UID = "controller-uid";

    private static final Logger LOG = LoggerFactory.getLogger(JobSync.class);
    /** Upstream's name suffix alphabet ({@code k8s.io/apimachinery/pkg/util/rand.String}): no vowels, no confusable digits. */
    private static final String ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";
    private static final int DEFAULT_BACKOFF_LIMIT = 6;
    private static final int BACKOFF_CAP = 36;

    private final KubernetesClient client;
    private final String namespace;
    private final Behaviour behaviour;
    private final Supplier<Integer> nextRandom;
    private final Consumer<Duration> passIn;

    /** @param nextRandom an int in [0, 27) from the double's seeded generator, for pod name suffixes */
    JobSync(KubernetesClient client, String namespace, Behaviour behaviour, Supplier<Integer> nextRandom, Consumer<Duration> passIn) {
        this.client = client;
        this.namespace = namespace;
        this.behaviour = behaviour;
        this.nextRandom = nextRandom;
        this.passIn = passIn;
    }

    static boolean ownedBy(Pod pod, Job job) {
        return controllerUid(pod).map(uid -> uid.equals(job.getMetadata().getUid())).orElse(false);
    }

    static Optional<String> controllerUid(Pod pod) {
        List<OwnerReference> owners = pod.getMetadata().getOwnerReferences() == null ? List.of() : pod.getMetadata().getOwnerReferences();
        return owners.stream().filter(o -> "Job".equals(o.getKind()) && Boolean.TRUE.equals(o.getController()))
                .map(OwnerReference::getUid).findFirst();
    }

    static boolean terminal(Pod pod) {
        String phase = pod.getStatus() == null ? "" : Objects.toString(pod.getStatus().getPhase(), "");
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    static boolean phase(Pod pod, String phase) {
        return pod.getStatus() != null && phase.equals(pod.getStatus().getPhase());
    }

    static Optional<JobCondition> condition(Job job, String type) {
        if (job.getStatus() == null || job.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return job.getStatus().getConditions().stream().filter(c -> type.equals(c.getType()) && "True".equals(c.getStatus())).findFirst();
    }

    static boolean finished(Job job) {
        return condition(job, "Complete").isPresent() || condition(job, "Failed").isPresent();
    }

    /** One Job's step: its pods are those the double listed at the start of the pass. */
    void reconcile(Job job, List<Pod> pods, Instant now) {
        if (finished(job)) {
            expire(job, pods, now);
            return;
        }
        if (Boolean.TRUE.equals(job.getSpec().getSuspend())) {
            return;
        }
        JobStatus status = job.getStatus() == null ? new JobStatus() : new JobStatusBuilder(job.getStatus()).build();
        Instant started = ApiTime.parse(status.getStartTime()).orElse(now);
        status.setStartTime(ApiTime.format(started));
        List<Pod> active = pods.stream().filter(p -> !terminal(p) && p.getMetadata().getDeletionTimestamp() == null).toList();
        List<Pod> failed = pods.stream().filter(p -> phase(p, "Failed")).toList();
        long succeeded = pods.stream().filter(p -> phase(p, "Succeeded")).count();
        int backoffLimit = Optional.ofNullable(job.getSpec().getBackoffLimit()).orElse(DEFAULT_BACKOFF_LIMIT);
        Optional<Instant> deadline = Optional.ofNullable(job.getSpec().getActiveDeadlineSeconds())
                .map(s -> started.plusMillis(Math.round(s * 1000 * behaviour.deadlineScale())));
        status.setFailed(failed.size());
        status.setSucceeded((int) succeeded);
        status.setUncountedTerminatedPods(new UncountedTerminatedPods(List.of(), List.of()));
        if (succeeded > 0) {
            finish(job, status, now, "SuccessCriteriaMet", "Complete", "CompletionsReached", "Reached expected number of succeeded pods");
            status.setCompletionTime(ApiTime.format(now));
            write(job, status);
            LOG.info("Job double: Job {} complete", name(job));
            return;
        }
        if (failed.size() > backoffLimit) {
            active.forEach(this::deletePod);
            finish(job, status, now, "FailureTarget", "Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit");
            write(job, status);
            LOG.info("Job double: Job {} failed: {} pods failed, backoffLimit {}", name(job), failed.size(), backoffLimit);
            return;
        }
        if (deadline.isPresent() && !now.isBefore(deadline.get())) {
            active.forEach(this::deletePod);
            finish(job, status, now, "FailureTarget", "Failed", "DeadlineExceeded", "Job was active longer than specified deadline");
            write(job, status);
            LOG.info("Job double: Job {} failed: past its activeDeadlineSeconds", name(job));
            return;
        }
        deadline.ifPresent(d -> passIn.accept(Duration.between(now, d)));
        int creating = 0;
        if (active.isEmpty()) {
            Instant due = lastFailure(failed).map(last -> last.plus(backoff(failed.size()))).orElse(now);
            if (now.isBefore(due)) {
                passIn.accept(Duration.between(now, due));
            } else {
                createPod(job);
                creating = 1;
            }
        }
        status.setActive(active.size() + creating);
        status.setReady((int) active.stream().filter(JobSync::ready).count());
        status.setTerminating(0);
        write(job, status);
    }

    private Duration backoff(int failures) {
        long factor = Math.min(1L << Math.min(failures - 1, 10), BACKOFF_CAP);
        return behaviour.podBackoff().multipliedBy(factor);
    }

    private static Optional<Instant> lastFailure(List<Pod> failed) {
        return failed.stream().flatMap(p -> Optional.ofNullable(p.getStatus().getContainerStatuses()).orElse(List.of()).stream())
                .map(ContainerStatus::getState).filter(s -> s != null && s.getTerminated() != null)
                .flatMap(s -> ApiTime.parse(s.getTerminated().getFinishedAt()).stream())
                .max(Instant::compareTo);
    }

    private static boolean ready(Pod pod) {
        return pod.getStatus() != null && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static void finish(Job job, JobStatus status, Instant now, String intermediate, String terminal, String reason,
            String message) {
        List<JobCondition> conditions = new ArrayList<>(Optional.ofNullable(status.getConditions()).orElse(List.of()));
        for (String type : List.of(intermediate, terminal)) {
            if (condition(job, type).isEmpty()) {
                conditions.add(new JobConditionBuilder().withType(type).withStatus("True").withReason(reason).withMessage(message)
                        .withLastProbeTime(ApiTime.format(now)).withLastTransitionTime(ApiTime.format(now)).build());
            }
        }
        status.setConditions(conditions);
        status.setActive(0);
        status.setReady(0);
        status.setTerminating(0);
    }

    private void write(Job job, JobStatus status) {
        if (!status.equals(job.getStatus())) {
            client.batch().v1().jobs().inNamespace(namespace).resource(new JobBuilder(job).withStatus(status).build()).updateStatus();
        }
    }

    /** The TTL-after-finished controller: the Job and its pods go once the TTL after its terminal condition is over. */
    private void expire(Job job, List<Pod> pods, Instant now) {
        Integer ttl = job.getSpec().getTtlSecondsAfterFinished();
        if (ttl == null) {
            return;
        }
        Instant finishedAt = condition(job, "Complete").or(() -> condition(job, "Failed"))
                .flatMap(c -> ApiTime.parse(c.getLastTransitionTime())).orElse(now);
        Instant due = finishedAt.plusMillis(Math.round(ttl * 1000 * behaviour.ttlScale()));
        if (now.isBefore(due)) {
            passIn.accept(Duration.between(now, due));
            return;
        }
        // Foreground deletion, as the TTL controller asks for: the dependents first, then the owner.
        pods.forEach(this::deletePod);
        client.batch().v1().jobs().inNamespace(namespace).withName(name(job)).delete();
        LOG.info("Job double: Job {} deleted, {} s after it finished (ttlSecondsAfterFinished)", name(job), ttl);
    }

    /** The garbage collector: a pod whose controlling Job is gone goes too. */
    void collectOrphans(List<Pod> pods, List<Job> jobs) {
        List<String> uids = jobs.stream().map(j -> j.getMetadata().getUid()).toList();
        for (Pod pod : pods) {
            if (controllerUid(pod).filter(uid -> !uids.contains(uid)).isPresent()) {
                deletePod(pod);
            }
        }
    }

    private void deletePod(Pod pod) {
        client.pods().inNamespace(namespace).withName(pod.getMetadata().getName()).delete();
    }

    /** The pod as the Job controller creates it from the template (name {@code <job>-<5 random>}); unscheduled, Pending. */
    private void createPod(Job job) {
        var template = job.getSpec().getTemplate();
        String jobName = name(job);
        String uid = job.getMetadata().getUid();
        Map<String, String> labels = new LinkedHashMap<>();
        if (template.getMetadata() != null && template.getMetadata().getLabels() != null) {
            labels.putAll(template.getMetadata().getLabels());
        }
        labels.put(CONTROLLER_UID, uid);
        labels.put(JOB_NAME, jobName);
        labels.put(LEGACY_CONTROLLER_UID, uid);
        labels.put(LEGACY_JOB_NAME, jobName);
        Map<String, String> annotations = template.getMetadata() == null || template.getMetadata().getAnnotations() == null
                ? Map.of() : template.getMetadata().getAnnotations();
        OwnerReference owner = new OwnerReferenceBuilder().withApiVersion("batch/v1").withKind("Job").withName(jobName)
                .withUid(uid).withController(true).withBlockOwnerDeletion(true).build();
        Pod pod = new PodBuilder()
                .withNewMetadata().withName(jobName + "-" + suffix()).withNamespace(namespace).withLabels(labels)
                .withAnnotations(annotations.isEmpty() ? null : new LinkedHashMap<>(annotations))
                .withOwnerReferences(owner).endMetadata()
                .withSpec(new PodSpecBuilder(template.getSpec()).build())
                .withNewStatus().withPhase("Pending").endStatus()
                .build();
        Pod created = client.pods().inNamespace(namespace).resource(pod).create();
        LOG.info("Job double: Job {} created pod {}", jobName, created.getMetadata().getName());
    }

    private String suffix() {
        StringBuilder suffix = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            suffix.append(ALPHANUMS.charAt(nextRandom.get()));
        }
        return suffix.toString();
    }

    static String name(Job job) {
        return job.getMetadata().getName();
    }
}
