package dev.nightshift.agent.reconcile;

import java.util.function.BooleanSupplier;

import dev.nightshift.strategies.plan.Step;

/**
 * The guard every pass has: nothing is done by a replica that no longer leads (another may act now: the rest of the
 * plan is its to make again), and no repair starts while the API server's {@code /readyz} fails (a failing control
 * plane makes healthy nodes look failed).
 */
final class ActingGuard implements StepGuard {

    private final BooleanSupplier leading;
    private final ApiServerCheck apiServer;

    ActingGuard(BooleanSupplier leading, ApiServerCheck apiServer) {
        this.leading = leading;
        this.apiServer = apiServer;
    }

    @Override
    public Verdict check(Step step) {
        if (!leading.getAsBoolean()) {
            return Verdict.stop("stopped leading mid-plan");
        }
        if (step instanceof Step.Repair r && !apiServer.ready()) {
            return Verdict.refuse("api_server_not_ready", "not repairing " + r.target() + " (" + r.condition() + "): the API server's /readyz fails");
        }
        return Verdict.ADMIT;
    }
}
