package dev.nightshift.strategies.guard;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.nightshift.strategies.PoolLimits;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedNode;

/**
 * One pool's nodes as a {@link DisruptionGuard} counts them when it is made: the pool's count, limits, machines and
 * available nodes, and what the cluster's budget takes from each node (disruptions of ours under way, zones). Depends
 * on nothing but the pool's desired state, its node objects, the nodes taken as unavailable and the zones: a
 * {@link GuardMemo} keeps it for the next guard while they are the same.
 *
 * @param ours  registered nodes with a disruption of ours under way (draining, drained, updating in place, or taken as
 *              unavailable)
 * @param zoned registered nodes that are in a zone
 */
record PoolCount(int count, PoolLimits limits, int machines, int available, List<String> ours, List<Zoned> zoned) {

    /** A registered node in a zone: whether it is failing (not Ready, or with a problem condition) and ours. */
    record Zoned(String node, String zone, boolean failing, boolean ours) {
    }

    PoolCount {
        ours = List.copyOf(ours);
        zoned = List.copyOf(zoned);
    }

    static PoolCount of(DesiredPool desired, List<ObservedNode> nodes, Set<String> alsoUnavailable, boolean refills,
                        Map<String, String> zones) {
        // The live machines' names only where a surge machine may stand in for one of them.
        Set<String> partners = new HashSet<>();
        for (ObservedNode n : nodes) {
            if (!n.terminating() && n.surgeFor().isPresent()) {
                partners.add(n.surgeFor().get());
            }
        }
        Set<String> livePartners = new HashSet<>();
        if (!partners.isEmpty()) {
            for (ObservedNode n : nodes) {
                if (!n.terminating() && partners.contains(n.name())) {
                    livePartners.add(n.name());
                }
            }
        }
        int machines = 0;
        int counted = 0;
        int available = 0;
        List<String> ours = new ArrayList<>();
        List<Zoned> zoned = new ArrayList<>();
        for (ObservedNode n : nodes) {
            if (n.terminating()) {
                continue;
            }
            machines++;
            if (n.surgeFor().isEmpty() || !livePartners.contains(n.surgeFor().get())) {
                counted++;
            }
            boolean alsoDown = !alsoUnavailable.isEmpty() && alsoUnavailable.contains(n.name());
            if (DisruptionGuard.available(n) && !alsoDown) {
                available++;
            }
            if (!n.registered()) {
                continue;
            }
            boolean mine = n.drainStartedAt().isPresent() || n.drained() || n.inPlaceStartedAt().isPresent() || alsoDown;
            if (mine) {
                ours.add(n.name());
            }
            String zone = zones.isEmpty() ? null : zones.get(n.name());
            if (zone != null) {
                zoned.add(new Zoned(n.name(), zone, !n.ready() || !DisruptionGuard.healthy(n), mine));
            }
        }
        // A pool Nightshift refills is promised its minimum: machines it lost behind Nightshift's back are capacity
        // owed, not a smaller pool (the floor stays where the minimum puts it; the refill fits under the ceiling).
        int count = refills ? Math.max(counted, desired.spec().pool().minimum()) : counted;
        return new PoolCount(count, PoolLimits.of(desired.spec(), count), machines, available, ours, zoned);
    }
}
