package dev.nightshift.strategies;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.model.RolloutProgress;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolReport.BlockedDrain;
import dev.nightshift.strategies.plan.Step;

/**
 * What the planner decided for one pool in one plan, its report aside: the steps, the phase and what the report is
 * made from. A {@link PlanMemo} keeps the decision of a pool that is waiting or done ({@link #reusable}) for the plans
 * after, as long as nothing it was made from changes.
 *
 * @param account the pool's accounting ({@link PoolAccount})
 * @param rollout the wave record for the pool's status ({@link Waves.Decision#next()})
 * @param wakes   the instants after the plan's at which this decision changes by itself: minReadySeconds and node
 *                timers, the interval, a soak, creation timeouts (the report's progress deadline is the report's)
 */
record PoolDecision(PoolView view, PoolAccount account, List<Step> steps, int failed, List<String> awaitingSelection,
                    List<BlockedDrain> blockedDrains, PoolPhase phase, List<String> adopted, Optional<RolloutProgress> rollout,
                    List<Instant> wakes) {

    PoolDecision {
        steps = List.copyOf(steps);
        awaitingSelection = List.copyOf(awaitingSelection);
        blockedDrains = List.copyOf(blockedDrains);
        adopted = List.copyOf(adopted);
        wakes = List.copyOf(wakes);
    }

    /**
     * Whether this decision, made from {@code status}, is the one a later plan would make from the same nodes, status
     * and turn until its first {@link #wakes() wake}: the pool does nothing (no step, nothing adopted, failed or
     * blocked), nothing of it is under way (no drain, update, restart or machine coming up) or unhealthy, and its wave
     * record is the one it had, so that the decision wrote no instant of its own into it. The planner's contract does
     * the rest: a plan changes by itself only at its wake time.
     */
    boolean reusable(PoolStatus status) {
        return steps.isEmpty() && adopted.isEmpty() && failed == 0 && blockedDrains.isEmpty() && !view.anyInFlight()
                && !view.phaseInFlight() && !view.anyKubeletRestart() && view.pendingCreation().length == 0
                && view.unhealthyNodes().isEmpty() && rollout.equals(status.rollout());
    }

    /** The first instant after {@code now} at which the decision changes by itself; {@link Instant#MAX} for none. */
    Instant validUntil(Instant now) {
        Instant until = Instant.MAX;
        for (Instant t : wakes) {
            if (t.isAfter(now) && t.isBefore(until)) {
                until = t;
            }
        }
        return until;
    }

    /**
     * Whether two statuses are the same for a decision: every field but those only the report reads and writes (the
     * outdated count and the progress clock, moved while a pool waits).
     */
    static boolean sameForDecision(PoolStatus a, PoolStatus b) {
        return a.validationStreak() == b.validationStreak() && a.paused() == b.paused()
                && a.lastTerminationAt().equals(b.lastTerminationAt()) && a.rollout().equals(b.rollout())
                && a.resumedAt().equals(b.resumedAt()) && a.usedForceTokens().equals(b.usedForceTokens());
    }
}
