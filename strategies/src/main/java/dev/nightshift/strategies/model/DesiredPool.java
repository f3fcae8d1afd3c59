package dev.nightshift.strategies.model;

import java.util.Map;
import java.util.TreeMap;

import dev.nightshift.spec.hash.HashScheme;
import dev.nightshift.spec.hash.StampMatch;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.model.ResolvedPool;

/**
 * A pool's desired state: its resolved spec and the hashes its nodes must run, and the one
 * definition of whether a node runs it ({@link #outdated}, {@link #kubeletOutdated}), which the
 * planner, the simulator and the agent's metrics all use.
 */
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

    /** Not at the desired roll hash, or marked needs-update. An unstamped node is adopted, not outdated. */
    public boolean outdated(ObservedNode n) {
        return n.needsUpdate() || hashOutdated(n);
    }

    /**
     * Stamped with a roll hash that is not the desired one: a spec change, not a needs-update mark.
     * A stamp of an older hash version that matches is re-stamped, not outdated; a stamp of a
     * version this Nightshift does not know is outdated.
     */
    public boolean hashOutdated(ObservedNode n) {
        // Asked for every node in every plan: the desired hash itself (the stamp the planner wrote) is answered at once.
        StampedHash h = n.rollHash().orElse(null);
        return h != null && h != rollHash && rollMatch(h) == StampMatch.OUTDATED;
    }

    /** Runs the desired roll hash but a kubelet hash that is not the desired one: a kubelet restart. */
    public boolean kubeletOutdated(ObservedNode n) {
        StampedHash h = n.kubeletHash().orElse(null);
        return h != null && h != kubeletHash && !outdated(n) && kubeletMatch(h) == StampMatch.OUTDATED;
    }

    /** How a roll-hash stamp relates to this pool; compares with the hash computed once, only another version needs the scheme. */
    public StampMatch rollMatch(StampedHash stamp) {
        return match(HashScheme.ROLL, stamp, rollHash);
    }

    public StampMatch kubeletMatch(StampedHash stamp) {
        return match(HashScheme.KUBELET, stamp, kubeletHash);
    }

    private StampMatch match(HashScheme scheme, StampedHash stamp, StampedHash wanted) {
        if (stamp == wanted) {
            return StampMatch.CURRENT;
        }
        if (stamp.version() == wanted.version()) {
            return stamp.value().equals(wanted.value()) ? StampMatch.CURRENT : StampMatch.OUTDATED;
        }
        return scheme.match(stamp, spec);
    }
}
