package dev.nightshift.agent.health;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * The Deployments and StatefulSets whose pods a pool's drains evicted, and when first: what the
 * built-in {@code workloadsAvailable} check waits for. Kept by this agent in memory, per pool; a
 * workload leaves it once judged available again. Filled by the executor's drains (any thread),
 * read by the reconcile's observe stage.
 */
public final class EvictedWorkloads {

    /** A Deployment or StatefulSet. */
    public record Workload(String namespace, String kind, String name) {

        @Override
        public String toString() {
            return namespace + "/" + kind + "/" + name;
        }
    }

    private final Map<String, Map<Workload, Instant>> byPool = new ConcurrentHashMap<>();

    /** A pod of {@code pool}'s node was evicted at {@code at}; pods of no Deployment or StatefulSet are not followed. */
    public void evicted(String pool, Pod pod, Instant at) {
        owner(pod).ifPresent(w -> byPool.computeIfAbsent(pool, p -> new ConcurrentHashMap<>()).putIfAbsent(w, at));
    }

    /** The workloads still followed for {@code pool}, with when their first pod was evicted. */
    public Map<Workload, Instant> of(String pool) {
        return Map.copyOf(byPool.getOrDefault(pool, Map.of()));
    }

    /** {@code workload} is available again: no longer followed. */
    public void available(String pool, Workload workload) {
        Optional.ofNullable(byPool.get(pool)).ifPresent(m -> m.remove(workload));
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
