package dev.nightshift.sandbox.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import dev.nightshift.agent.reconcile.NodeUpdate;
import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolReport;

/**
 * Why the demo's rollout will not finish, read from what the agent reports, so that
 * {@code --exit-when-done} fails as soon as the agent knows rather than at the step's timeout.
 *
 * @param pool   the pool concerned; empty for a commit as a whole
 * @param detail what happened, for a person
 */
record RolloutFailure(Reason reason, String pool, String detail) {

    /** The kinds of failure; the label matches the agent's own wording (pool phase, condition reason). */
    enum Reason {
        NODE_UPDATE_FAILED("NodeUpdateFailed"),
        MACHINE_FAILED("MachineFailed"),
        PROGRESS_DEADLINE_EXCEEDED(RolloutPlanner.PROGRESS_DEADLINE_EXCEEDED),
        SPEC_REJECTED("SpecRejected"),
        SPEC_INVALID("SpecInvalid");

        private final String label;

        Reason(String label) {
            this.label = label;
        }

        String label() {
            return label;
        }
    }

    String message() {
        return (pool.isEmpty() ? "" : "pool " + pool + ": ") + detail + " (" + reason.label() + ")";
    }

    /**
     * The failures one report shows, most specific first: a node update that failed, then pools the
     * planner marks failed or past their progress deadline, then a commit the agent refused.
     * Reconcile errors are not among them: the agent retries those by itself.
     */
    static List<RolloutFailure> in(ReconcileReport report) {
        List<RolloutFailure> failures = new ArrayList<>();
        for (NodeUpdate u : report.updates()) {
            if (!u.succeeded()) {
                failures.add(new RolloutFailure(Reason.NODE_UPDATE_FAILED, u.pool(), describe(u)));
            }
        }
        if (report.plan() != null) {
            for (PoolReport p : new TreeMap<>(report.plan().reports()).values()) {
                // The count too: a bastion whose replacement never came up is reported CURRENT with one failed.
                if (p.phase() == PoolPhase.FAILED || p.failed() > 0) {
                    failures.add(new RolloutFailure(Reason.MACHINE_FAILED, p.pool(), p.failed() + " machine(s) failed: a new"
                            + " machine not Ready within creationTimeout, or an in-place update that failed or timed out"));
                }
                if (!p.progressing()) {
                    failures.add(new RolloutFailure(Reason.PROGRESS_DEADLINE_EXCEEDED, p.pool(), p.outdated()
                            + " node(s) still outdated and none finished its update within the pool's progress deadline"));
                }
            }
        }
        if (!report.rejected().isEmpty()) {
            failures.add(new RolloutFailure(Reason.SPEC_REJECTED, "", "the newest commit is not applied, "
                    + (report.revision().isEmpty() ? "no spec is" : "commit " + shortCommit(report.revision()) + " stays")
                    + " in force: " + String.join("; ", report.rejected())));
        }
        return failures;
    }

    private static String describe(NodeUpdate u) {
        String took = seconds(u.took());
        return switch (u.kind()) {
            case ROLL -> "machine " + u.node() + ", created to replace an outdated node, never became Ready and was deleted after "
                    + took;
            case IN_PLACE -> "the in-place update of node " + u.node() + " failed after " + took;
            case KUBELET_RESTART -> "the kubelet restart of node " + u.node() + " failed after " + took;
        };
    }

    private static String seconds(Duration d) {
        return d.toSeconds() + "." + d.toMillisPart() / 100 + "s";
    }

    static String shortCommit(String commit) {
        return commit.length() > 8 ? commit.substring(0, 8) : commit;
    }
}
