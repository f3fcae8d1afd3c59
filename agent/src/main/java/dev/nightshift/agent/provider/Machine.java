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
 */
public record Machine(String name, String pool, Instant createdAt, StampedHash rollHash, StampedHash kubeletHash,
                      Optional<String> surgeFor, boolean running, Optional<String> node, boolean deleting,
                      boolean healthCheckFailed, int removalOrder) {
}
