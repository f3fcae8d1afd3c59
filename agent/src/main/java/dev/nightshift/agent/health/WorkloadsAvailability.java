package dev.nightshift.agent.health;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.spec.model.DurationText;
import dev.nightshift.spec.model.HealthCheck;
import dev.nightshift.strategies.model.HealthVerdict;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The built-in {@code workloadsAvailable} check: every Deployment and StatefulSet whose pods the
 * pool's drains evicted is fully available again (available, for a StatefulSet ready, replicas at
 * least its desired replicas) within {@code within} of its first eviction. One still short after
 * that fails the check; one still within its time does not hold the rollout back (maxUnavailable
 * and the budgets do); a workload that cannot be read is unknown. One read back is followed no
 * more, unless the read came within {@link #SETTLE} (or {@code within}, if shorter) of its last
 * eviction: then it may not count the evicted pods yet.
 */
public final class WorkloadsAvailability implements WorkloadsCheck {

    /**
     * How long after an eviction a read showing the workload whole is not taken as its return: the ReplicaSet's or
     * StatefulSet's controller has to see the eviction first. A reconcile can judge a moment after a drain pass (drain
     * passes run off its thread, and the evictions' pod events wake it): in the demo it read the Deployment 53 ms after
     * its pods were evicted, still 6/6, stopped following it, and the canary's broken workload let the next wave start.
     */
    static final Duration SETTLE = Duration.ofSeconds(5);

    /** Available and desired replicas of a workload; empty when it no longer exists. */
    @FunctionalInterface
    public interface Replicas {
        Optional<int[]> of(EvictedWorkloads.Workload workload);
    }

    private final EvictedWorkloads evicted;
    private final Replicas replicas;

    public WorkloadsAvailability(EvictedWorkloads evicted, Replicas replicas) {
        this.evicted = evicted;
        this.replicas = replicas;
    }

    /** Read from the cluster with {@code client}. */
    public static WorkloadsAvailability of(EvictedWorkloads evicted, KubernetesClient client) {
        return new WorkloadsAvailability(evicted, w -> {
            if (w.kind().equals("Deployment")) {
                Deployment d = client.apps().deployments().inNamespace(w.namespace()).withName(w.name()).get();
                return Optional.ofNullable(d).map(x -> new int[] {orZero(x.getStatus() == null ? null : x.getStatus().getAvailableReplicas()),
                        x.getSpec().getReplicas() == null ? 1 : x.getSpec().getReplicas()});
            }
            StatefulSet s = client.apps().statefulSets().inNamespace(w.namespace()).withName(w.name()).get();
            return Optional.ofNullable(s).map(x -> new int[] {orZero(x.getStatus() == null ? null : x.getStatus().getReadyReplicas()),
                    x.getSpec().getReplicas() == null ? 1 : x.getSpec().getReplicas()});
        });
    }

    private static int orZero(Integer i) {
        return i == null ? 0 : i;
    }

    @Override
    public void atRest(String pool) {
        evicted.forget(pool);
    }

    @Override
    public HealthVerdict judge(String pool, HealthCheck.WorkloadsAvailable check, Instant now) {
        for (Map.Entry<EvictedWorkloads.Workload, Instant> e : evicted.of(pool).entrySet()) {
            Optional<int[]> counts;
            try {
                counts = replicas.of(e.getKey());
            } catch (RuntimeException failure) {
                return new HealthVerdict.Unknown(check.name(), e.getKey() + " cannot be read: " + failure.getClass().getSimpleName());
            }
            if (counts.isEmpty() || counts.get()[0] >= counts.get()[1]) {
                // Within its time anyway: passing, and judged again at the next pass if read too soon to count.
                evicted.availableAt(pool, e.getKey(), now, counts.isEmpty() ? Duration.ZERO
                        : check.within().compareTo(SETTLE) < 0 ? check.within() : SETTLE);
                continue;
            }
            if (!now.isBefore(e.getValue().plus(check.within()))) {
                return new HealthVerdict.Failing(check.name(), e.getKey() + " " + counts.get()[0] + "/" + counts.get()[1] + " available after "
                        + DurationText.format(Duration.between(e.getValue(), now).withNanos(0)), "available within "
                        + DurationText.format(check.within()));
            }
        }
        return HealthVerdict.PASSING;
    }
}
