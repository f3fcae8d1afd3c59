package dev.nightshift.agent.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.ValidationStreak;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.PoolStatus;

/**
 * How a {@code Validate} step is executed: the pool's nodes and the API server are checked, and the result counts in
 * the pool's streak when the last one that counted is at least the interval old. Remembers, for one term as leader,
 * when each pool's last counted validation was made; after a restart the next one counts at once.
 *
 * <p>With a give-up time ({@code rolling-update --fail-on-validate-error=false}), it also remembers since when each pool
 * has failed its checks without a pass in between, and a pool failing for that long has its validation waived until its
 * next batch starts ({@link #batchStarted}): kops goes on after a validation that timed out, once per instance.
 */
final class Validations {

    private static final Logger LOG = LoggerFactory.getLogger(Validations.class);

    private final Duration interval;
    private final ApiServerCheck apiServer;
    private final Optional<Duration> giveUp;
    private final Map<String, Instant> lastCounted = new HashMap<>();
    private final Map<String, Instant> failingSince = new HashMap<>();
    private final java.util.Set<String> logged = new java.util.HashSet<>();

    /** @param interval the least time between two validations that count */
    Validations(Duration interval, ApiServerCheck apiServer) {
        this(interval, apiServer, Optional.empty());
    }

    /** @param giveUp how long a pool fails its checks before its validation is waived; empty: never */
    Validations(Duration interval, ApiServerCheck apiServer, Optional<Duration> giveUp) {
        this.interval = interval;
        this.apiServer = apiServer;
        this.giveUp = giveUp;
    }

    /** The pool's status after validating it now. */
    PoolStatus validate(DesiredPool pool, PoolStatus status, ObservedCluster observed, Instant now) {
        boolean healthy = apiServer.ready() && RolloutPlanner.healthy(pool, observed, now);
        if (healthy) {
            failingSince.remove(pool.name());
        } else {
            failingSince.putIfAbsent(pool.name(), now);
        }
        ValidationStreak.Check check = ValidationStreak.validate(status, healthy,
                Optional.ofNullable(lastCounted.get(pool.name())), interval, now);
        if (check.counted()) {
            lastCounted.put(pool.name(), now);
        }
        return check.status();
    }

    /** The pools whose validation has failed for the give-up time without a pass or a batch since; none without one. */
    Set<String> waived(Instant now) {
        if (giveUp.isEmpty()) {
            return Set.of();
        }
        Set<String> waived = failingSince.entrySet().stream().filter(e -> !e.getValue().plus(giveUp.get()).isAfter(now))
                .map(Map.Entry::getKey).collect(Collectors.toSet());
        waived.stream().filter(logged::add).forEach(pool -> LOG.warn("pool {} has not validated for {}s, the validation timeout:"
                + " its next batch starts anyway (fail-on-validate-error=false)", pool,
                Duration.between(failingSince.get(pool), now).toSeconds()));
        return waived;
    }

    /** The pool's batch has started (a machine deleted, an update begun): its next one is validated, or waits, afresh. */
    void batchStarted(String pool) {
        failingSince.remove(pool);
        logged.remove(pool);
    }

    /** A new term as leader: another replica may have validated in between. */
    void forget() {
        lastCounted.clear();
        failingSince.clear();
        logged.clear();
    }
}
