package dev.nightshift.spec.model;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A {@code rollout} block as written, on the Cluster (defaults) or a WorkerPool (overrides): every
 * field optional, resolved field by field by {@link RolloutPolicy#resolve}. None of it enters a hash:
 * how a change is rolled out never changes what the nodes run.
 *
 * @param waves             cumulative shares of the pool's outdated nodes (a count or a percentage)
 * @param soak              how long a wave's nodes must be available with checks passing before the next wave
 * @param healthChecks      judged while a wave is in flight and during its soak
 * @param onFailure         Halt or Rollback
 * @param maxFailedMachines consecutive machine failures (creation, registration, in-place) that count as a failure
 * @param revisionHistoryLimit how many accepted revisions the pool's history keeps
 * @param concurrency       the Cluster's only: how many pools change at once and the cluster-wide budget
 * @param after             a WorkerPool's only: the pools of its cluster that must be current and healthy before it starts
 */
public record Rollout(
        Optional<List<IntOrPercent>> waves,
        Optional<Duration> soak,
        Optional<List<HealthCheck>> healthChecks,
        Optional<OnFailure> onFailure,
        Optional<Integer> maxFailedMachines,
        Optional<Integer> revisionHistoryLimit,
        Optional<FleetConcurrency> concurrency,
        List<String> after) {

    public static final Rollout NONE = new Rollout(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
            Optional.empty(), Optional.empty());

    public Rollout {
        waves = waves.map(List::copyOf);
        healthChecks = healthChecks.map(List::copyOf);
        after = List.copyOf(after);
    }

    /** A pool's rollout as it was before fleets: no order of its own. */
    public Rollout(Optional<List<IntOrPercent>> waves, Optional<Duration> soak, Optional<List<HealthCheck>> healthChecks,
                   Optional<OnFailure> onFailure, Optional<Integer> maxFailedMachines, Optional<Integer> revisionHistoryLimit) {
        this(waves, soak, healthChecks, onFailure, maxFailedMachines, revisionHistoryLimit, Optional.empty(), List.of());
    }
}
