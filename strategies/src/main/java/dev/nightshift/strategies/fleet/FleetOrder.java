package dev.nightshift.strategies.fleet;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.Function;

import dev.nightshift.spec.model.PoolRole;

/**
 * The order pools roll in: roles in kops's order (bastions, control planes, apiservers, nodes); within a role by name,
 * except that a pool comes after the pools its {@code rollout.after} names. With no {@code after} it is exactly the
 * order of old: role, then name.
 */
public final class FleetOrder {

    private FleetOrder() {
    }

    /**
     * {@code pools} in rollout order. Within a role, the first by name among the pools whose {@code after} pools are all
     * placed comes next (Kahn's algorithm, ties by name); a name not among {@code pools} (a pool not planned here) and a
     * cycle (the spec refuses both) are ignored, so that the order is total whatever it is given.
     */
    public static <T> List<T> sort(List<T> pools, Function<T, String> name, Function<T, PoolRole> role,
                                   Function<T, List<String>> after) {
        List<T> sorted = new ArrayList<>();
        for (PoolRole r : PoolRole.values()) {
            List<T> ofRole = pools.stream().filter(p -> role.apply(p) == r).sorted(Comparator.comparing(name)).toList();
            sorted.addAll(topological(ofRole, name, after));
        }
        return sorted;
    }

    private static <T> List<T> topological(List<T> pools, Function<T, String> name, Function<T, List<String>> after) {
        Map<String, T> byName = new HashMap<>();
        pools.forEach(p -> byName.put(name.apply(p), p));
        Map<String, Set<String>> waitsOn = new HashMap<>();
        Map<String, List<String>> dependants = new HashMap<>();
        for (T p : pools) {
            Set<String> on = new HashSet<>();
            for (String a : after.apply(p)) {
                if (byName.containsKey(a) && !a.equals(name.apply(p))) {
                    on.add(a);
                    dependants.computeIfAbsent(a, k -> new ArrayList<>()).add(name.apply(p));
                }
            }
            waitsOn.put(name.apply(p), on);
        }
        PriorityQueue<String> ready = new PriorityQueue<>();
        waitsOn.forEach((p, on) -> {
            if (on.isEmpty()) {
                ready.add(p);
            }
        });
        List<T> out = new ArrayList<>();
        Set<String> placed = new HashSet<>();
        while (out.size() < pools.size()) {
            if (ready.isEmpty()) {
                // A cycle: the spec refuses it, but the order must stay total; the first by name left goes next.
                pools.stream().map(name).filter(n -> !placed.contains(n)).findFirst().ifPresent(ready::add);
            }
            String next = ready.poll();
            if (!placed.add(next)) {
                continue;
            }
            out.add(byName.get(next));
            for (String d : dependants.getOrDefault(next, List.of())) {
                Set<String> on = waitsOn.get(d);
                on.remove(next);
                if (on.isEmpty() && !placed.contains(d)) {
                    ready.add(d);
                }
            }
        }
        return out;
    }
}
