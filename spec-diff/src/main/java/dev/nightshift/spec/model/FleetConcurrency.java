package dev.nightshift.spec.model;

import java.util.Optional;

/**
 * The Cluster's {@code rollout.concurrency}: how much of the fleet may change at once.
 *
 * @param pools               pools that may take new work at once, within a role (1: one pool at a time, kops's order)
 * @param maxUnavailableNodes nodes of all managed pools that may be unavailable at once, a count (>= 1) or a
 *                            percentage of every managed node; empty: no cluster-wide limit, only each pool's own
 */
public record FleetConcurrency(int pools, Optional<IntOrPercent> maxUnavailableNodes) {

    /** Today's behaviour: one pool at a time, no cluster-wide budget. */
    public static final FleetConcurrency DEFAULT = new FleetConcurrency(1, Optional.empty());

    public FleetConcurrency {
        if (pools < 1) {
            throw new IllegalArgumentException("pools must be at least 1, got " + pools);
        }
    }

    /**
     * The cluster-wide budget resolved against the managed nodes; {@link Integer#MAX_VALUE} without one. A percentage
     * rounds down, as a pool's maxUnavailable does, but never below 1: a budget of 0 would hold every rollout and
     * repair for good, which is what {@code nightshift pause} is for.
     */
    public int resolveMaxUnavailable(int managedNodes) {
        return maxUnavailableNodes.map(m -> Math.max(1, m.resolve(managedNodes, false))).orElse(Integer.MAX_VALUE);
    }
}
