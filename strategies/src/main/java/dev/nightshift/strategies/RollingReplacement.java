package dev.nightshift.strategies;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;

/**
 * AutoRollingUpdate: replace outdated nodes within maxSurge and maxUnavailable, one canary first.
 * Per node: taint, (surge machine), cordon, drain, delete (the provider replaces it unless a surge
 * machine took its place), wait until the replacement is available.
 */
final class RollingReplacement implements NodeUpdatePlanner {

    @Override
    public void plan(PoolView view, StartGate gate, PlanSink sink) {
        List<ObservedNode> outdated = view.outdatedNodes();
        deleteUnregistered(view, outdated, sink);
        for (ObservedNode node : outdated) {
            if (node.registered() && node.draining() && Drains.progress(view, node, sink)) {
                delete(view, node, sink);
            }
        }
        startNew(view, gate, sink);
    }

    /** An outdated machine that never registered is deleted without taint, cordon or drain. */
    static void deleteUnregistered(PoolView view, List<ObservedNode> outdated, PlanSink sink) {
        if (view.bastion()) {
            return;
        }
        for (ObservedNode m : outdated) {
            if (!m.registered()) {
                sink.add(new Step.DeleteMachine(m.name(), view.desired().name(), !view.hasLivePartner(m),
                        view.desired().rollHash(), view.desired().kubeletHash()));
            }
        }
    }

    private static void delete(PoolView view, ObservedNode node, PlanSink sink) {
        // A surge machine that is itself outdated (the target changed) was extra capacity: it is not replaced.
        boolean replace = view.surgePartnerOf(node).isEmpty() && !view.hasLivePartner(node);
        sink.add(new Step.DeleteMachine(node.name(), view.desired().name(), replace,
                view.desired().rollHash(), view.desired().kubeletHash()));
    }

    private static void startNew(PoolView view, StartGate gate, PlanSink sink) {
        int count = view.count();
        int surgeRoom = count + view.maxSurge() - view.existingMachines();
        int unavailableRoom = view.maxUnavailable() - (count - view.availableCount());
        List<ObservedNode> candidates = new ArrayList<>();
        for (ObservedNode n : view.outdatedNodes()) {
            if ((n.registered() || view.bastion()) && !n.draining()) {
                candidates.add(n);
            }
        }
        // Down nodes first (they cost no budget), then in the order the provider lets machines
        // leave (a surge partner can only go when its turn comes), then by name: the nodes are in
        // name order already, and the sort is stable.
        candidates.sort(Comparator.comparing((ObservedNode n) -> !view.alreadyDown(n)).thenComparingInt(ObservedNode::removalOrder));
        boolean canary = !view.canaryPassed();
        if (canary && updatesInFlight(view) > 0) {
            // A surge canary's old partner may still go: that is finishing the canary, not going wider.
            candidates = candidates.stream().filter(n -> view.surgePartnerOf(n).isPresent()).toList();
        }
        int started = 0;
        for (ObservedNode node : candidates) {
            Optional<ObservedNode> partner = view.surgePartnerOf(node);
            boolean free = view.alreadyDown(node);
            if (partner.isPresent()) {
                // Paired nodes are in flight: they finish even when the gate has closed.
                if (view.available(partner.get()) && (free || unavailableRoom > 0)) {
                    disrupt(view, node, sink);
                    if (!free) {
                        unavailableRoom--;
                    }
                }
                continue;
            }
            if (!gate.allows(node) || (canary && started > 0)) {
                continue;
            }
            if (free) {
                disrupt(view, node, sink);
                started++;
            } else if (surgeRoom > 0) {
                sink.add(new Step.CreateMachine(node.name() + "-surge", view.desired().name(), node.name(),
                        view.desired().rollHash(), view.desired().kubeletHash()));
                surgeRoom--;
                started++;
            } else if (unavailableRoom > 0) {
                disrupt(view, node, sink);
                unavailableRoom--;
                started++;
            }
        }
    }

    /** Bastions never register as nodes: no cordon or drain, the machine is replaced at once. */
    private static void disrupt(PoolView view, ObservedNode node, PlanSink sink) {
        if (view.bastion()) {
            delete(view, node, sink);
        } else {
            Drains.start(node, sink);
        }
    }

    /** Nodes on their way out or replacements not yet available: the canary counts these. */
    static long updatesInFlight(PoolView view) {
        return view.updatesInFlight();
    }
}
