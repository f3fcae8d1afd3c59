package dev.nightshift.strategies.sim;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.nightshift.strategies.model.ObservedNode;

/**
 * The simulated fleet's machines: by name, by pool, and as one list in name order, the planner's observation. A fleet
 * of 5,000 machines is observed after every plan, and most plans change a few machines of one pool: each pool's list
 * is made again only after a change in the pool, and the observation is the pools' lists one after the other, which is
 * name order when the pools' names keep their machines apart (a pool's machines are named after it); otherwise it is
 * made from every machine in name order, as before.
 */
final class FleetNodes {

    private final Map<String, ObservedNode> byName = new TreeMap<>();
    /** Each pool's machines by name, pools by name. */
    private final Map<String, TreeMap<String, ObservedNode>> byPool = new TreeMap<>();
    /** Each pool's machines in name order; a pool changed since is missing. */
    private final Map<String, List<ObservedNode>> poolLists = new HashMap<>();
    /** How many machines stand in for each old machine, by its name (surgeFor). */
    private final Map<String, Integer> standIns = new HashMap<>();
    private List<ObservedNode> observed;

    ObservedNode get(String name) {
        return byName.get(name);
    }

    void put(ObservedNode node) {
        ObservedNode old = byName.put(node.name(), node);
        if (old != null) {
            forget(old);
        }
        byPool.computeIfAbsent(node.pool(), p -> new TreeMap<>()).put(node.name(), node);
        node.surgeFor().ifPresent(s -> standIns.merge(s, 1, Integer::sum));
        changed(node.pool());
    }

    /** Removes the machine; the one removed, or null. */
    ObservedNode remove(String name) {
        ObservedNode old = byName.remove(name);
        if (old != null) {
            forget(old);
        }
        return old;
    }

    private void forget(ObservedNode old) {
        TreeMap<String, ObservedNode> pool = byPool.get(old.pool());
        if (pool.get(old.name()) == old) {
            pool.remove(old.name());
        }
        old.surgeFor().ifPresent(s -> standIns.computeIfPresent(s, (k, c) -> c == 1 ? null : c - 1));
        changed(old.pool());
    }

    private void changed(String pool) {
        poolLists.remove(pool);
        observed = null;
    }

    /** Some machine stands in for {@code old} (its surgeFor). */
    boolean hasStandIn(String old) {
        return standIns.containsKey(old);
    }

    Collection<ObservedNode> values() {
        return byName.values();
    }

    /** The pool's machines in name order. */
    List<ObservedNode> ofPool(String pool) {
        List<ObservedNode> list = poolLists.get(pool);
        if (list == null) {
            TreeMap<String, ObservedNode> machines = byPool.get(pool);
            list = machines == null ? List.of() : List.copyOf(machines.values());
            poolLists.put(pool, list);
        }
        return list;
    }

    /** Every machine in name order. */
    List<ObservedNode> observed() {
        if (observed == null) {
            List<ObservedNode> all = new ArrayList<>(byName.size());
            String last = null;
            boolean inOrder = true;
            for (String pool : byPool.keySet()) {
                List<ObservedNode> machines = ofPool(pool);
                if (machines.isEmpty()) {
                    continue;
                }
                if (last != null && last.compareTo(machines.get(0).name()) > 0) {
                    inOrder = false;
                    break;
                }
                all.addAll(machines);
                last = machines.get(machines.size() - 1).name();
            }
            observed = inOrder ? List.copyOf(all) : List.copyOf(byName.values());
        }
        return observed;
    }
}
