package dev.nightshift.agent.reconcile;

import java.util.Optional;

import dev.nightshift.agent.kube.EventRecorder;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.spec.diff.PoolAction;
import dev.nightshift.spec.diff.PoolTarget;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;

/**
 * The Event on a node for each disruptive step, saying in one line why: the pool's target's
 * reasons and the commit that introduced it, e.g.
 * {@code Replacing node: spec.machine.image.version 1631.0.0 → 1632.0.0 (commit 1a2b3c4)}.
 * The executor carries steps out; this says why, from the step and the pool's target.
 */
final class WhyEvents implements StepNotes {

    /** Reasons listed in one Event; the rest are counted ({@code /status} has them all). */
    private static final int REASONS_SHOWN = 5;

    private final EventRecorder events;

    WhyEvents(EventRecorder events) {
        this.events = events;
    }

    /**
     * After a step was carried out on a node of {@code pool}: the Event names the pool's target when
     * the node runs another spec, and the mark when a person marked the node for replacement; a
     * step on a node that is current (a repair, which has its own NodeFailed Event) gets none.
     */
    @Override
    public void executed(Step step, DesiredPool pool, Optional<ObservedNode> node, Optional<PoolTarget> target) {
        node.flatMap(n -> why(step, pool, n, target)).ifPresent(x -> events.node(step.target(), x.reason(), x.text()));
    }

    /** What the Event of {@code step} on {@code node} says, if it gets one. */
    static Optional<Note> why(Step step, DesiredPool pool, ObservedNode node, Optional<PoolTarget> target) {
        if (pool.hashOutdated(node) || pool.kubeletOutdated(node)) {
            return target.flatMap(t -> note(step, t.summary(REASONS_SHOWN) + " (commit " + t.shortRevision() + ")",
                    t.action() == PoolAction.ROLL));
        }
        if (node.needsUpdate()) {
            return note(step, "the node is marked " + NodeMarks.NEEDS_UPDATE + "=true", !pool.spec().pool().updateStrategy().inPlace());
        }
        return Optional.empty();
    }

    record Note(EventRecorder.Reason reason, String text) {
    }

    /**
     * The Event a disruptive step gets, saying {@code why}; none for steps that disrupt nothing
     * (stamps, labels, taints, validations).
     *
     * @param replacing the node's machine is replaced (not updated in place)
     */
    static Optional<Note> note(Step step, String why, boolean replacing) {
        if ((step instanceof Step.Cordon || step instanceof Step.DeleteMachine) && replacing) {
            // Said when the node is cordoned for its drain and again (counted) when its machine goes.
            return Optional.of(new Note(EventRecorder.Reason.NodeReplacing, "Replacing node: " + why));
        }
        if (step instanceof Step.UpdateInPlace) {
            return Optional.of(new Note(EventRecorder.Reason.NodeUpdatingInPlace, "Updating node in place: " + why));
        }
        if (step instanceof Step.RestartKubelet) {
            return Optional.of(new Note(EventRecorder.Reason.KubeletRestarting, "Restarting kubelet: " + why));
        }
        if (step instanceof Step.ForceDeletePod f) {
            return Optional.of(new Note(EventRecorder.Reason.PodForceDeleted, "Force-deleted pod " + f.pod()
                    + " (its PodDisruptionBudget refused every eviction, onEvictionBlocked: ForceDelete) to drain the node for: " + why));
        }
        return Optional.empty();
    }
}
