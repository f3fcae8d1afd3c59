package dev.nightshift.spec.model;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A pool with everything it inherits from its cluster resolved: the values the hashes, the
 * validation and the planner work with. Resolved once, when it is built: hashing a pool on every
 * reconcile then reads fields and never re-derives them.
 */
public final class ResolvedPool {

    /** Added to drainTimeout + creationTimeout when progressDeadlineSeconds is left at 0. */
    public static final Duration PROGRESS_DEADLINE_SLACK = Duration.ofMinutes(5);

    private final ClusterSpec cluster;
    private final WorkerPoolSpec pool;
    private final KubernetesVersion kubernetesVersion;
    private final String minorVersion;
    private final String fullVersion;
    private final KubeletConfig kubelet;
    private final Optional<Instant> certificateAuthoritiesRotation;
    private final Optional<Instant> serviceAccountKeyRotation;
    private final String canonicalCertificateAuthoritiesRotation;
    private final String canonicalServiceAccountKeyRotation;
    private final RolloutPolicy rollout;

    public ResolvedPool(ClusterSpec cluster, WorkerPoolSpec pool) {
        this.cluster = cluster;
        this.pool = pool;
        this.kubernetesVersion = pool.kubernetesVersion().orElse(cluster.kubernetesVersion());
        this.minorVersion = kubernetesVersion.minorVersion();
        this.fullVersion = kubernetesVersion.toString();
        this.kubelet = cluster.kubelet().overriddenBy(pool.kubelet());
        this.certificateAuthoritiesRotation = CredentialsRotation.initiationFor(cluster.certificateAuthorities(), pool.name());
        this.serviceAccountKeyRotation = CredentialsRotation.initiationFor(cluster.serviceAccountKey(), pool.name());
        this.canonicalCertificateAuthoritiesRotation = canonical(certificateAuthoritiesRotation);
        this.canonicalServiceAccountKeyRotation = canonical(serviceAccountKeyRotation);
        this.rollout = RolloutPolicy.resolve(cluster.rollout(), pool.rollout());
    }

    /** Epoch seconds and nanos: the same instant in fewer steps than ISO text; empty when none. */
    private static String canonical(Optional<Instant> time) {
        return time.map(t -> t.getEpochSecond() + "." + t.getNano()).orElse("");
    }

    public ClusterSpec cluster() {
        return cluster;
    }

    public WorkerPoolSpec pool() {
        return pool;
    }

    public String name() {
        return pool.name();
    }

    public KubernetesVersion kubernetesVersion() {
        return kubernetesVersion;
    }

    /** {@code MAJOR.MINOR} of {@link #kubernetesVersion()}. */
    public String minorVersion() {
        return minorVersion;
    }

    /** {@code MAJOR.MINOR.PATCH} of {@link #kubernetesVersion()}. */
    public String fullVersion() {
        return fullVersion;
    }

    /** Waves, soak, checks and what to do on failure: the pool's fields, else the cluster's, else today's canary. */
    public RolloutPolicy rollout() {
        return rollout;
    }

    public KubeletConfig kubelet() {
        return kubelet;
    }

    /** When the CA rotation that applies to this pool started (its own entry in pendingWorkersRollouts, if any). */
    public Optional<Instant> certificateAuthoritiesRotation() {
        return certificateAuthoritiesRotation;
    }

    public Optional<Instant> serviceAccountKeyRotation() {
        return serviceAccountKeyRotation;
    }

    public String canonicalCertificateAuthoritiesRotation() {
        return canonicalCertificateAuthoritiesRotation;
    }

    public String canonicalServiceAccountKeyRotation() {
        return canonicalServiceAccountKeyRotation;
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

    /**
     * Gardener's {@code machineControllerManager.disableHealthTimeout}: with true, unhealthy nodes
     * are reported and never marked failed or replaced. Defaults to true for the in-place
     * strategies (their machines are kept, not replaced) and false otherwise.
     */
    public boolean disableHealthTimeout() {
        return pool.machineControllerManager().disableHealthTimeout().orElse(pool.updateStrategy().inPlace());
    }

    public Duration progressDeadline() {
        if (pool.progressDeadlineSeconds() > 0) {
            return Duration.ofSeconds(pool.progressDeadlineSeconds());
        }
        MachineControllerManager mcm = pool.machineControllerManager();
        return mcm.drainTimeout().plus(mcm.creationTimeout()).plus(PROGRESS_DEADLINE_SLACK);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ResolvedPool r && r.cluster.equals(cluster) && r.pool.equals(pool);
    }

    @Override
    public int hashCode() {
        return Objects.hash(cluster, pool);
    }

    @Override
    public String toString() {
        return "ResolvedPool[" + cluster.name() + "/" + pool.name() + "]";
    }
}
