package dev.nightshift.agent.reconcile;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.strategies.plan.Plan;

/**
 * What one reconcile saw and did: for logs, {@code /status}, metrics and the demo's screen.
 *
 * @param revision the commit whose specs were acted on
 * @param rejected why the newest commit was not taken, if it was not
 * @param notices  what else an operator should know: pools held by the version guard, emergency annotations
 */
public record ReconcileReport(Instant at, String revision, WindowState window, Plan plan,
                              List<StepExecutor.Outcome> outcomes, List<String> rejected, List<String> notices,
                              Optional<String> error) {

    public ReconcileReport {
        outcomes = List.copyOf(outcomes);
        rejected = List.copyOf(rejected);
        notices = List.copyOf(notices);
    }
}
