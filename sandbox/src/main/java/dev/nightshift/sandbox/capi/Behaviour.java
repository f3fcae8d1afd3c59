package dev.nightshift.sandbox.capi;

import java.time.Duration;
import java.util.Objects;

/**
 * How the controller double's infrastructure behaves: its delays and its seeded fault rates.
 *
 * @param nodeJoinDelay     from a Machine's creation to its Node registering Ready
 * @param deletionDelay     from a deleted Machine's drain being done to its Node and finalizer going (the cloud
 *                          deleting the instance)
 * @param slowDeletionDelay the same for a Machine that deletes slowly (fault)
 * @param evictionRetry     wait before evicting again a pod whose eviction was refused (429)
 * @param resync            the slow periodic reconcile, besides the one after every watch event
 * @param neverJoinRate     the share of new Machines, drawn from the seeded random generator, that never get a Node
 * @param slowDeletionRate  the share of deleted Machines that take {@code slowDeletionDelay} instead of {@code deletionDelay}
 */
public record Behaviour(Duration nodeJoinDelay, Duration deletionDelay, Duration slowDeletionDelay, Duration evictionRetry,
        Duration resync, double neverJoinRate, double slowDeletionRate) {

    public Behaviour {
        Objects.requireNonNull(nodeJoinDelay, "nodeJoinDelay");
        Objects.requireNonNull(deletionDelay, "deletionDelay");
        Objects.requireNonNull(slowDeletionDelay, "slowDeletionDelay");
        Objects.requireNonNull(evictionRetry, "evictionRetry");
        Objects.requireNonNull(resync, "resync");
        if (resync.isZero() || resync.isNegative()) {
            throw new IllegalArgumentException("resync must be positive, not " + resync);
        }
        if (neverJoinRate < 0 || neverJoinRate > 1 || slowDeletionRate < 0 || slowDeletionRate > 1) {
            throw new IllegalArgumentException("fault rates are shares between 0 and 1, not " + neverJoinRate + " and " + slowDeletionRate);
        }
    }

    /** Quick and faultless: for tests (Nodes join after 200 ms, deletions take 200 ms). */
    public static Behaviour fast() {
        return new Behaviour(Duration.ofMillis(200), Duration.ofMillis(200), Duration.ofSeconds(3), Duration.ofMillis(200),
                Duration.ofSeconds(2), 0, 0);
    }

    /** Paced for people watching {@code nightshift demo}: Nodes join after 3 s, deletions take 2 s. */
    public static Behaviour demo() {
        return new Behaviour(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofSeconds(15), Duration.ofSeconds(1),
                Duration.ofSeconds(10), 0, 0);
    }

    public Behaviour withNeverJoinRate(double rate) {
        return new Behaviour(nodeJoinDelay, deletionDelay, slowDeletionDelay, evictionRetry, resync, rate, slowDeletionRate);
    }

    public Behaviour withSlowDeletionRate(double rate) {
        return new Behaviour(nodeJoinDelay, deletionDelay, slowDeletionDelay, evictionRetry, resync, neverJoinRate, rate);
    }
}
