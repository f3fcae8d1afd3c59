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
        MachineControllerManager machineControllerManager) {

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
}
