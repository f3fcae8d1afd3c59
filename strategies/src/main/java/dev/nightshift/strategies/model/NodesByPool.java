package dev.nightshift.strategies.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A cluster's nodes by pool, each pool's in the order observed, picked out in one walk of the cluster's: a fleet has
 * hundreds of pools and thousands of nodes. A pool whose nodes come as one run (nodes in name order, pools' names
 * their prefixes) gets a view of the observed list, not a copy: the lists are not to be changed, nor the observed
 * list while they are used (an {@link ObservedCluster}'s is immutable).
 *
 * <p>An instance remembers its previous walk, for a caller that groups mostly the same nodes of the same pools again
 * and again (the fleet simulator, whose planner and guard share one): a node observed again as the same object, at the
 * same position or one off (after a node arrived or left before it), is not read again, its pool being the one it had;
 * the pools' names are read once for the same list of pools, and the same immutable list of nodes is not walked again.
 * Only a cache: the grouping is the one made without it. One caller at a time.
 */
public final class NodesByPool {

    private List<DesiredPool> pools;
    private Map<String, Integer> positions;
    /** The nodes of the previous walk (immutable), each one's pool, and the grouping made of them. */
    private List<ObservedNode> before = List.of();
    private int[] poolsBefore = new int[0];
    private List<List<ObservedNode>> grouped;
    private int[] spare = new int[0];

    /** Each of {@code pools}' nodes, by the pool's position in {@code pools} (empty for a pool without nodes); others' left out. */
    public static List<List<ObservedNode>> of(List<DesiredPool> pools, List<ObservedNode> nodes) {
        return group(pools, positions(pools), nodes, null);
    }

    /** {@link #of}, the nodes of the previous call not read again. */
    public List<List<ObservedNode>> group(List<DesiredPool> pools, List<ObservedNode> nodes) {
        if (pools != this.pools) {
            this.pools = pools;
            this.positions = positions(pools);
            // Positions are of the previous pools: nothing of the previous walk holds.
            this.before = List.of();
            this.poolsBefore = new int[0];
            this.grouped = null;
        }
        // An immutable list is its own copy: the same list of the same nodes is grouped as it was.
        List<ObservedNode> snapshot = List.copyOf(nodes);
        if (snapshot == before && grouped != null) {
            return grouped;
        }
        grouped = group(pools, positions, snapshot, this);
        return grouped;
    }

    private static Map<String, Integer> positions(List<DesiredPool> pools) {
        Map<String, Integer> positions = new HashMap<>(pools.size() * 2);
        for (int i = 0; i < pools.size(); i++) {
            positions.putIfAbsent(pools.get(i).name(), i);
        }
        return positions;
    }

    /** A pool not among those grouped for. */
    private static final int NONE = -1;

    private static List<List<ObservedNode>> group(List<DesiredPool> pools, Map<String, Integer> positions, List<ObservedNode> nodes,
                                                  NodesByPool memo) {
        int size = nodes.size();
        // Per pool, runs of positions in the observed list: from, to (exclusive), from, to…
        int[][] runs = new int[pools.size()][];
        int[] runCount = new int[pools.size()];
        List<ObservedNode> before = memo == null ? null : memo.before;
        int beforeSize = memo == null ? 0 : before.size();
        // The previous walk's array is the next one's: no new array of thousands of nodes for every walk.
        int[] poolsNow = memo == null ? null : memo.spare.length == size ? memo.spare : new int[size];
        int j = 0;
        String last = null;
        int current = NONE;
        int runStart = 0;
        for (int i = 0; i < size; i++) {
            int pool = NONE;
            boolean known = false;
            ObservedNode n = nodes.get(i);
            if (memo != null) {
                if (j < beforeSize && before.get(j) == n) {
                    pool = memo.poolsBefore[j++];
                    known = true;
                } else if (j + 1 < beforeSize && before.get(j + 1) == n) {
                    // The previous walk's node at j is gone.
                    pool = memo.poolsBefore[j + 1];
                    j += 2;
                    known = true;
                } else {
                    // A node that arrived leaves j where it is (the next node may be j's); a changed one replaces j's.
                    boolean arrived = i + 1 < size && j < beforeSize && nodes.get(i + 1) == before.get(j);
                    if (!arrived) {
                        j++;
                    }
                }
            }
            if (!known) {
                String name = n.pool();
                if (i > 0 && Objects.equals(name, last)) {
                    pool = current;
                } else {
                    Integer at = positions.get(name);
                    pool = at == null ? NONE : at;
                }
                last = name;
            } else {
                last = null;
            }
            if (memo != null) {
                poolsNow[i] = pool;
            }
            if (i == 0 || pool != current) {
                if (i > 0) {
                    addRun(runs, runCount, current, runStart, i);
                }
                current = pool;
                runStart = i;
            }
        }
        if (size > 0) {
            addRun(runs, runCount, current, runStart, size);
        }
        if (memo != null) {
            memo.spare = memo.poolsBefore;
            memo.before = nodes;
            memo.poolsBefore = poolsNow;
        }
        List<List<ObservedNode>> byPool = new ArrayList<>(pools.size());
        for (int p = 0; p < pools.size(); p++) {
            byPool.add(nodesOf(nodes, runs[p], runCount[p]));
        }
        return Collections.unmodifiableList(byPool);
    }

    private static void addRun(int[][] runs, int[] runCount, int pool, int from, int to) {
        if (pool == NONE) {
            return;
        }
        int[] r = runs[pool];
        int count = runCount[pool];
        if (r == null) {
            r = runs[pool] = new int[2];
        } else if (count == r.length) {
            r = runs[pool] = Arrays.copyOf(r, count * 2);
        }
        r[count] = from;
        r[count + 1] = to;
        runCount[pool] = count + 2;
    }

    private static List<ObservedNode> nodesOf(List<ObservedNode> nodes, int[] runs, int count) {
        if (count == 0) {
            return List.of();
        }
        if (count == 2) {
            return nodes.subList(runs[0], runs[1]);
        }
        List<ObservedNode> all = new ArrayList<>();
        for (int i = 0; i < count; i += 2) {
            all.addAll(nodes.subList(runs[i], runs[i + 1]));
        }
        return Collections.unmodifiableList(all);
    }
}
