package dev.nightshift.agent.reconcile;

import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolReport;

/**
 * Each pool's machines, each in one state a person reads at a glance (the web view's grid,
 * {@code /status} {@code nodeStates}). A node is in the first state of {@link State} that applies, so
 * a failed node that is also cordoned shows as failed: what needs a person comes first.
 */
public final class NodeStates {

    private NodeStates() {
    }

    /** In order of precedence. */
    public enum State {
        /** Its update failed, or it was unhealthy for the pool's healthTimeout. */
        FAILED,
        /** Unhealthy now, not (yet, or ever with disableHealthTimeout) failed. */
        UNHEALTHY,
        /** Nightshift is draining it. */
        DRAINING,
        /** Updated in place, its kubelet restarting, its machine being deleted, or a new machine not yet a node. */
        UPDATING,
        /** Unschedulable, by Nightshift or by someone else, and not draining. */
        CORDONED,
        /** Not at the pool's desired roll or kubelet hash. */
        OUTDATED,
        CURRENT;

        /** The name in JSON: lower case. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public record NodeState(String node, State state) {
    }

    /** The state of every machine of every pool in {@code plan}, by pool, nodes sorted by name. */
    public static Map<String, List<NodeState>> of(List<DesiredPool> pools, ObservedCluster observed, Plan plan) {
        Map<String, List<NodeState>> states = new LinkedHashMap<>();
        for (DesiredPool pool : pools) {
            plan.pool(pool.name()).ifPresent(p -> states.put(pool.name(), of(pool, observed.nodesOf(pool.name()), p.report())));
        }
        return states;
    }

    static List<NodeState> of(DesiredPool pool, List<ObservedNode> nodes, PoolReport report) {
        Set<String> failed = new HashSet<>();
        report.failedNodes().forEach(h -> failed.add(h.node()));
        Set<String> unhealthy = new HashSet<>();
        report.unhealthyNodes().forEach(h -> unhealthy.add(h.node()));
        boolean bastion = pool.spec().pool().role() == PoolRole.BASTION;
        return nodes.stream().sorted(Comparator.comparing(ObservedNode::name))
                .map(n -> new NodeState(n.name(), state(pool, bastion, n, failed.contains(n.name()), unhealthy.contains(n.name()))))
                .toList();
    }

    private static State state(DesiredPool pool, boolean bastion, ObservedNode n, boolean failed, boolean unhealthy) {
        boolean outdated = pool.outdated(n) || pool.kubeletOutdated(n);
        if (failed || n.inPlaceFailed()) {
            return State.FAILED;
        }
        if (unhealthy) {
            return State.UNHEALTHY;
        }
        if (n.draining()) {
            return State.DRAINING;
        }
        // A bastion's machine never becomes a node: unregistered is its normal state, not a machine joining.
        if (n.updatingInPlace() || n.kubeletRestartAt().isPresent() || n.terminating() || (!n.registered() && !bastion && !outdated)) {
            return State.UPDATING;
        }
        if (n.cordoned()) {
            return State.CORDONED;
        }
        return outdated ? State.OUTDATED : State.CURRENT;
    }
}
