package dev.nightshift.agent.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.ValidationStreak;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.PoolStatus;

/**
 * How a {@code Validate} step is executed: the pool's nodes and the API server are checked, and the result counts in
 * the pool's streak when the last one that counted is at least the interval old. Remembers, for one term as leader,
 * when each pool's last counted validation was made; after a restart the next one counts at once.
 */
final class Validations {

    private final Duration interval;
    private final ApiServerCheck apiServer;
    private final Map<String, Instant> lastCounted = new HashMap<>();

    /** @param interval the least time between two validations that count */
    Validations(Duration interval, ApiServerCheck apiServer) {
        this.interval = interval;
        this.apiServer = apiServer;
    }

    /** The pool's status after validating it now. */
    PoolStatus validate(DesiredPool pool, PoolStatus status, ObservedCluster observed, Instant now) {
        ValidationStreak.Check check = ValidationStreak.validate(status,
                apiServer.ready() && RolloutPlanner.healthy(pool, observed, now),
                Optional.ofNullable(lastCounted.get(pool.name())), interval, now);
        if (check.counted()) {
            lastCounted.put(pool.name(), now);
        }
        return check.status();
    }

    /** A new term as leader: another replica may have validated in between. */
    void forget() {
        lastCounted.clear();
    }
}
