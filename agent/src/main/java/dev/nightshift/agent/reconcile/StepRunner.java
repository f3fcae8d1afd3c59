package dev.nightshift.agent.reconcile;

import java.util.List;
import java.util.Optional;

import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.strategies.plan.Step;

/** What carries out one step on the cluster and its machines ({@link StepExecutor#execute}; a fake in the pass's tests). */
@FunctionalInterface
interface StepRunner {

    /** The outcome, or empty when the step turned out to have nothing to do (or started work that reports later). */
    Optional<StepExecutor.Outcome> execute(Step step);

    /** What work started by earlier steps did, finished since the last call: drain passes run off the pass's thread. */
    default List<StepExecutor.Outcome> finished() {
        return List.of();
    }
}
