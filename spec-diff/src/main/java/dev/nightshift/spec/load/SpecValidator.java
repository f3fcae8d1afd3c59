package dev.nightshift.spec.load;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.nightshift.spec.load.ParsedDocument.ClusterDocument;
import dev.nightshift.spec.load.ParsedDocument.PoolDocument;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.IntOrPercent;
import dev.nightshift.spec.model.KubernetesVersion;
import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.UpdateStrategy;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.spec.yaml.SourceMap;

/**
 * The rules that span fields or documents, checked on the resolved values (a pool's limits after
 * the cluster defaults and built-in defaults were applied).
 */
public final class SpecValidator {

    /** How many minors a pool's Kubernetes may lag its cluster's (the kubelet skew policy). */
    public static final int MAX_POOL_MINOR_SKEW = 3;

    public List<SpecError> validate(List<ParsedDocument> documents) {
        return validate(documents, java.util.Set.of());
    }

    /**
     * @param invalidClusters clusters whose documents had errors of their own: their pools are not
     *                        checked against them, and do not report them as missing
     */
    public List<SpecError> validate(List<ParsedDocument> documents, java.util.Set<String> invalidClusters) {
        List<SpecError> errors = new ArrayList<>();
        Map<String, ClusterDocument> clusters = new HashMap<>();
        for (ParsedDocument d : documents) {
            if (d instanceof ClusterDocument c) {
                ClusterDocument first = clusters.putIfAbsent(c.spec().name(), c);
                if (first != null) {
                    errors.add(at(c.sources(), "metadata.name", "duplicate Cluster \"" + c.spec().name()
                            + "\" (also in " + first.sources().document().file() + ":" + first.sources().document().line() + ")"));
                }
            }
        }
        Map<String, PoolDocument> pools = new HashMap<>();
        for (ParsedDocument d : documents) {
            if (!(d instanceof PoolDocument p)) {
                continue;
            }
            WorkerPoolSpec pool = p.spec();
            PoolDocument first = pools.putIfAbsent(pool.cluster() + "/" + pool.name(), p);
            if (first != null) {
                errors.add(at(p.sources(), "metadata.name", "duplicate WorkerPool \"" + pool.name() + "\" in cluster \""
                        + pool.cluster() + "\" (also in " + first.sources().document().file() + ":"
                        + first.sources().document().line() + ")"));
            }
            ClusterDocument cluster = clusters.get(pool.cluster());
            if (cluster == null && invalidClusters.contains(pool.cluster())) {
                continue;
            }
            if (cluster == null) {
                errors.add(at(p.sources(), "metadata.cluster", "no Cluster named \"" + pool.cluster() + "\" is defined"
                        + (clusters.isEmpty() ? "" : " (known: " + String.join(", ", new java.util.TreeSet<>(clusters.keySet())) + ")")));
                continue;
            }
            validatePool(new ResolvedPool(cluster.spec(), pool), p.sources(), errors);
        }
        validateOrder(pools, clusters.keySet(), errors);
        return errors;
    }

    /**
     * {@code rollout.after}: every pool named is of the same cluster, not the pool itself, not of a role that rolls
     * later (roles go in order, so it would wait forever), and no chain of them comes back to where it started.
     */
    private static void validateOrder(Map<String, PoolDocument> pools, java.util.Set<String> clusters, List<SpecError> errors) {
        Map<String, List<String>> edges = new java.util.TreeMap<>();
        for (PoolDocument p : new java.util.TreeMap<>(pools).values()) {
            WorkerPoolSpec pool = p.spec();
            if (!clusters.contains(pool.cluster())) {
                continue;
            }
            List<String> kept = new ArrayList<>();
            for (int i = 0; i < pool.after().size(); i++) {
                String name = pool.after().get(i);
                String path = "spec.rollout.after[" + i + "]";
                PoolDocument other = pools.get(pool.cluster() + "/" + name);
                if (name.equals(pool.name())) {
                    errors.add(at(p.sources(), path, "names the pool itself: a pool cannot start after itself"));
                } else if (other == null) {
                    errors.add(at(p.sources(), path, "no WorkerPool named \"" + name + "\" in cluster \"" + pool.cluster() + "\""
                            + known(pools, pool.cluster())));
                } else if (other.spec().role().compareTo(pool.role()) > 0) {
                    errors.add(at(p.sources(), path, "\"" + name + "\" has role " + other.spec().role() + ", which rolls after role "
                            + pool.role() + " (bastions, control planes, apiservers, nodes): " + pool.name() + " would wait forever"));
                } else {
                    kept.add(name);
                }
            }
            edges.put(pool.cluster() + "/" + pool.name(), kept);
        }
        Map<String, Integer> state = new HashMap<>();
        for (String start : edges.keySet()) {
            cycles(start, edges, state, new java.util.ArrayDeque<>(), pools, errors);
        }
    }

    /** Depth first; a pool met again while still on the path closes a cycle, reported at the {@code after} that closes it. */
    private static void cycles(String key, Map<String, List<String>> edges, Map<String, Integer> state,
                               java.util.Deque<String> path, Map<String, PoolDocument> pools, List<SpecError> errors) {
        if (state.getOrDefault(key, 0) == 2) {
            return;
        }
        state.put(key, 1);
        path.addLast(key);
        String cluster = key.substring(0, key.indexOf('/'));
        WorkerPoolSpec pool = pools.get(key).spec();
        for (String name : edges.getOrDefault(key, List.of())) {
            String next = cluster + "/" + name;
            if (state.getOrDefault(next, 0) == 1) {
                List<String> loop = new ArrayList<>();
                boolean on = false;
                for (String k : path) {
                    on |= k.equals(next);
                    if (on) {
                        loop.add(k.substring(k.indexOf('/') + 1));
                    }
                }
                loop.add(name);
                errors.add(at(pools.get(key).sources(), "spec.rollout.after[" + pool.after().indexOf(name) + "]",
                        "closes a cycle " + String.join(" -> ", loop) + ": each waits for the next, so none of them would ever start"));
            } else {
                cycles(next, edges, state, path, pools, errors);
            }
        }
        path.removeLast();
        state.put(key, 2);
    }

    private static String known(Map<String, PoolDocument> pools, String cluster) {
        java.util.Set<String> names = new java.util.TreeSet<>();
        pools.values().stream().filter(p -> p.spec().cluster().equals(cluster)).forEach(p -> names.add(p.spec().name()));
        return names.isEmpty() ? "" : " (known: " + String.join(", ", names) + ")";
    }

    private static void validatePool(ResolvedPool resolved, SourceMap sources, List<SpecError> errors) {
        WorkerPoolSpec pool = resolved.pool();
        ClusterSpec cluster = resolved.cluster();
        if (pool.minimum() > pool.maximum()) {
            errors.add(at(sources, "spec.minimum", "minimum " + pool.minimum() + " is above maximum " + pool.maximum()));
        }
        IntOrPercent surge = resolved.maxSurge();
        IntOrPercent unavailable = resolved.maxUnavailable();
        if (surge.isAbsoluteZero() && unavailable.isAbsoluteZero()) {
            errors.add(at(sources, pool.maxUnavailable().isPresent() ? "spec.maxUnavailable" : "spec.maxSurge",
                    "maxSurge and maxUnavailable resolve to 0 and 0: the pool could never be updated; allow at least one"));
        }
        if (!surge.isZero() && pool.role() == PoolRole.CONTROL_PLANE) {
            errors.add(at(sources, "spec.maxSurge", "must be 0 for role control-plane (control planes cannot surge), resolved to " + surge));
        }
        if (!surge.isZero() && pool.updateStrategy() == UpdateStrategy.ManualInPlaceUpdate) {
            errors.add(at(sources, "spec.maxSurge", "must be 0 with ManualInPlaceUpdate (only the nodes the user selects are touched), resolved to " + surge));
        }
        if (pool.updateStrategy() == UpdateStrategy.Replace
                && (pool.role() == PoolRole.CONTROL_PLANE || pool.role() == PoolRole.APISERVER)) {
            errors.add(at(sources, "spec.updateStrategy", "Replace takes every node down at once and is not allowed for role " + pool.role()));
        }
        java.util.Set<String> taintKeys = new java.util.HashSet<>();
        for (int i = 0; i < pool.taints().size(); i++) {
            var taint = pool.taints().get(i);
            if (!taintKeys.add(taint.key() + ":" + taint.effect())) {
                errors.add(at(sources, "spec.taints[" + i + "]", "duplicate taint " + taint.key() + ":" + taint.effect()
                        + " (Kubernetes allows one taint per key and effect)"));
            }
        }
        if (pool.role() == PoolRole.BASTION && pool.updateStrategy().inPlace()) {
            errors.add(at(sources, "spec.updateStrategy", pool.updateStrategy() + " is not possible for role bastion: bastions never"
                    + " register as nodes, so they cannot be drained or updated in place; use AutoRollingUpdate or Replace"));
        }
        long deadline = resolved.progressDeadline().getSeconds();
        if (deadline <= pool.minReadySeconds()) {
            errors.add(at(sources, pool.progressDeadlineSeconds() > 0 ? "spec.progressDeadlineSeconds" : "spec.minReadySeconds",
                    "progressDeadlineSeconds (" + deadline + ") must be above minReadySeconds (" + pool.minReadySeconds() + ")"));
        }
        if (pool.kubernetesVersion().isPresent()) {
            KubernetesVersion own = pool.kubernetesVersion().get();
            KubernetesVersion clusterVersion = cluster.kubernetesVersion();
            if (own.compareTo(clusterVersion) > 0) {
                errors.add(at(sources, "spec.kubernetes.version", "pool version " + own + " is newer than the cluster's "
                        + clusterVersion + " (kubelets may not be newer than the control plane)"));
            } else if (own.major() != clusterVersion.major() || clusterVersion.minorsAbove(own) > MAX_POOL_MINOR_SKEW) {
                errors.add(at(sources, "spec.kubernetes.version", "pool version " + own + " is more than " + MAX_POOL_MINOR_SKEW
                        + " minors older than the cluster's " + clusterVersion));
            }
        }
    }

    private static SpecError at(SourceMap sources, String path, String message) {
        return SpecError.at(sources.find(path), path, message);
    }
}
