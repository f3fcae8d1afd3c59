package dev.nightshift.agent.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;

/**
 * {@code nightshift rolling-update --fail-on-drain-error=false} (kops: "Ignoring error draining node"): a node of a managed
 * pool that has been draining for the give-up time (its {@code drain-started-at} mark) is shown to the planner drained,
 * so the pool's strategy goes on as after any drain: the machine is deleted (or updated in place) with the pods still on
 * it, as kops deletes the instance. Done on the observation, as {@link ForcedNodes} is: the planner's rules and the
 * disruption guard stay as they are, and nothing is written for it. Each node is logged once.
 */
final class IgnoredDrains {

    private static final Logger LOG = LoggerFactory.getLogger(IgnoredDrains.class);

    private final Duration giveUp;
    private final Set<String> logged = new HashSet<>();

    IgnoredDrains(Duration giveUp) {
        this.giveUp = giveUp;
    }

    /** The observation with each drain past the give-up time shown finished. */
    ObservedCluster apply(DesiredCluster desired, ObservedCluster observed, Instant now) {
        Set<String> pools = desired.pools().stream().map(DesiredPool::name).collect(Collectors.toSet());
        boolean any = false;
        List<ObservedNode> nodes = new java.util.ArrayList<>(observed.nodes().size());
        for (ObservedNode n : observed.nodes()) {
            if (pools.contains(n.pool()) && !n.drained() && n.drainStartedAt().filter(t -> !t.plus(giveUp).isAfter(now)).isPresent()) {
                if (logged.add(n.name())) {
                    LOG.warn("the drain of {} (pool {}) has taken {}s, more than the drain timeout: it is ignored and the node goes with"
                            + " its pods (fail-on-drain-error=false)", n.name(), n.pool(),
                            Duration.between(n.drainStartedAt().orElseThrow(), now).toSeconds());
                }
                nodes.add(n.toBuilder().drained(true).build());
                any = true;
            } else {
                nodes.add(n);
            }
        }
        return any ? observed.withNodes(nodes) : observed;
    }
}
