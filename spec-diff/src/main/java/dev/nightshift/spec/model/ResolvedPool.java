package dev.nightshift.spec.model;

import java.time.Duration;

/**
 * A pool with everything it inherits from its cluster resolved: the values the hashes, the
 * validation and the planner work with.
 */
public record ResolvedPool(ClusterSpec cluster, WorkerPoolSpec pool) {

    /** Added to drainTimeout + creationTimeout when progressDeadlineSeconds is left at 0. */
    public static final Duration PROGRESS_DEADLINE_SLACK = Duration.ofMinutes(5);

    public String name() {
        return pool.name();
    }

    public KubernetesVersion kubernetesVersion() {
        return pool.kubernetesVersion().orElse(cluster.kubernetesVersion());
    }

    public KubeletConfig kubelet() {
        return cluster.kubelet().overriddenBy(pool.kubelet());
    }

    /**
     * The pool's value, else the cluster's (never applied to control planes, which cannot surge),
     * else 1 for AutoRollingUpdate on node and apiserver pools and 0 otherwise.
     */
    public IntOrPercent maxSurge() {
        if (pool.maxSurge().isPresent()) {
            return pool.maxSurge().get();
        }
        if (pool.role() != PoolRole.CONTROL_PLANE && cluster.rollingUpdate().maxSurge().isPresent()) {
            return cluster.rollingUpdate().maxSurge().get();
        }
        boolean surges = pool.updateStrategy() == UpdateStrategy.AutoRollingUpdate
                && (pool.role() == PoolRole.NODE || pool.role() == PoolRole.APISERVER);
        return IntOrPercent.of(surges ? 1 : 0);
    }

    /** The pool's value, else the cluster's, else 0 when the pool surges and 1 when it does not. */
    public IntOrPercent maxUnavailable() {
        return pool.maxUnavailable()
                .or(() -> cluster.rollingUpdate().maxUnavailable())
                .orElseGet(() -> IntOrPercent.of(maxSurge().isZero() ? 1 : 0));
    }

    public Duration progressDeadline() {
        if (pool.progressDeadlineSeconds() > 0) {
            return Duration.ofSeconds(pool.progressDeadlineSeconds());
        }
        MachineControllerManager mcm = pool.machineControllerManager();
        return mcm.drainTimeout().plus(mcm.creationTimeout()).plus(PROGRESS_DEADLINE_SLACK);
    }
}
