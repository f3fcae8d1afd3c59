package dev.nightshift.spec.model;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;

/** One of a rollout's health checks: judged during each wave and its soak. */
public sealed interface HealthCheck {

    /** Unique within the rollout block; names the check in {@code /status}, Events and metrics. */
    String name();

    /**
     * A PromQL instant query whose single value must stay within {@code min}/{@code max} (at least
     * one written). No series, more than one, an error or an unreachable server is <em>unknown</em>.
     */
    record Prometheus(String name, String query, Optional<BigDecimal> min, Optional<BigDecimal> max) implements HealthCheck {
    }

    /**
     * Built in: the Deployments and StatefulSets whose pods the pool's drains evicted are fully
     * available again within {@code within} of the eviction.
     */
    record WorkloadsAvailable(String name, Duration within) implements HealthCheck {
    }
}
