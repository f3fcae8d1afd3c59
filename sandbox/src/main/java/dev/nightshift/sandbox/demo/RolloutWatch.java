package dev.nightshift.sandbox.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import dev.nightshift.agent.reconcile.ReconcileReport;

/**
 * Keeps every failure the agent's reports show. It must see each report, not sample the latest: a
 * failed node update appears in the one report of the reconcile that saw it end.
 */
final class RolloutWatch implements Consumer<ReconcileReport> {

    private final List<RolloutFailure> failures = new ArrayList<>();

    @Override
    public synchronized void accept(ReconcileReport report) {
        for (RolloutFailure f : RolloutFailure.in(report)) {
            if (!failures.contains(f)) {
                failures.add(f);
            }
        }
    }

    /** Every distinct failure seen so far, in the order seen. */
    synchronized List<RolloutFailure> failures() {
        return List.copyOf(failures);
    }
}
