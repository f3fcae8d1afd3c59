package dev.nightshift.agent.reconcile;

import java.util.Optional;

import dev.nightshift.strategies.plan.Step;

/**
 * The guard stage: asked before each step of the plan, at that moment, whether it may be executed. The planner decides
 * what should happen; a guard checks what must hold whatever the planner decided (this replica leads; a repair needs
 * a ready API server).
 */
@FunctionalInterface
interface StepGuard {

    /** What happens to {@code step}. */
    Verdict check(Step step);

    /** Admit the step, skip it (the plan's other steps go on), or stop the pass (no step after it runs). */
    record Verdict(Kind kind, Optional<String> reason) {

        enum Kind { ADMIT, SKIP, STOP }

        static final Verdict ADMIT = new Verdict(Kind.ADMIT, Optional.empty());

        static Verdict skip(String reason) {
            return new Verdict(Kind.SKIP, Optional.of(reason));
        }

        static Verdict stop(String reason) {
            return new Verdict(Kind.STOP, Optional.of(reason));
        }
    }
}
