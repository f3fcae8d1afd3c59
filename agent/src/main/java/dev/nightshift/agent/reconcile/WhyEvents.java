package dev.nightshift.agent.reconcile;

import java.util.Optional;

import dev.nightshift.agent.kube.EventRecorder;
import dev.nightshift.spec.diff.PoolAction;
import dev.nightshift.spec.diff.PoolTarget;
import dev.nightshift.strategies.plan.Step;

/**
 * The Event on a node for each disruptive step, saying in one line why: the pool's target's
 * reasons and the commit that introduced it, e.g.
 * {@code Replacing node: spec.machine.image.version 1631.0.0 → 1632.0.0 (commit 1a2b3c4)}.
 * The executor carries steps out; this says why, from the step and the pool's target.
 */
final class WhyEvents {

    /** Reasons listed in one Event; the rest are counted ({@code /status} has them all). */
    private static final int REASONS_SHOWN = 5;

    private final EventRecorder events;

    WhyEvents(EventRecorder events) {
        this.events = events;
    }

    /**
     * After a step was carried out.
     *
     * @param outdated the step's node does not run its pool's target: the step is for the target, not a repair
     */
    void executed(Step step, Optional<PoolTarget> target, boolean outdated) {
        if (target.isEmpty() || !outdated) {
            return;
        }
        note(step, target.get()).ifPresent(n -> events.node(step.target(), n.reason(), n.text()));
    }

    record Note(EventRecorder.Reason reason, String text) {
    }

    /** The Event a step for a target gets; none for steps that disrupt nothing (stamps, labels, taints, validations). */
    static Optional<Note> note(Step step, PoolTarget t) {
        String why = t.summary(REASONS_SHOWN) + " (commit " + t.shortRevision() + ")";
        if ((step instanceof Step.Cordon || step instanceof Step.DeleteMachine) && t.action() == PoolAction.ROLL) {
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
