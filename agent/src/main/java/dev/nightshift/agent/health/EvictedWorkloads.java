package dev.nightshift.agent.health;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * The Deployments and StatefulSets whose pods a pool's drains evicted, and when first: what the
 * built-in {@code workloadsAvailable} check waits for. Held in memory, per pool, and kept in the
 * pool's record (data key {@code evictedWorkloads}, {@link #json}) at every pass, from which a
 * restarted agent or a new leader takes them up again ({@link #restore}): a workload that never came
 * back still fails the check after a restart, and {@code /status} still names it. A workload leaves
 * once judged available again, by a read that came late enough after its last eviction to count it
 * ({@link #availableAt}); a pool at rest forgets them all (a later rollout starts afresh).
 * Filled by the executor's drains (any thread), read by the reconcile's observe stage.
 */
public final class EvictedWorkloads {

    /** A Deployment or StatefulSet. */
    public record Workload(String namespace, String kind, String name) {

        @Override
        public String toString() {
            return namespace + "/" + kind + "/" + name;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Each followed workload's first eviction: what the check's time runs from, and what the record keeps. */
    private final Map<String, Map<Workload, Instant>> byPool = new ConcurrentHashMap<>();
    /** Each followed workload's last eviction, in memory only (a workload restored from a record: its first). */
    private final Map<String, Map<Workload, Instant>> lastByPool = new ConcurrentHashMap<>();

    /** A pod of {@code pool}'s node was evicted at {@code at}; pods of no Deployment or StatefulSet are not followed. */
    public void evicted(String pool, Pod pod, Instant at) {
        owner(pod).ifPresent(w -> {
            // The last first: a reader that sees the workload followed also sees how recently it was evicted.
            lastByPool.computeIfAbsent(pool, p -> new ConcurrentHashMap<>()).merge(w, at, (a, b) -> a.isAfter(b) ? a : b);
            byPool.computeIfAbsent(pool, p -> new ConcurrentHashMap<>()).putIfAbsent(w, at);
        });
    }

    /** The workloads still followed for {@code pool}, with when their first pod was evicted. */
    public Map<Workload, Instant> of(String pool) {
        return Map.copyOf(byPool.getOrDefault(pool, Map.of()));
    }

    /**
     * {@code workload} was read fully available (or gone) at {@code readAt}: no longer followed, unless one of its pods
     * was evicted less than {@code settle} before. Its controller counts an evicted pod only once it has seen the
     * eviction; a read a moment after it can still show the workload whole, and following it no further would let a
     * workload that never comes back pass the check.
     */
    public void availableAt(String pool, Workload workload, Instant readAt, Duration settle) {
        // Atomically with an eviction a drain pass records meanwhile on its own thread.
        Optional.ofNullable(byPool.get(pool)).ifPresent(first -> first.computeIfPresent(workload, (w, at) -> {
            Instant last = Optional.ofNullable(lastByPool.get(pool)).map(m -> m.get(w)).filter(l -> l.isAfter(at)).orElse(at);
            if (readAt.isBefore(last.plus(settle))) {
                return at;
            }
            Optional.ofNullable(lastByPool.get(pool)).ifPresent(m -> m.remove(w));
            return null;
        }));
    }

    /** The pool is at rest (nothing outdated, no rollout recorded): nothing of it is followed any more. */
    public void forget(String pool) {
        byPool.remove(pool);
        lastByPool.remove(pool);
    }

    /**
     * What the pools' records say, at the start of a term as leader: replaces what this replica held (a term
     * before may have ended long ago, and another leader kept the records since).
     */
    public void restore(Map<String, Map<Workload, Instant>> recorded) {
        byPool.clear();
        lastByPool.clear();
        recorded.forEach((pool, workloads) -> {
            if (!workloads.isEmpty()) {
                byPool.put(pool, new ConcurrentHashMap<>(workloads));
            }
        });
    }

    /** {@code [{"namespace", "kind", "name", "evictedAt"}]}, oldest eviction first: the record's form. */
    public static String json(Map<Workload, Instant> workloads) {
        return array(workloads).toString();
    }

    /** As {@link #json}, for {@code /status}. */
    public static ArrayNode array(Map<Workload, Instant> workloads) {
        ArrayNode a = JSON.createArrayNode();
        workloads.entrySet().stream().sorted(Map.Entry.<Workload, Instant>comparingByValue().thenComparing(e -> e.getKey().toString()))
                .forEach(e -> a.addObject().put("namespace", e.getKey().namespace()).put("kind", e.getKey().kind())
                        .put("name", e.getKey().name()).put("evictedAt", e.getValue().toString()));
        return a;
    }

    /** The record's workloads; none when absent or unreadable (a record edited by hand must not stop the agent). */
    public static Map<Workload, Instant> read(String json) {
        if (json == null || json.isBlank()) {
            return Map.of();
        }
        try {
            Map<Workload, Instant> workloads = new LinkedHashMap<>();
            for (JsonNode o : JSON.readTree(json)) {
                workloads.put(new Workload(o.path("namespace").asText(), o.path("kind").asText(), o.path("name").asText()),
                        Instant.parse(o.path("evictedAt").asText()));
            }
            return workloads;
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
    }

    /**
     * The pod's Deployment (its ReplicaSet's name less the pod's {@code pod-template-hash}, as the
     * Deployment controller names them) or StatefulSet.
     */
    static Optional<Workload> owner(Pod pod) {
        List<OwnerReference> owners = pod.getMetadata().getOwnerReferences() == null ? List.of()
                : new ArrayList<>(pod.getMetadata().getOwnerReferences());
        String namespace = pod.getMetadata().getNamespace();
        for (OwnerReference o : owners) {
            if ("StatefulSet".equals(o.getKind())) {
                return Optional.of(new Workload(namespace, "StatefulSet", o.getName()));
            }
            String hash = pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get("pod-template-hash");
            if ("ReplicaSet".equals(o.getKind()) && hash != null && o.getName().endsWith("-" + hash)) {
                return Optional.of(new Workload(namespace, "Deployment", o.getName().substring(0, o.getName().length() - hash.length() - 1)));
            }
        }
        return Optional.empty();
    }
}
