package dev.nightshift.agent.reconcile;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.WorkerPoolSpec;

/**
 * How a run by hand ({@code nightshift rolling-update --yes}, kops' {@code rolling-update cluster}) differs from the
 * agent's reconciles. Maintenance windows are not consulted, and:
 *
 * @param force            the machines current at the first pass are updated too ({@link ForcedNodes}; kops' {@code --force})
 * @param intervals        by pool role, the least time after a machine of the pool is deleted before the pool's next batch
 *                         starts (kops' {@code --bastion-interval}, {@code --master-interval}, {@code --node-interval}): the
 *                         pool's own {@code interval} where that is longer
 * @param drainGiveUp      a node draining for this long goes on as if drained: deleted or updated with its pods still on it
 *                         ({@link IgnoredDrains}; kops' {@code --fail-on-drain-error=false} past {@code --drain-timeout});
 *                         empty: a drain ends by the pool's own rules only
 * @param validationGiveUp a pool that has failed validation for this long starts its next batch anyway
 *                         ({@link Validations#waived}; kops' {@code --fail-on-validate-error=false} past
 *                         {@code --validation-timeout}); empty: a pool waits until it validates
 */
public record HandRun(boolean force, Map<PoolRole, Duration> intervals, Optional<Duration> drainGiveUp,
                      Optional<Duration> validationGiveUp) {

    public HandRun {
        intervals = intervals.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(intervals));
    }

    /** Windows aside, nothing else changed. */
    public static final HandRun PLAIN = new HandRun(false, Map.of(), Optional.empty(), Optional.empty());

    /**
     * The pool as the run rolls it: its {@code interval} raised to its role's. Neither hash reads {@code interval}, so
     * the pool's nodes are as current as they were.
     */
    ResolvedPool paced(ResolvedPool pool) {
        Duration role = intervals.getOrDefault(pool.pool().role(), Duration.ZERO);
        WorkerPoolSpec spec = pool.pool();
        return role.compareTo(spec.interval()) <= 0 ? pool : new ResolvedPool(pool.cluster(), spec.withInterval(role));
    }
}
