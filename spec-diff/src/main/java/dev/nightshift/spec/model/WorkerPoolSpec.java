package dev.nightshift.spec.model;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The {@code WorkerPool} document as written, defaults filled in. Values that depend on the
 * cluster (limits, Kubernetes version, kubelet) are resolved by {@link ResolvedPool}.
 */
public record WorkerPoolSpec(
        String name,
        String cluster,
        Map<String, String> annotations,
        PoolRole role,
        int minimum,
        int maximum,
        Optional<IntOrPercent> maxSurge,
        Optional<IntOrPercent> maxUnavailable,
        UpdateStrategy updateStrategy,
        Machine machine,
        Optional<Volume> volume,
        String criName,
        Optional<KubernetesVersion> kubernetesVersion,
        KubeletConfig kubelet,
        ProviderConfig providerConfig,
        Map<String, String> labels,
        List<Taint> taints,
        int minReadySeconds,
        int progressDeadlineSeconds,
        Duration interval,
        boolean drainAndTerminate,
        MachineControllerManager machineControllerManager,
        Optional<Rollout> rollout) {

    /** Annotation whose value, a token not used before, lets a new in-place change through. */
    public static final String FORCE_IN_PLACE_UPDATE = "nightshift.dev/force-in-place-update";

    public WorkerPoolSpec {
        annotations = Map.copyOf(new TreeMap<>(annotations));
        labels = Map.copyOf(new TreeMap<>(labels));
        taints = List.copyOf(taints);
    }

    /**
     * Annotation {@code "true"} (set in Git, for a security patch): the pool's pending update may run
     * outside maintenance windows. Exclusions still win.
     */
    public static final String ROLLOUT_OUTSIDE_WINDOW = "nightshift.dev/rollout-outside-window";

    public boolean rolloutOutsideWindow() {
        return "true".equals(annotations.get(ROLLOUT_OUTSIDE_WINDOW));
    }

    public Optional<String> forceInPlaceToken() {
        return Optional.ofNullable(annotations.get(FORCE_IN_PLACE_UPDATE)).filter(t -> !t.isBlank());
    }

    /**
     * The prefix of control annotations: instructions to Nightshift such as {@link #FORCE_IN_PLACE_UPDATE}
     * and {@link #ROLLOUT_OUTSIDE_WINDOW}, never copied to the nodes (where Nightshift keeps its own
     * marks under the same prefix).
     */
    public static final String CONTROL_ANNOTATION_PREFIX = "nightshift.dev/";

    public static boolean controlAnnotation(String key) {
        return key.startsWith(CONTROL_ANNOTATION_PREFIX);
    }

    /** The same pool rolled out as {@code value} says (a rollback goes back without the checks that failed). */
    public WorkerPoolSpec withRollout(Optional<Rollout> value) {
        return new WorkerPoolSpec(name, cluster, annotations, role, minimum, maximum, maxSurge, maxUnavailable, updateStrategy, machine,
                volume, criName, kubernetesVersion, kubelet, providerConfig, labels, taints, minReadySeconds, progressDeadlineSeconds,
                interval, drainAndTerminate, machineControllerManager, value);
    }

    /** The same pool with another {@code interval} (which no hash reads): how {@code rolling-update} paces a pool by its role. */
    public WorkerPoolSpec withInterval(Duration value) {
        return new WorkerPoolSpec(name, cluster, annotations, role, minimum, maximum, maxSurge, maxUnavailable, updateStrategy, machine,
                volume, criName, kubernetesVersion, kubelet, providerConfig, labels, taints, minReadySeconds, progressDeadlineSeconds,
                value, drainAndTerminate, machineControllerManager, rollout);
    }

    /** {@code rollout.after}: the pools that must be current and healthy before this one starts. */
    public List<String> after() {
        return rollout.map(Rollout::after).orElse(List.of());
    }

    /** The annotations copied to the pool's nodes: all but the control annotations. */
    public Map<String, String> nodeAnnotations() {
        Map<String, String> copied = new TreeMap<>(annotations);
        copied.keySet().removeIf(WorkerPoolSpec::controlAnnotation);
        return copied;
    }
}
