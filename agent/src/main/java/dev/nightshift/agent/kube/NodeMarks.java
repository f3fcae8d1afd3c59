package dev.nightshift.agent.kube;

/**
 * The labels, annotations and taint through which Nightshift keeps its state on the nodes
 * themselves, so that a restarted or newly elected agent reads every timer and counter back.
 */
public final class NodeMarks {

    private NodeMarks() {
    }

    /** A node's spec; the API may leave an empty one out, and that must read as empty, not fail. */
    public static io.fabric8.kubernetes.api.model.NodeSpec spec(io.fabric8.kubernetes.api.model.Node node) {
        return node.getSpec() == null ? new io.fabric8.kubernetes.api.model.NodeSpec() : node.getSpec();
    }

    /** A node's taints, empty when it has none. */
    public static java.util.List<io.fabric8.kubernetes.api.model.Taint> taints(io.fabric8.kubernetes.api.model.Node node) {
        return spec(node).getTaints() == null ? java.util.List.of() : spec(node).getTaints();
    }

    public static final String PREFIX = "nightshift.dev/";

    /** Label: the pool a node belongs to. */
    public static final String POOL = PREFIX + "pool";
    /** Label set by users (or tooling) to have a node replaced even though its spec is current. */
    public static final String NEEDS_UPDATE = PREFIX + "needs-update";
    public static final String CANDIDATE_FOR_UPDATE = "node.nightshift.dev/candidate-for-update";
    public static final String SELECTED_FOR_UPDATE = "node.nightshift.dev/selected-for-update";

    public static final String ROLL_HASH = PREFIX + "roll-hash";
    public static final String ROLL_HASH_VERSION = PREFIX + "roll-hash-version";
    public static final String KUBELET_HASH = PREFIX + "kubelet-hash";
    public static final String KUBELET_HASH_VERSION = PREFIX + "kubelet-hash-version";
    /** The old node a surge machine stands in for. */
    public static final String SURGE_FOR = PREFIX + "surge-for";
    public static final String DRAIN_STARTED_AT = PREFIX + "drain-started-at";
    /**
     * JSON: pod name to {@code {"pdb": name, "attempts": n, "refusedAt": instant}} for evictions a
     * budget refused; the last refusal's time starts the pod's {@link dev.nightshift.strategies.EvictionBackoff}.
     */
    public static final String EVICTION_ATTEMPTS = PREFIX + "eviction-attempts";
    public static final String IN_PLACE_STARTED_AT = PREFIX + "in-place-started-at";
    public static final String IN_PLACE_TARGET = PREFIX + "in-place-target";
    public static final String IN_PLACE_FAILED = PREFIX + "in-place-failed";
    public static final String KUBELET_RESTART_AT = PREFIX + "kubelet-restart-at";
    /** JSON list of the label keys Nightshift set, so that only those are ever changed or removed. */
    public static final String MANAGED_LABELS = PREFIX + "managed-labels";
    /** JSON list of the spec taints Nightshift set. */
    public static final String MANAGED_TAINTS = PREFIX + "managed-taints";
    /**
     * JSON list of the annotation keys Nightshift copied from the pool, so that only those are ever
     * changed or removed; never a key under {@value #PREFIX} (control annotations and these marks).
     */
    public static final String MANAGED_ANNOTATIONS = PREFIX + "managed-annotations";

    /** Taint on nodes selected for update: new pods prefer other nodes. */
    public static final String UPDATE_TAINT = PREFIX + "update-pending";
}
