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
     * The pool's value, else the cluster's (not for pools that cannot surge: control planes and
     * ManualInPlaceUpdate), else 1 for AutoRollingUpdate on node and apiserver pools and 0 otherwise.
     */
    public IntOrPercent maxSurge() {
        if (pool.maxSurge().isPresent()) {
            return pool.maxSurge().get();
        }
        if (canSurge() && cluster.rollingUpdate().maxSurge().isPresent()) {
            return cluster.rollingUpdate().maxSurge().get();
        }
        boolean surges = pool.updateStrategy() == UpdateStrategy.AutoRollingUpdate
                && (pool.role() == PoolRole.NODE || pool.role() == PoolRole.APISERVER);
        return IntOrPercent.of(surges ? 1 : 0);
    }

    /**
     * The pool's value, else the cluster's, else 0 when the pool surges and 1 when it does not. A
     * cluster value of 0 is not applied to a pool that cannot surge: the cluster's pair was meant
     * for pools that surge, and would leave this one unable to update at all.
     */
    public IntOrPercent maxUnavailable() {
        if (pool.maxUnavailable().isPresent()) {
            return pool.maxUnavailable().get();
        }
        return cluster.rollingUpdate().maxUnavailable()
                .filter(u -> canSurge() || !u.isZero())
                .orElseGet(() -> IntOrPercent.of(maxSurge().isZero() ? 1 : 0));
    }

    /** Control planes and ManualInPlaceUpdate pools never surge, whatever the cluster default says. */
    private boolean canSurge() {
        return pool.role() != PoolRole.CONTROL_PLANE && pool.updateStrategy() != UpdateStrategy.ManualInPlaceUpdate;
    }

    public Duration progressDeadline() {
        if (pool.progressDeadlineSeconds() > 0) {
            return Duration.ofSeconds(pool.progressDeadlineSeconds());
        }
        MachineControllerManager mcm = pool.machineControllerManager();
        return mcm.drainTimeout().plus(mcm.creationTimeout()).plus(PROGRESS_DEADLINE_SLACK);
    }
}
