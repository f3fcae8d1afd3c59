package dev.nightshift.agent.eta;

import java.util.Optional;

import dev.nightshift.spec.diff.PoolAction;
import dev.nightshift.strategies.plan.PendingAction;

/**
 * A pool's work to estimate: how many of its nodes a change touches and what they need.
 *
 * @param kind {@link PendingAction#ROLL} and {@link PendingAction#IN_PLACE} both mean a new roll
 *             hash, carried out by the pool's strategy (replacement or in-place update);
 *             {@link PendingAction#KUBELET_RESTART} a kubelet change alone
 */
public record PoolWork(String pool, int nodes, PendingAction kind) {

    /**
     * The work a diff's action means for {@code nodes} nodes; empty for actions that disrupt no node
     * (labels only, no change, a new or removed pool, a rejected change).
     */
    public static Optional<PoolWork> of(String pool, int nodes, PoolAction action) {
        return switch (action) {
            case ROLL -> Optional.of(new PoolWork(pool, nodes, PendingAction.ROLL));
            case IN_PLACE -> Optional.of(new PoolWork(pool, nodes, PendingAction.IN_PLACE));
            case KUBELET_RESTART -> Optional.of(new PoolWork(pool, nodes, PendingAction.KUBELET_RESTART));
            case REJECTED, PROPAGATE, NONE, CREATE, DELETE -> Optional.empty();
        };
    }
}
