package dev.nightshift.strategies;

import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedNode;

/**
 * A pool's accounting as the planner keeps it, for those who measure a rollout from outside (the
 * simulator's peaks and violations): the machines that exist, those that count towards the pool's
 * size, those available, and the limits resolved against that size.
 *
 * @param machines  machines that exist and are not terminating
 * @param counted   every machine once, except a surge machine whose old partner still exists
 * @param available nodes available (Ready for minReadySeconds, healthy, not cordoned, drained or
 *                  updating; a bastion's machine running)
 */
public record PoolAccount(int machines, Set<String> counted, Set<String> available, PoolLimits limits) {

    public PoolAccount {
        counted = Set.copyOf(counted);
        available = Set.copyOf(available);
    }

    public static PoolAccount of(DesiredPool pool, List<ObservedNode> nodes, Instant now) {
        PoolView view = new PoolView(pool, nodes, now);
        return new PoolAccount(view.nodes().size(),
                view.nodes().stream().filter(n -> !view.hasLivePartner(n)).map(ObservedNode::name).collect(Collectors.toSet()),
                view.nodes().stream().filter(view::available).map(ObservedNode::name).collect(Collectors.toSet()),
                view.limits());
    }

    /** The pool's size: what the limits are resolved against. */
    public int count() {
        return counted.size();
    }

    /** Machines of the pool's size that are not available. */
    public int unavailable() {
        return count() - available.size();
    }
}
