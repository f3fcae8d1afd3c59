package dev.nightshift.strategies;

import java.util.List;
import java.util.stream.IntStream;

import dev.nightshift.spec.model.UpdateStrategy;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;

/**
 * AutoInPlaceUpdate and ManualInPlaceUpdate. Surge machines (Auto only) add capacity first; the
 * other outdated nodes are cordoned, drained, updated in place and uncordoned within the limits;
 * the old nodes paired with surge machines are drained and deleted last. Manual updates only the
 * nodes the user selected and labels the others as candidates.
 */
final class InPlaceUpdate implements NodeUpdatePlanner {

    @Override
    public void plan(PoolView view, StartGate gate, PlanSink sink) {
        boolean manual = view.spec().updateStrategy() == UpdateStrategy.ManualInPlaceUpdate;
        RollingReplacement.deleteUnregistered(view, sink);
        // Both kinds of node below are in flight: only those are visited, in name order.
        for (int i : view.inFlightNodes()) {
            ObservedNode node = view.nodes().get(i);
            if (node.updatingInPlace()) {
                continueUpdate(view, node, sink);
            } else if (node.draining() && view.outdated(node) && !view.failed(node) && Drains.progress(view, node, sink)) {
                if (view.surgePartnerOf(node).isPresent()) {
                    sink.add(new Step.DeleteMachine(node.name(), view.desired().name(), false,
                            view.desired()));
                } else {
                    sink.add(new Step.UpdateInPlace(node.name(), sink.pool, view.desired()));
                }
            }
        }
        startNew(view, gate, sink, manual);
    }

    private static void continueUpdate(PoolView view, ObservedNode node, PlanSink sink) {
        if (view.current(node) && node.rollHash().isPresent() && node.ready()) {
            sink.add(new Step.Uncordon(node.name(), sink.pool));
            return;
        }
        if (node.ready() && !node.inPlaceFailed() && view.outdated(node)) {
            // The update finished, but at a target that has since changed: still drained, update again.
            sink.add(new Step.UpdateInPlace(node.name(), sink.pool, view.desired()));
            return;
        }
        boolean timedOut = node.inPlaceStartedAt()
                .filter(t -> !t.plus(view.spec().machineControllerManager().inPlaceUpdateTimeout()).isAfter(view.now()))
                .isPresent();
        if (node.inPlaceFailed() || timedOut) {
            // Stays cordoned: a person decides (force token or needs-update).
            sink.failed.add(node.name());
        }
    }

    private static void startNew(PoolView view, StartGate gate, PlanSink sink, boolean manual) {
        int count = view.count();
        int surgeRoom = count + view.maxSurge() - view.existingMachines();
        int unavailableRoom = view.maxUnavailable() - (count - view.availableCount());
        List<ObservedNode> nodes = view.nodes();
        // Down nodes first, then by name: the nodes are in name order already. By index, as the view answers.
        int[] outdated = view.outdatedIndices();
        int[] eligible = IntStream.concat(
                IntStream.of(outdated).filter(i -> startable(view, i) && view.alreadyDown(i)),
                IntStream.of(outdated).filter(i -> startable(view, i) && !view.alreadyDown(i))).toArray();
        if (manual) {
            for (int i : eligible) {
                ObservedNode n = nodes.get(i);
                if (!n.candidateForUpdate()) {
                    sink.add(new Step.LabelCandidate(n.name(), sink.pool));
                }
                if (!n.selectedForUpdate()) {
                    sink.awaitingSelection.add(n.name());
                }
            }
            eligible = IntStream.of(eligible).filter(i -> nodes.get(i).selectedForUpdate()).toArray();
        }
        boolean canary = !view.canaryPassed();
        boolean busy = RollingReplacement.updatesInFlight(view) > 0;
        int[] unpaired = IntStream.of(eligible).filter(i -> !view.partnered(i)).toArray();
        // Surge machines pair with the last outdated nodes by name: those go last.
        int started = 0;
        for (int k = unpaired.length - 1; k >= 0 && surgeRoom > 0 && !manual; k--) {
            ObservedNode old = nodes.get(unpaired[k]);
            if (!gate.allows(old) || (canary && (busy || started > 0))) {
                break;
            }
            sink.add(new Step.CreateMachine(old.name() + "-surge", view.desired().name(), old.name(),
                    view.desired()));
            surgeRoom--;
            started++;
        }
        for (int k = 0, end = unpaired.length - started; k < end; k++) {
            int i = unpaired[k];
            boolean free = view.alreadyDown(i);
            if ((canary && (busy || started > 0)) || (!free && unavailableRoom <= 0) || !gate.allows(nodes.get(i))) {
                continue;
            }
            Drains.start(nodes.get(i), sink);
            started++;
            if (!free) {
                unavailableRoom--;
            }
        }
        boolean unpairedLeft = IntStream.of(outdated).anyMatch(i -> view.registered(i) && !view.partnered(i));
        if (unpairedLeft) {
            return;
        }
        for (int i : eligible) {
            boolean partnerAvailable = view.partnered(i)
                    && view.surgePartnerOf(nodes.get(i)).filter(view::available).isPresent();
            boolean free = view.alreadyDown(i);
            if (partnerAvailable && (free || unavailableRoom > 0)) {
                Drains.start(nodes.get(i), sink);
                if (!free) {
                    unavailableRoom--;
                }
            }
        }
    }

    /** An outdated node that may start an update: registered, not in flight, its last in-place update not failed. */
    private static boolean startable(PoolView view, int i) {
        return view.registered(i) && !view.inFlight(i) && !view.inPlaceFailed(i);
    }
}
