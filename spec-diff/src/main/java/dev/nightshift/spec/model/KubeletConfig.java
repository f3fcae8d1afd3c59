package dev.nightshift.spec.model;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Kubelet settings. Every field is optional so that a pool can override the cluster's value of
 * one field and inherit the rest ({@link #overriddenBy}). Immutable; the canonical forms the hashes
 * read are computed once, when it is built.
 */
public final class KubeletConfig {

    public static final KubeletConfig EMPTY =
            new KubeletConfig(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

    private final Optional<Map<String, Quantity>> kubeReserved;
    private final Optional<Map<String, Quantity>> systemReserved;
    private final Optional<Map<String, String>> evictionHard;
    private final Optional<String> cpuManagerPolicy;
    private final SortedMap<String, Quantity> reservedSum;
    private final String canonicalKubeReserved;
    private final String canonicalSystemReserved;
    private final String canonicalReservedSum;
    private final String canonicalEvictionHard;

    /**
     * @param evictionHard signal to threshold, each threshold canonical (a quantity in base units, or a percentage)
     */
    public KubeletConfig(Optional<Map<String, Quantity>> kubeReserved, Optional<Map<String, Quantity>> systemReserved,
                         Optional<Map<String, String>> evictionHard, Optional<String> cpuManagerPolicy) {
        // Sorted, so that every walk over a map (hashing, reasons) sees resources in one order.
        this.kubeReserved = kubeReserved.map(KubeletConfig::sorted);
        this.systemReserved = systemReserved.map(KubeletConfig::sorted);
        this.evictionHard = evictionHard.map(KubeletConfig::sorted);
        this.cpuManagerPolicy = cpuManagerPolicy;
        Map<String, Quantity> sum = new HashMap<>(this.kubeReserved.orElse(Map.of()));
        this.systemReserved.orElse(Map.of()).forEach((k, v) -> sum.merge(k, v, Quantity::plus));
        this.reservedSum = sorted(sum);
        this.canonicalKubeReserved = CanonicalText.quantities(this.kubeReserved.orElse(Map.of()));
        this.canonicalSystemReserved = CanonicalText.quantities(this.systemReserved.orElse(Map.of()));
        this.canonicalReservedSum = CanonicalText.quantities(reservedSum);
        this.canonicalEvictionHard = CanonicalText.of(this.evictionHard.orElse(Map.of()));
    }

    private static <V> SortedMap<String, V> sorted(Map<String, V> map) {
        return Collections.unmodifiableSortedMap(new TreeMap<>(map));
    }

    public Optional<Map<String, Quantity>> kubeReserved() {
        return kubeReserved;
    }

    public Optional<Map<String, Quantity>> systemReserved() {
        return systemReserved;
    }

    public Optional<Map<String, String>> evictionHard() {
        return evictionHard;
    }

    public Optional<String> cpuManagerPolicy() {
        return cpuManagerPolicy;
    }

    /** The pool's value of each field where it sets one, this (the cluster's) otherwise. */
    public KubeletConfig overriddenBy(KubeletConfig pool) {
        if (pool.equals(EMPTY)) {
            return this;
        }
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
        return reservedSum;
    }

    public String canonicalKubeReserved() {
        return canonicalKubeReserved;
    }

    public String canonicalSystemReserved() {
        return canonicalSystemReserved;
    }

    public String canonicalReservedSum() {
        return canonicalReservedSum;
    }

    public String canonicalEvictionHard() {
        return canonicalEvictionHard;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KubeletConfig k && k.kubeReserved.equals(kubeReserved) && k.systemReserved.equals(systemReserved)
                && k.evictionHard.equals(evictionHard) && k.cpuManagerPolicy.equals(cpuManagerPolicy);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kubeReserved, systemReserved, evictionHard, cpuManagerPolicy);
    }

    @Override
    public String toString() {
        return "KubeletConfig[kubeReserved=" + kubeReserved + ", systemReserved=" + systemReserved + ", evictionHard="
                + evictionHard + ", cpuManagerPolicy=" + cpuManagerPolicy + "]";
    }
}
