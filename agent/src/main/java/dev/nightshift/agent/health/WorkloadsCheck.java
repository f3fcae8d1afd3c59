package dev.nightshift.agent.health;

import java.time.Instant;

import dev.nightshift.spec.model.HealthCheck;
import dev.nightshift.strategies.model.HealthVerdict;

/** The built-in {@code workloadsAvailable} check for one pool. */
@FunctionalInterface
public interface WorkloadsCheck {

    HealthVerdict judge(String pool, HealthCheck.WorkloadsAvailable check, Instant now);

    /** The pool is at rest (nothing outdated, no rollout recorded): what it followed is over. */
    default void atRest(String pool) {
    }

    /** Nothing tracks evicted workloads: unknown, never passing. */
    WorkloadsCheck NONE = (pool, check, now) -> new HealthVerdict.Unknown(check.name(),
            "evicted workloads are not tracked by this agent");
}
