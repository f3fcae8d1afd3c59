package dev.nightshift.agent.reconcile;

import java.util.Optional;

import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.strategies.plan.Step;

/** What carries out one step on the cluster and its machines ({@link StepExecutor#execute}; a fake in the pass's tests). */
@FunctionalInterface
interface StepRunner {

    /** The outcome, or empty when the step turned out to have nothing to do. */
    Optional<StepExecutor.Outcome> execute(Step step);
}
