package dev.nightshift.strategies;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import dev.nightshift.strategies.model.NodeCondition;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.PoolReport.NodeHealth;
import dev.nightshift.strategies.plan.Step;

/**
 * Health-based repair, Gardener's machineHealthTimeout: a node unhealthy for the pool's
 * healthTimeout without interruption has failed; it is drained and its machine replaced at the
 * pool's current spec, whatever the maintenance window says. What keeps repairs from becoming a
 * disaster (the 40% guard, control-plane rules, pause, exclusions) is decided by the caller's gate;
 * this class keeps the number in flight, from cordon until the replacement is available, within
 * max(1, maxUnavailable), one for control planes.
 */
final class Repairs {

    /** More than this share of a pool's nodes unhealthy looks like a partition, not dead machines. */
    static final int MAX_UNHEALTHY_PERCENT = 40;

    private Repairs() {
    }

    /**
     * Whether and since when a node is unhealthy: Ready False or Unknown, or a condition named in
     * nodeConditions True. Nodes being updated in place or restarting their kubelet are judged by
     * those operations' timeouts, and machines younger than creationTimeout that were never Ready
     * by creationTimeout: never by health. A node that reports no conditions is not judged.
     */
    static Optional<NodeHealth> judge(PoolView view, ObservedNode n) {
        if (!n.registered() || view.bastion() || n.terminating() || n.updatingInPlace() || n.kubeletRestartAt().isPresent()) {
            return Optional.empty();
        }
        // No condition reported: nothing to judge by (the loop below would find nothing either).
        if (n.conditions().isEmpty() || creatingUntil(view, n).isPresent()) {
            return Optional.empty();
        }
        Set<String> watched = view.watchedConditions();
        Optional<NodeHealth> worst = Optional.empty();
        for (NodeCondition c : n.conditions()) {
            boolean bad = NodeCondition.READY.equals(c.type()) ? !c.isTrue() : watched.contains(c.type()) && c.isTrue();
            if (!bad) {
                continue;
            }
            // A condition without a transition time starts its clock now: it never fails by default.
            Instant since = c.lastTransition().orElse(view.now());
            String name = NodeCondition.READY.equals(c.type()) ? "Ready=" + c.status() : c.type();
            if (worst.isEmpty() || since.isBefore(worst.get().since())) {
                worst = Optional.of(new NodeHealth(n.name(), name, since));
            }
        }
        return worst;
    }

    /**
     * Until when a registered machine that is not Ready is still being created, judged by
     * creationTimeout and not by health; empty once that is over (or when it is Ready). The planner
     * wakes then: a node still not Ready is judged by health from that moment on.
     */
    static Optional<Instant> creatingUntil(PoolView view, ObservedNode n) {
        if (n.ready()) {
            return Optional.empty();
        }
        return n.createdAt().map(c -> c.plus(view.spec().machineControllerManager().creationTimeout()))
                .filter(end -> end.isAfter(view.now()));
    }

    /** When an unhealthy node fails if nothing changes; empty when the pool disables the health timeout. */
    static Optional<Instant> failsAt(PoolView view, NodeHealth health) {
        if (view.desired().spec().disableHealthTimeout()) {
            return Optional.empty();
        }
        return Optional.of(health.since().plus(view.spec().machineControllerManager().healthTimeout()));
    }

    /** Too many of the pool's nodes are unhealthy to trust that they are dead: repair nothing. */
    static boolean tooManyUnhealthy(PoolView view) {
        return view.unhealthyNodes().size() * 100 > MAX_UNHEALTHY_PERCENT * view.count();
    }

    /**
     * A machine of the pool still coming up: not registered yet, registered and not Ready within
     * creationTimeout, or Ready for less than minReadySeconds. A repair's replacement is one; so
     * is any other new machine (the provider does not say which deletion it replaces), except a
     * surge machine whose old node is still there, which replaces nothing yet.
     */
    static boolean comingUp(PoolView view, ObservedNode n) {
        if (view.bastion() || n.terminating() || n.cordoned() || PoolView.inFlight(n) || view.hasLivePartner(n) || view.outdated(n)) {
            return false;
        }
        if (!n.registered()) {
            return true;
        }
        if (!n.ready()) {
            return creatingUntil(view, n).isPresent();
        }
        return n.readySince().get().plus(view.minReady()).isAfter(view.now());
    }

    /**
     * Carries repairs in flight on (drain, then delete with a replacement) whatever the gate says,
     * and starts new ones, longest failed first, where it allows. A repair is in flight from its
     * cordon until its replacement is available: until then the pool is short of that node, and
     * another repair would make it shorter than maxUnavailable allows (MachineHealthCheck's
     * maxUnhealthy counts the machines a remediation has not given back yet the same way).
     *
     * @param controlPlaneNodes the pool holds control-plane nodes (by its role or the cluster's
     *                          label): one repair at a time
     */
    static void plan(PoolView view, boolean controlPlaneNodes, StartGate gate, PlanSink sink) {
        if (!view.anyFailed()) {
            return;
        }
        List<ObservedNode> failed = view.nodes().stream().filter(view::failed).toList();
        int inFlight = (int) view.nodes().stream().filter(n -> comingUp(view, n)).count();
        for (ObservedNode node : failed) {
            if (node.draining()) {
                inFlight++;
                if (Drains.progress(view, node, sink)) {
                    // A surge machine already stands in for it, or it is one whose partner is still there: no replacement.
                    boolean replace = view.surgePartnerOf(node).isEmpty() && !view.hasLivePartner(node);
                    sink.add(new Step.DeleteMachine(node.name(), view.desired().name(), replace,
                            view.desired()));
                }
            }
        }
        int limit = controlPlaneNodes ? 1 : Math.max(1, view.maxUnavailable());
        List<NodeHealth> waiting = view.failedNodes().stream()
                .filter(h -> view.node(h.node()).filter(ObservedNode::draining).isEmpty())
                .sorted(Comparator.comparing(NodeHealth::since).thenComparing(NodeHealth::node))
                .toList();
        for (NodeHealth h : waiting) {
            if (inFlight >= limit) {
                return;
            }
            ObservedNode node = view.node(h.node()).orElseThrow();
            if (gate.allows(node)) {
                sink.add(new Step.Repair(node.name(), view.desired().name(), h.condition(), h.since()));
                inFlight++;
            }
        }
    }
}
