package dev.nightshift.agent.reconcile;

import java.time.Instant;
import java.util.Optional;

import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.ObservedCluster;

import dev.nightshift.strategies.plan.Step;

/**
 * The guard stage: asked before each step of the plan, at that moment, whether it may be executed. The planner decides
 * what should happen; a guard checks what must hold whatever the planner decided (this replica leads; a repair needs
 * a ready API server; the pool keeps its promised capacity, {@link DisruptionStage}).
 */
@FunctionalInterface
interface StepGuard {

    /** Makes the guard of one pass, from what that pass observed (a guard may count what the pass's steps do). */
    @FunctionalInterface
    interface PerPass {

        PerPass NONE = (desired, observed, now) -> step -> Verdict.ADMIT;

        StepGuard forPass(DesiredCluster desired, ObservedCluster observed, Instant now);

        /** A term as leader ended: what the guards remembered of it goes. */
        default void forgetTerm() {
        }
    }

    /** What happens to {@code step}. */
    Verdict check(Step step);

    /**
     * Admit the step, refuse it (the plan's other steps go on), make it wait for room in the fleet (not executed, as a
     * refusal, but not a broken promise: the cluster's budget or a zone's repairs), or stop the pass (no step after it runs).
     *
     * @param label why a step was refused, as a metric label (empty for the others)
     */
    record Verdict(Kind kind, Optional<String> label, Optional<String> reason) {

        enum Kind { ADMIT, REFUSE, WAIT, STOP }

        static final Verdict ADMIT = new Verdict(Kind.ADMIT, Optional.empty(), Optional.empty());

        static Verdict refuse(String label, String reason) {
            return new Verdict(Kind.REFUSE, Optional.of(label), Optional.of(reason));
        }

        static Verdict await(String label, String reason) {
            return new Verdict(Kind.WAIT, Optional.of(label), Optional.of(reason));
        }

        static Verdict stop(String reason) {
            return new Verdict(Kind.STOP, Optional.empty(), Optional.of(reason));
        }
    }
}
