package dev.nightshift.agent.nodeupdate;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredPool;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;

/**
 * The node updater Job: pinned to its node by a required node affinity on {@code metadata.name}
 * (the form the DaemonSet controller uses), tolerating every taint (the node is cordoned and
 * tainted by then), privileged with the host's PID namespace and the host's {@code /} at
 * {@code /host}; {@code backoffLimit} 2, never restarted in place, finished Jobs kept at least an hour.
 * The contract with the image is its environment ({@code NIGHTSHIFT_*}) and its exit code, with a
 * failure's reason in the termination message.
 */
public final class UpdaterJobs {

    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    public static final String COMPONENT = "app.kubernetes.io/component";
    public static final String COMPONENT_VALUE = "node-updater";
    /** Label: the node, as {@link JobNames#labelValue}; the annotation of the same key has its full name. */
    public static final String NODE = NodeMarks.PREFIX + "node";
    public static final String POOL = NodeMarks.POOL;
    public static final String OPERATION = NodeMarks.PREFIX + "operation";
    /** Label: the target hash (roll hash in place, kubelet hash for a restart). */
    public static final String TARGET_HASH = NodeMarks.PREFIX + "target-hash";
    /** Annotation: the Kubernetes version of the target. */
    public static final String TARGET_VERSION = NodeMarks.PREFIX + "target-kubernetes-version";
    /** Annotation: what the node's kubelet reported when the Job was created (empty: nothing). */
    public static final String KUBELET_VERSION_BEFORE = NodeMarks.PREFIX + "kubelet-version-before";
    public static final String CONTAINER = "updater";
    public static final int BACKOFF_LIMIT = 2;
    /** Finished Jobs are kept at least this long (and at least twice the pool's healthTimeout), so the outcome is read before they go. */
    public static final Duration LEAST_TTL = Duration.ofHours(1);

    private UpdaterJobs() {
    }

    /**
     * @param kubeletVersionBefore what the node's kubelet reports now, empty when nothing
     */
    public static Job build(JobSettings settings, UpdateOperation operation, DesiredPool pool, String node,
                            String kubeletVersionBefore) {
        StampedHash target = operation == UpdateOperation.IN_PLACE ? pool.rollHash() : pool.kubeletHash();
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(MANAGED_BY, "nightshift");
        labels.put(COMPONENT, COMPONENT_VALUE);
        labels.put(NODE, JobNames.labelValue(node));
        labels.put(POOL, pool.name());
        labels.put(OPERATION, operation.value());
        labels.put(TARGET_HASH, target.value());
        Map<String, String> annotations = new LinkedHashMap<>(NodeMarks.hashes(pool.rollHash(), pool.kubeletHash()));
        annotations.put(NODE, node);
        annotations.put(TARGET_VERSION, pool.spec().fullVersion());
        annotations.put(KUBELET_VERSION_BEFORE, kubeletVersionBefore);
        Duration deadline = settings.activeDeadline().orElse(operation == UpdateOperation.IN_PLACE
                ? pool.spec().pool().machineControllerManager().inPlaceUpdateTimeout() : JobSettings.KUBELET_DEADLINE);
        Duration health = pool.spec().pool().machineControllerManager().healthTimeout();
        long ttl = Math.max(LEAST_TTL.toSeconds(), health.multipliedBy(2).toSeconds());
        List<EnvVar> env = List.of(
                env("NIGHTSHIFT_OPERATION", operation.value()),
                env("NIGHTSHIFT_NODE", node),
                env("NIGHTSHIFT_POOL", pool.name()),
                env("NIGHTSHIFT_ROLL_HASH", pool.rollHash().value()),
                env("NIGHTSHIFT_KUBELET_HASH", pool.kubeletHash().value()),
                env("NIGHTSHIFT_TARGET", UpdateTarget.json(pool.spec())));
        return new JobBuilder()
                .withNewMetadata().withName(JobNames.of(operation, node, target)).withNamespace(settings.namespace())
                .withLabels(labels).withAnnotations(annotations).endMetadata()
                .withNewSpec()
                .withBackoffLimit(BACKOFF_LIMIT)
                .withTtlSecondsAfterFinished((int) ttl)
                .withActiveDeadlineSeconds(Math.max(1, deadline.toSeconds()))
                .withNewTemplate()
                .withNewMetadata().withLabels(labels).endMetadata()
                .withNewSpec()
                .withRestartPolicy("Never")
                .withServiceAccountName(settings.serviceAccount())
                // The updater needs no API permissions: no token is mounted.
                .withAutomountServiceAccountToken(false)
                .withHostPID(true)
                .withNewAffinity().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                .addNewNodeSelectorTerm().addNewMatchField().withKey("metadata.name").withOperator("In").withValues(node)
                .endMatchField().endNodeSelectorTerm()
                .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity()
                .addNewToleration().withOperator("Exists").endToleration()
                .addNewContainer()
                .withName(CONTAINER).withImage(settings.image()).withCommand(settings.command())
                .withEnv(env)
                .withNewSecurityContext().withPrivileged(true).endSecurityContext()
                .withTerminationMessagePolicy("FallbackToLogsOnError")
                .addNewVolumeMount().withName("host").withMountPath("/host").endVolumeMount()
                .endContainer()
                .addNewVolume().withName("host").withNewHostPath().withPath("/").endHostPath().endVolume()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    private static EnvVar env(String name, String value) {
        return new EnvVar(name, value, null);
    }
}
