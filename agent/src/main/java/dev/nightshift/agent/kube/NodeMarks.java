package dev.nightshift.agent.kube;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.model.Taint;
import dev.nightshift.spec.model.TaintEffect;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.strategies.model.BlockedEviction;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;

/**
 * The labels, annotations and taint through which Nightshift keeps its state on the nodes
 * themselves, so that a restarted or newly elected agent reads every timer and counter back; and
 * the one codec for them: every key is named here, and every value's text (instants, hash
 * versions, the JSON of eviction attempts and of the managed lists) is written and read only
 * here. Reading is lenient: a mark someone else edited into something that is not ours reads as
 * absent (or, for a hash version, as one no hash function has), never as an error that would stop
 * the agent observing the cluster.
 */
public final class NodeMarks {

    private static final ObjectMapper JSON = new ObjectMapper();

    private NodeMarks() {
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
     * When Nightshift cordoned the node, written in the same patch as {@code spec.unschedulable}: a cordon without it is
     * someone else's, which Nightshift neither counts as a disruption nor ever lifts.
     */
    public static final String CORDONED_AT = PREFIX + "cordoned-at";
    /**
     * JSON: pod name to {@code {"pdb": name, "attempts": n, "refusedAt": instant}} for evictions a
     * budget refused; the last refusal's time starts the pod's {@link dev.nightshift.strategies.EvictionBackoff}.
     */
    public static final String EVICTION_ATTEMPTS = PREFIX + "eviction-attempts";
    public static final String IN_PLACE_STARTED_AT = PREFIX + "in-place-started-at";
    public static final String IN_PLACE_TARGET = PREFIX + "in-place-target";
    public static final String IN_PLACE_FAILED = PREFIX + "in-place-failed";
    /** Why the node's update failed (the updater's termination message), beside {@link #IN_PLACE_FAILED}. */
    public static final String IN_PLACE_FAILED_REASON = PREFIX + "in-place-failed-reason";
    /** The node updater Job whose outcome the node waits for ({@code nodeUpdates.type: job}); removed once recorded. */
    public static final String UPDATE_JOB = PREFIX + "update-job";
    public static final String KUBELET_RESTART_AT = PREFIX + "kubelet-restart-at";
    /** JSON list of the label keys Nightshift set, so that only those are ever changed or removed. */
    public static final String MANAGED_LABELS = PREFIX + "managed-labels";
    /** JSON list of the spec taints Nightshift set, each as {@link Taint#toString()} writes it. */
    public static final String MANAGED_TAINTS = PREFIX + "managed-taints";
    /**
     * JSON list of the annotation keys Nightshift copied from the pool, so that only those are ever
     * changed or removed; never a key under {@value #PREFIX} (control annotations and these marks).
     */
    public static final String MANAGED_ANNOTATIONS = PREFIX + "managed-annotations";

    /** Taint on nodes selected for update: new pods prefer other nodes. */
    public static final String UPDATE_TAINT = PREFIX + "update-pending";
    /** The value and effect of {@link #UPDATE_TAINT}. */
    public static final String UPDATE_TAINT_VALUE = "true";
    public static final String UPDATE_TAINT_EFFECT = "PreferNoSchedule";

    /**
     * Taint every machine Nightshift asks a cloud for registers with (the machine API's {@code taints}, the simulated
     * cloud), taken off once Nightshift has seen the node and its machine (settle, before each plan). A machine with no
     * node is deleted or replaced without a drain; its node may register in the instant between the check and the call
     * (ProviderModelIT seed 9), and this taint keeps pods off such a node, as Cluster API's
     * {@code node.cluster.x-k8s.io/uninitialized} does for its Machines.
     */
    public static final String STARTUP_TAINT = PREFIX + "uninitialized";
    /** The value and effect of {@link #STARTUP_TAINT}. */
    public static final String STARTUP_TAINT_VALUE = "true";
    public static final String STARTUP_TAINT_EFFECT = "NoSchedule";

    /**
     * A hash version that no hash function has: what a version mark that is not a number reads as,
     * so the node counts as outdated (never as current, never as unstamped and adopted).
     */
    public static final int UNKNOWN_HASH_VERSION = 0;

    // ---- the node object --------------------------------------------------------------------

    /** A node's spec; the API may leave an empty one out, and that must read as empty, not fail. */
    public static NodeSpec spec(Node node) {
        return node.getSpec() == null ? new NodeSpec() : node.getSpec();
    }

    /** A node's taints, empty when it has none. */
    public static List<io.fabric8.kubernetes.api.model.Taint> taints(Node node) {
        return spec(node).getTaints() == null ? List.of() : spec(node).getTaints();
    }

    /** A node's annotations, empty when it has none. */
    public static Map<String, String> annotations(Node node) {
        return Optional.ofNullable(node.getMetadata().getAnnotations()).orElse(Map.of());
    }

    /** A node's labels, empty when it has none. */
    public static Map<String, String> labels(Node node) {
        return Optional.ofNullable(node.getMetadata().getLabels()).orElse(Map.of());
    }

    /** One annotation of a node; null when absent. */
    public static String annotation(Node node, String key) {
        return annotations(node).get(key);
    }

    public static boolean startupTainted(Node node) {
        return taints(node).stream().anyMatch(t -> STARTUP_TAINT.equals(t.getKey()));
    }

    public static boolean updateTainted(Node node) {
        return taints(node).stream().anyMatch(t -> UPDATE_TAINT.equals(t.getKey()));
    }

    // ---- hashes -----------------------------------------------------------------------------

    /** The four hash annotations of a node that runs these hashes. */
    public static Map<String, String> hashes(StampedHash roll, StampedHash kubelet) {
        Map<String, String> a = new HashMap<>(rollHash(roll));
        a.putAll(kubeletHash(kubelet));
        return a;
    }

    public static Map<String, String> rollHash(StampedHash roll) {
        return Map.of(ROLL_HASH, roll.value(), ROLL_HASH_VERSION, Integer.toString(roll.version()));
    }

    public static Map<String, String> kubeletHash(StampedHash kubelet) {
        return Map.of(KUBELET_HASH, kubelet.value(), KUBELET_HASH_VERSION, Integer.toString(kubelet.version()));
    }

    public static Optional<StampedHash> rollHash(Map<String, String> annotations) {
        return hash(annotations.get(ROLL_HASH), annotations.get(ROLL_HASH_VERSION));
    }

    public static Optional<StampedHash> kubeletHash(Map<String, String> annotations) {
        return hash(annotations.get(KUBELET_HASH), annotations.get(KUBELET_HASH_VERSION));
    }

    /** No value: unstamped. No version: version 1, from before versions were stamped. */
    private static Optional<StampedHash> hash(String value, String version) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        if (version == null) {
            return Optional.of(new StampedHash(1, value));
        }
        try {
            return Optional.of(new StampedHash(Integer.parseInt(version.trim()), value));
        } catch (NumberFormatException e) {
            return Optional.of(new StampedHash(UNKNOWN_HASH_VERSION, value));
        }
    }

    // ---- instants ---------------------------------------------------------------------------

    /** How Nightshift writes a time on an object. */
    public static String instant(Instant at) {
        return at.toString();
    }

    /** A time the agent wrote on an object; empty when absent or not one (someone else's edit). */
    public static Optional<Instant> instant(String text) {
        try {
            return Optional.ofNullable(text).filter(t -> !t.isBlank()).map(Instant::parse);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    // ---- eviction attempts ------------------------------------------------------------------

    /**
     * A pod whose eviction a budget refused.
     *
     * @param refusedAt the last refusal, from which the pod's backoff runs; empty when the mark did not say
     */
    public record EvictionAttempt(String disruptionBudget, int attempts, Optional<Instant> refusedAt) {

        /** The attempt after one more refusal by {@code budget} at {@code at}. */
        public EvictionAttempt refusedAgain(String budget, Instant at) {
            return new EvictionAttempt(budget, attempts + 1, Optional.of(at));
        }
    }

    /** The value of {@link #EVICTION_ATTEMPTS} for these pods; null (the mark removed) for none. */
    public static String evictionAttempts(Map<String, EvictionAttempt> byPod) {
        if (byPod.isEmpty()) {
            return null;
        }
        Map<String, Map<String, Object>> json = new TreeMap<>();
        byPod.forEach((pod, a) -> {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("pdb", a.disruptionBudget());
            entry.put("attempts", a.attempts());
            a.refusedAt().ifPresent(at -> entry.put("refusedAt", instant(at)));
            json.put(pod, entry);
        });
        return write(json);
    }

    /**
     * The pods of an {@link #EVICTION_ATTEMPTS} mark, in a map the caller may change. Not JSON, or
     * not an object: none. An entry that is not an object is skipped; a missing or broken count
     * reads as 0, a missing budget as {@code "unknown"}.
     */
    public static Map<String, EvictionAttempt> evictionAttempts(String json) {
        Map<String, EvictionAttempt> result = new LinkedHashMap<>();
        JsonNode root = tree(json);
        if (root == null || !root.isObject()) {
            return result;
        }
        root.fields().forEachRemaining(e -> {
            JsonNode v = e.getValue();
            if (v.isObject()) {
                JsonNode pdb = v.path("pdb");
                result.put(e.getKey(), new EvictionAttempt(pdb.isTextual() ? pdb.asText() : "unknown",
                        v.path("attempts").asInt(0), instant(v.path("refusedAt").isTextual() ? v.path("refusedAt").asText() : null)));
            }
        });
        return result;
    }

    /** The eviction attempts as the planner reads them. */
    public static List<BlockedEviction> blockedEvictions(String json) {
        List<BlockedEviction> result = new ArrayList<>();
        evictionAttempts(json).forEach((pod, a) -> result.add(new BlockedEviction(pod, a.disruptionBudget(), a.attempts())));
        return result;
    }

    // ---- managed labels, taints and annotations ---------------------------------------------

    /** The value of {@link #MANAGED_LABELS}: the keys, sorted. */
    public static String managedLabels(Collection<String> keys) {
        return write(keys.stream().sorted().toList());
    }

    public static List<String> managedLabelKeys(Map<String, String> annotations) {
        return list(annotations.get(MANAGED_LABELS));
    }

    /** The value of {@link #MANAGED_ANNOTATIONS}: the keys, sorted, without any under {@value #PREFIX}. */
    public static String managedAnnotations(Collection<String> keys) {
        return write(keys.stream().filter(k -> !WorkerPoolSpec.controlAnnotation(k)).sorted().toList());
    }

    /**
     * The annotation keys Nightshift copied to a node. A key under {@code nightshift.dev/} is never
     * one, whatever the list says: those are Nightshift's marks and control annotations.
     */
    public static List<String> managedAnnotationKeys(Map<String, String> annotations) {
        return list(annotations.get(MANAGED_ANNOTATIONS)).stream().filter(k -> !WorkerPoolSpec.controlAnnotation(k)).toList();
    }

    /** The value of {@link #MANAGED_TAINTS}. */
    public static String managedTaints(List<Taint> taints) {
        return write(taints.stream().map(Taint::toString).toList());
    }

    /** The taints Nightshift set; an entry that is not {@code key[=value]:Effect} is skipped. */
    public static List<Taint> managedTaints(Map<String, String> annotations) {
        List<Taint> result = new ArrayList<>();
        for (String t : list(annotations.get(MANAGED_TAINTS))) {
            taint(t).ifPresent(result::add);
        }
        return result;
    }

    /** {@code key=value:Effect} or {@code key:Effect}, as {@link Taint#toString()} writes them. */
    private static Optional<Taint> taint(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0) {
            return Optional.empty();
        }
        String keyValue = text.substring(0, colon);
        int eq = keyValue.indexOf('=');
        try {
            return Optional.of(new Taint(eq < 0 ? keyValue : keyValue.substring(0, eq), eq < 0 ? "" : keyValue.substring(eq + 1),
                    TaintEffect.valueOf(text.substring(colon + 1))));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** A JSON list of strings; not one (absent, not JSON, not a list): empty. Entries that are not strings are skipped. */
    private static List<String> list(String json) {
        JsonNode root = tree(json);
        if (root == null || !root.isArray()) {
            return List.of();
        }
        List<String> result = new ArrayList<>();
        root.forEach(e -> {
            if (e.isTextual()) {
                result.add(e.asText());
            }
        });
        return result;
    }

    private static JsonNode tree(String json) {
        if (json == null || json.isBlank()) {
            return null;
        }
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("plain lists and maps always serialise", e);
        }
    }
}
