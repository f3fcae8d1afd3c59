package dev.nightshift.spec.model;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A pool's rollout with the cluster's defaults and the built-in ones applied, field by field.
 * The built-in default is today's canary: one node, then the rest, no soak, no checks, and no limit
 * on failed machines (so that a spec without {@code rollout} behaves exactly as before).
 *
 * @param maxFailedMachines 0 when unlimited
 */
public record RolloutPolicy(
        List<IntOrPercent> waves,
        Duration soak,
        List<HealthCheck> healthChecks,
        OnFailure onFailure,
        int maxFailedMachines,
        int revisionHistoryLimit) {

    public static final List<IntOrPercent> DEFAULT_WAVES = List.of(IntOrPercent.of(1), IntOrPercent.percentOf(100));
    public static final int DEFAULT_REVISION_HISTORY_LIMIT = 10;
    public static final RolloutPolicy DEFAULT = new RolloutPolicy(DEFAULT_WAVES, Duration.ZERO, List.of(), OnFailure.Halt, 0,
            DEFAULT_REVISION_HISTORY_LIMIT);

    public RolloutPolicy {
        waves = List.copyOf(waves);
        healthChecks = List.copyOf(healthChecks);
    }

    /** The pool's field where written, else the cluster's, else the default. */
    public static RolloutPolicy resolve(Optional<Rollout> cluster, Optional<Rollout> pool) {
        Rollout c = cluster.orElse(Rollout.NONE);
        Rollout p = pool.orElse(Rollout.NONE);
        return new RolloutPolicy(
                p.waves().or(c::waves).orElse(DEFAULT_WAVES),
                p.soak().or(c::soak).orElse(Duration.ZERO),
                p.healthChecks().or(c::healthChecks).orElse(List.of()),
                p.onFailure().or(c::onFailure).orElse(OnFailure.Halt),
                p.maxFailedMachines().or(c::maxFailedMachines).orElse(0),
                p.revisionHistoryLimit().or(c::revisionHistoryLimit).orElse(DEFAULT_REVISION_HISTORY_LIMIT));
    }

    /** Whether this is today's behaviour: the canary, then everything; nothing judged, nothing limited. */
    public boolean isDefault() {
        return equals(DEFAULT);
    }

    /** Rolled otherwise than today's canary: other waves, a soak or health checks. */
    public boolean inWaves() {
        return !waves.equals(DEFAULT_WAVES) || !soak.isZero() || !healthChecks.isEmpty();
    }

    /** "4 waves, 3 soaks of 10m": how plan, diff and the ETA describe it. */
    public String describe() {
        int soaks = soak.isZero() ? 0 : waves.size() - 1;
        return waves.size() + (waves.size() == 1 ? " wave" : " waves")
                + (soaks == 0 ? "" : ", " + soaks + (soaks == 1 ? " soak" : " soaks") + " of " + DurationText.format(soak));
    }
}
