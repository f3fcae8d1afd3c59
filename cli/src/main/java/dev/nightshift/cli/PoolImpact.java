package dev.nightshift.cli;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import dev.nightshift.spec.diff.PoolAction;
import dev.nightshift.spec.diff.PoolDecision;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedNode;

/**
 * How many of a pool's nodes a change touches, and how: counted in the live cluster (the pool's
 * nodes whose stamped hashes the new spec makes outdated, by the planner's own definition in
 * {@link DesiredPool}), or, without a cluster to ask, given as the new spec's {@code minimum}–{@code maximum}.
 *
 * @param nodes     the nodes touched; from the spec, the pool's {@code maximum}
 * @param nodesMin  from the spec, the pool's {@code minimum}; empty when counted in the cluster
 * @param poolNodes counted in the cluster, how many nodes the pool has there; empty from the spec
 */
record PoolImpact(int nodes, Optional<Integer> nodesMin, Kind kind, Source source, Optional<Integer> poolNodes) {

    /** What happens to each node touched. */
    enum Kind {
        REPLACED("replaced"),
        UPDATED_IN_PLACE("updated in place"),
        KUBELET_RESTARTED("kubelet restarted"),
        LABELS_ONLY("labels only"),
        CREATED("created"),
        NONE("none");

        private final String words;

        Kind(String words) {
            this.words = words;
        }

        String words() {
            return words;
        }

        String jsonName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** What an action does to each node it touches; a rejected or deleted pool's nodes are left alone. */
        static Kind of(PoolAction action) {
            return switch (action) {
                case ROLL -> REPLACED;
                case IN_PLACE -> UPDATED_IN_PLACE;
                case KUBELET_RESTART -> KUBELET_RESTARTED;
                case PROPAGATE -> LABELS_ONLY;
                case CREATE -> CREATED;
                case REJECTED, NONE, DELETE -> NONE;
            };
        }
    }

    /** Where the node count comes from. */
    enum Source {
        CLUSTER, SPEC;

        String jsonName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * From the new spec alone: its {@code minimum}–{@code maximum} (the pool may be anywhere in
     * between); none for a change that touches no node.
     */
    static PoolImpact fromSpec(PoolDecision decision, Optional<ResolvedPool> after) {
        Kind kind = Kind.of(decision.action());
        if (kind == Kind.NONE || after.isEmpty()) {
            return new PoolImpact(0, Optional.empty(), Kind.NONE, Source.SPEC, Optional.empty());
        }
        return new PoolImpact(after.get().pool().maximum(), Optional.of(after.get().pool().minimum()), kind, Source.SPEC,
                Optional.empty());
    }

    /**
     * From the pool's nodes in the live cluster. A rolling, in-place or kubelet change touches the
     * nodes whose roll or kubelet hash is not the new spec's (an unstamped node is adopted, not
     * touched, as the agent does); a change of labels, taints or annotations patches every node.
     * A new pool has no nodes yet to count: its impact comes from the spec.
     */
    static PoolImpact fromCluster(PoolDecision decision, ResolvedPool after, List<ObservedNode> poolNodes) {
        Kind kind = Kind.of(decision.action());
        Optional<Integer> total = Optional.of(poolNodes.size());
        return switch (kind) {
            case CREATED -> fromSpec(decision, Optional.of(after));
            case NONE -> new PoolImpact(0, Optional.empty(), kind, Source.CLUSTER, total);
            case LABELS_ONLY -> new PoolImpact(poolNodes.size(), Optional.empty(), kind, Source.CLUSTER, total);
            case REPLACED, UPDATED_IN_PLACE, KUBELET_RESTARTED -> {
                DesiredPool desired = DesiredPool.of(after);
                int touched = (int) poolNodes.stream().filter(n -> desired.hashOutdated(n) || desired.kubeletOutdated(n)).count();
                yield new PoolImpact(touched, Optional.empty(), kind, Source.CLUSTER, total);
            }
        };
    }

    /** The count, {@code 4} or {@code 2–6}. */
    String count() {
        return nodesMin.filter(min -> min != nodes).map(min -> min + "–" + nodes).orElse(Integer.toString(nodes));
    }

    /**
     * E.g. {@code 3 nodes replaced (of 4 in the cluster)}, {@code kubelet restarted on 2–6 nodes
     * (the spec's minimum–maximum)}.
     */
    String describe() {
        String nodesText = count() + (nodes == 1 && nodesMin.filter(min -> min != 1).isEmpty() ? " node" : " nodes");
        String what = switch (kind) {
            case REPLACED -> nodesText + " replaced";
            case UPDATED_IN_PLACE -> nodesText + " updated in place";
            case KUBELET_RESTARTED -> "kubelet restarted on " + nodesText;
            case LABELS_ONLY -> "labels only, on " + nodesText;
            case CREATED -> nodesText + " created";
            case NONE -> "no nodes touched";
        };
        if (kind == Kind.NONE) {
            return what;
        }
        return what + (source == Source.CLUSTER ? " (of " + poolNodes.orElse(0) + " in the cluster)" : " (the spec's minimum–maximum)");
    }
}
