package dev.nightshift.strategies.model;

import java.util.Map;
import java.util.TreeMap;

import dev.nightshift.spec.hash.HashScheme;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.model.ResolvedPool;

/** A pool's desired state: its resolved spec and the hashes its nodes must run. */
public record DesiredPool(ResolvedPool spec, StampedHash rollHash, StampedHash kubeletHash) {

    /** The label every node of a pool carries. */
    public static final String POOL_LABEL = "nightshift.dev/pool";

    public static DesiredPool of(ResolvedPool spec) {
        return new DesiredPool(spec, HashScheme.ROLL.compute(spec), HashScheme.KUBELET.compute(spec));
    }

    public String name() {
        return spec.name();
    }

    /** The labels Nightshift maintains on the pool's nodes. */
    public Map<String, String> labels() {
        Map<String, String> labels = new TreeMap<>(spec.pool().labels());
        labels.put(POOL_LABEL, name());
        return labels;
    }

    /**
     * The annotations Nightshift maintains on the pool's nodes: the pool's own, without its control
     * annotations ({@code nightshift.dev/…}), which instruct Nightshift and are never copied.
     */
    public Map<String, String> annotations() {
        return spec.pool().nodeAnnotations();
    }
}
