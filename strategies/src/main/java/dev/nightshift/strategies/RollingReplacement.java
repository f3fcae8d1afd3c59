package dev.nightshift.strategies;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

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
        deleteUnregistered(view, sink);
        // Outdated nodes being drained, in name order: among the nodes in flight, not among all outdated ones.
        for (int i : view.inFlightNodes()) {
            ObservedNode node = view.nodes().get(i);
            if (view.outdated(i) && !view.failed(node) && node.registered() && node.draining() && Drains.progress(view, node, sink)) {
                delete(view, node, sink);
            }
        }
        startNew(view, gate, sink);
    }

    /** An outdated machine that never registered is deleted without taint, cordon or drain. */
    static void deleteUnregistered(PoolView view, PlanSink sink) {
        if (view.bastion()) {
            return;
        }
        for (int i : view.outdatedIndices()) {
            if (!view.registered(i)) {
                ObservedNode m = view.nodes().get(i);
                sink.add(new Step.DeleteMachine(m.name(), view.desired().name(), !view.hasLivePartner(m),
                        view.desired()));
            }
        }
    }

    private static void delete(PoolView view, ObservedNode node, PlanSink sink) {
        // A surge machine that is itself outdated (the target changed) was extra capacity: it is not replaced.
        boolean replace = view.surgePartnerOf(node).isEmpty() && !view.hasLivePartner(node);
        sink.add(new Step.DeleteMachine(node.name(), view.desired().name(), replace,
                view.desired()));
    }

    private static void startNew(PoolView view, StartGate gate, PlanSink sink) {
        int count = view.count();
        int surgeRoom = count + view.maxSurge() - view.existingMachines();
        int unavailableRoom = view.maxUnavailable() - (count - view.availableCount());
        List<ObservedNode> nodes = view.nodes();
        int[] outdated = view.outdatedIndices();
        int[] candidates = new int[outdated.length];
        int size = 0;
        boolean sorted = true;
        for (int i : outdated) {
            if ((view.registered(i) || view.bastion()) && !(view.inFlight(i) && view.draining(i))) {
                if (size > 0 && order(view, candidates[size - 1], i) > 0) {
                    sorted = false;
                }
                candidates[size++] = i;
            }
        }
        candidates = Arrays.copyOf(candidates, size);
        // Down nodes first (they cost no budget), then in the order the provider lets machines
        // leave (a surge partner can only go when its turn comes), then by name: the nodes are in
        // name order already, and the sort is stable.
        if (!sorted) {
            candidates = IntStream.of(candidates).boxed().sorted((a, b) -> order(view, a, b)).mapToInt(Integer::intValue).toArray();
        }
        boolean canary = !view.canaryPassed();
        if (canary && updatesInFlight(view) > 0) {
            // A surge canary's old partner may still go: that is finishing the canary, not going wider.
            candidates = IntStream.of(candidates).filter(view::partnered).toArray();
        }
        int started = 0;
        for (int i : candidates) {
            ObservedNode node = nodes.get(i);
            Optional<ObservedNode> partner = view.partnered(i) ? view.surgePartnerOf(node) : Optional.empty();
            boolean free = view.alreadyDown(i);
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
            // A node that could not start anyway is not shown to the gate (it only answers).
            boolean room = free || surgeRoom > 0 || unavailableRoom > 0;
            if (!room || (canary && started > 0) || !gate.allows(node)) {
                continue;
            }
            if (free) {
                disrupt(view, node, sink);
                started++;
            } else if (surgeRoom > 0) {
                sink.add(new Step.CreateMachine(node.name() + "-surge", view.desired().name(), node.name(),
                        view.desired()));
                surgeRoom--;
                started++;
            } else if (unavailableRoom > 0) {
                disrupt(view, node, sink);
                unavailableRoom--;
                started++;
            }
        }
    }

    /** Down nodes first, then by the provider's removal order; ties keep name order. */
    private static int order(PoolView view, int a, int b) {
        int c = Boolean.compare(!view.alreadyDown(a), !view.alreadyDown(b));
        return c != 0 ? c : Integer.compare(view.removalOrder(a), view.removalOrder(b));
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
