package dev.nightshift.strategies.guard;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.NodesByPool;
import dev.nightshift.strategies.model.ObservedNode;

/**
 * What a {@link DisruptionGuard} counted of each pool, for a caller that makes guards again and again over mostly the
 * same nodes (the fleet simulator, a guard per plan of hundreds of pools): a pool observed again as the same node
 * objects, in the same order, with the same desired state (the same object), nodes taken as unavailable and zones is
 * not counted again. Only a cache: a guard made with it judges as one made without it. One caller at a time.
 */
public final class GuardMemo {

    private final Map<String, Kept> pools = new HashMap<>();
    private final NodesByPool nodesByPool;

    public GuardMemo() {
        this(new NodesByPool());
    }

    /** With the grouping of nodes by pool shared with another caller that groups the same observations (the planner's memo). */
    public GuardMemo(NodesByPool nodesByPool) {
        this.nodesByPool = nodesByPool;
    }

    private record Kept(DesiredPool desired, ObservedNode[] nodes, Set<String> alsoUnavailable, boolean refills,
                        Map<String, String> zones, PoolCount count) {
    }

    /** The cluster's nodes by pool, remembered from the previous guard. */
    NodesByPool nodesByPool() {
        return nodesByPool;
    }

    PoolCount count(DesiredPool desired, List<ObservedNode> nodes, Set<String> alsoUnavailable, boolean refills,
                    Map<String, String> zones) {
        Kept kept = pools.get(desired.name());
        if (kept != null && kept.desired() == desired && kept.refills() == refills && kept.zones() == zones
                && kept.alsoUnavailable().equals(alsoUnavailable) && same(kept.nodes(), nodes)) {
            return kept.count();
        }
        PoolCount count = PoolCount.of(desired, nodes, alsoUnavailable, refills, zones);
        pools.put(desired.name(), new Kept(desired, nodes.toArray(new ObservedNode[0]), Set.copyOf(alsoUnavailable), refills, zones,
                count));
        return count;
    }

    private static boolean same(ObservedNode[] before, List<ObservedNode> now) {
        if (before.length != now.size()) {
            return false;
        }
        for (int i = 0; i < before.length; i++) {
            if (before[i] != now.get(i)) {
                return false;
            }
        }
        return true;
    }
}
