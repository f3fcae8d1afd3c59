package dev.nightshift.spec.model;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Kubelet settings. Every field is optional so that a pool can override the cluster's value of
 * one field and inherit the rest ({@link #overriddenBy}).
 *
 * @param evictionHard signal to threshold, each threshold canonical (a quantity in base units, or a percentage)
 */
public record KubeletConfig(
        Optional<Map<String, Quantity>> kubeReserved,
        Optional<Map<String, Quantity>> systemReserved,
        Optional<Map<String, String>> evictionHard,
        Optional<String> cpuManagerPolicy) {

    public static final KubeletConfig EMPTY =
            new KubeletConfig(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

    public KubeletConfig {
        kubeReserved = kubeReserved.map(m -> Map.copyOf(new TreeMap<>(m)));
        systemReserved = systemReserved.map(m -> Map.copyOf(new TreeMap<>(m)));
        evictionHard = evictionHard.map(m -> Map.copyOf(new TreeMap<>(m)));
    }

    /** The pool's value of each field where it sets one, this (the cluster's) otherwise. */
    public KubeletConfig overriddenBy(KubeletConfig pool) {
        return new KubeletConfig(
                pool.kubeReserved.or(() -> kubeReserved),
                pool.systemReserved.or(() -> systemReserved),
                pool.evictionHard.or(() -> evictionHard),
                pool.cpuManagerPolicy.or(() -> cpuManagerPolicy));
    }

    /**
     * kubeReserved plus systemReserved per resource, sorted by resource. Moving a reservation from
     * one to the other leaves the node's allocatable capacity alone, so only the sum can force a roll.
     */
    public Map<String, Quantity> reservedSum() {
        Map<String, Quantity> sum = new HashMap<>(kubeReserved.orElse(Map.of()));
        systemReserved.orElse(Map.of()).forEach((k, v) -> sum.merge(k, v, Quantity::plus));
        return new TreeMap<>(sum);
    }
}
