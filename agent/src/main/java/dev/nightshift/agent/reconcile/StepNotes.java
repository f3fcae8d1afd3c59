package dev.nightshift.agent.reconcile;

import java.util.Optional;

import dev.nightshift.spec.diff.PoolTarget;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;

/** Told of each step carried out, to say on the node why ({@link WhyEvents}). */
@FunctionalInterface
interface StepNotes {

    StepNotes NONE = (step, pool, node, target) -> { };

    void executed(Step step, DesiredPool pool, Optional<ObservedNode> node, Optional<PoolTarget> target);
}
