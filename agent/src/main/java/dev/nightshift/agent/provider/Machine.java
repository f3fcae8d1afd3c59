package dev.nightshift.agent.provider;

import java.time.Instant;
import java.util.Optional;

import dev.nightshift.spec.hash.StampedHash;

/**
 * A machine as its provider reports it.
 *
 * @param name              the provider's name for it (a Cluster API Machine's name; the simulator's node name)
 * @param rollHash          the roll hash it was created or stamped with; null when none
 * @param kubeletHash       the kubelet hash it was created or stamped with; null when none
 * @param surgeFor          the old node it was created to stand in for
 * @param running           the provider reports it up (for bastions, which never register as nodes)
 * @param node              the Kubernetes node it registered as, once the provider knows it
 * @param deleting          its deletion has started (it still counts until it is gone)
 * @param healthCheckFailed the provider's own health check judged it unhealthy (Cluster API's
 *                          MachineHealthCheck: {@code HealthCheckSucceeded=False}); it is unavailable
 * @param removalOrder      the order in which the provider lets old machines leave a pool when it
 *                          shrinks: lower first (Cluster API: the oldest old MachineSet first); 0
 *                          where any order will do
 * @param leaving           the provider holds one machine more than the pool's size and this one is to leave, drained,
 *                          in favour of the surge machine that stands in for it, though it is at the desired spec
 *                          (Cluster API: a stand-in whose partner was lost behind Nightshift's back, when no outdated
 *                          Machine is left to give it to); read as marked {@code needs-update}
 */
public record Machine(String name, String pool, Instant createdAt, StampedHash rollHash, StampedHash kubeletHash,
                      Optional<String> surgeFor, boolean running, Optional<String> node, boolean deleting,
                      boolean healthCheckFailed, int removalOrder, boolean leaving) {

    /** A machine that stays unless Nightshift's plan replaces it: what every provider but Cluster API reports. */
    public Machine(String name, String pool, Instant createdAt, StampedHash rollHash, StampedHash kubeletHash,
                   Optional<String> surgeFor, boolean running, Optional<String> node, boolean deleting,
                   boolean healthCheckFailed, int removalOrder) {
        this(name, pool, createdAt, rollHash, kubeletHash, surgeFor, running, node, deleting, healthCheckFailed, removalOrder, false);
    }
}
