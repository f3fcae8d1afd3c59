package dev.nightshift.agent.notify;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.strategies.model.BlockedEviction;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolPlan;
import dev.nightshift.strategies.plan.PoolReport;

/** Reconcile reports made by hand: pools by their counts, as the planner would report them. */
final class Reports {

    static final String C1 = "1111111111111111111111111111111111111111";
    static final String C2 = "2222222222222222222222222222222222222222";

    private Reports() {
    }

    static PoolReport pool(String name, int count, int current, int updating) {
        PoolPhase phase = current == count && updating == 0 ? PoolPhase.CURRENT : updating > 0 ? PoolPhase.UPDATING : PoolPhase.WAITING_FOR_TURN;
        return new PoolReport(name, phase, current == count ? PendingAction.NONE : PendingAction.ROLL, count, current, count - current,
                updating, 0, 1, 1, true, "", List.of(), List.of(), List.of(), PoolStatus.NEW);
    }

    static PoolReport failed(String name, int count, int current, String reason) {
        return new PoolReport(name, PoolPhase.UPDATING, PendingAction.ROLL, count, current, count - current, 0, 0, 1, 1, false,
                reason, List.of(), List.of(), List.of(), PoolStatus.NEW);
    }

    /** A pool whose rollout halted at {@code at}: a check failed in wave 1. */
    static PoolReport halted(String name, int count, int current, Instant at) {
        dev.nightshift.strategies.model.RolloutProgress.Halt halt = new dev.nightshift.strategies.model.RolloutProgress.Halt(
                "error-rate", "0.07", "<= 0.01", 1, at);
        PoolStatus status = PoolStatus.NEW.withRollout(Optional.of(new dev.nightshift.strategies.model.RolloutProgress(
                "target", count, 1, Optional.empty(), Optional.empty(), java.util.Set.of(), current, Optional.of(halt))));
        return new PoolReport(name, PoolPhase.HALTED, PendingAction.ROLL, count, current, count - current, 0, 0, 1, 1, true, "",
                List.of(), List.of(), List.of(), status);
    }

    static PoolReport blocked(String name, int count, int current, String node, String pod, String budget) {
        return new PoolReport(name, PoolPhase.UPDATING, PendingAction.ROLL, count, current, count - current, 1, 0, 1, 1, true, "",
                List.of(), List.of(), List.of(new PoolReport.BlockedDrain(node, new BlockedEviction(pod, budget, 3))), PoolStatus.NEW);
    }

    static ReconcileReport report(Instant at, String commit, PoolReport... pools) {
        Plan plan = new Plan(Arrays.stream(pools).map(p -> new PoolPlan(p.pool(), List.of(), p)).toList(), Optional.empty());
        return ReconcileReport.planned(at, commit, null, plan);
    }

    static ReconcileReport withRejected(ReconcileReport r, String... reasons) {
        return r.withRejected(List.of(reasons));
    }

    static ReconcileReport withOverdue(ReconcileReport r, Map<String, Integer> overdue) {
        return r.withOverdue(overdue);
    }
}
