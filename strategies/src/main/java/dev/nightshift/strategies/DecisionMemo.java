package dev.nightshift.strategies;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.nightshift.strategies.fleet.FleetSchedule;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.HealthVerdict;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.PoolPlan;

/**
 * The decisions ({@link PoolDecision}) and reports of pools that are waiting or done, kept from one plan to the next
 * by a {@link PlanMemo}: a fleet of hundreds of pools has few with a turn or work in flight, and the others decide
 * the same until their nodes, their status or their turn change, or one of their own timers comes.
 *
 * <ul>
 *   <li>A <b>decision</b> is kept when {@link PoolDecision#reusable}, and used again for the same node objects in the
 *       same order, a status the same but for the progress clock and outdated count (which only the report reads and
 *       writes), the turn granted or not as before, before its first {@link PoolDecision#wakes() wake}.</li>
 *   <li>Its <b>report</b> (and the pool's plan, and what it means for the fleet's turns) is kept when making it wrote
 *       nothing into the status, and used again for the same decision, status and turn (why the pool waits included)
 *       until the progress clock of a waiting pool is due to move ({@link RolloutPlanner#WAIT_REFRESH}) or the progress
 *       deadline passes.</li>
 * </ul>
 *
 * <p>Everything else a decision reads is the same for every pool (the desired cluster object, the maintenance state,
 * the control plane, health verdicts, the planner's node updates): when any of it changes, everything kept is
 * dropped. Only a cache: a plan made with it is the plan made without it.
 */
final class DecisionMemo {

    /** A pool's report made from a decision, its plan, its outcome for the turns after it, and its wake times. */
    record Reported(PoolPlan plan, FleetSchedule.Outcome outcome, List<Instant> wakes) {

        Reported {
            wakes = List.copyOf(wakes);
        }
    }

    /** A pool's decision and what it was made from: its nodes, its status, whether it had a turn, and when. */
    private record KeptDecision(ObservedNode[] nodes, PoolStatus status, boolean turn, PoolDecision decision, Instant at,
                                Instant until) {
    }

    /** A report made from a kept decision, and from what else. */
    private record KeptReport(PoolDecision decision, PoolStatus status, FleetSchedule.Turn turn, Reported reported, Instant at,
                              Instant until) {
    }

    private final Map<String, KeptDecision> decisions = new HashMap<>();
    private final Map<String, KeptReport> reports = new HashMap<>();
    /** What everything kept was made with. */
    private DesiredCluster desired;
    private NodeUpdates nodeUpdates;
    private MaintenanceState maintenance;
    private boolean controlPlaneReady;
    private Map<String, Boolean> controlPlaneNodes;
    private Map<String, HealthVerdict> health;

    /** Starts a plan: drops everything kept when what it was made with is not what this plan is made with. */
    void startPlan(DesiredCluster value, ObservedCluster observed, NodeUpdates updates) {
        if (value != desired || updates != nodeUpdates || !observed.maintenance().equals(maintenance)
                || observed.controlPlaneReady() != controlPlaneReady || !observed.controlPlaneNodes().equals(controlPlaneNodes)
                || !observed.health().equals(health)) {
            decisions.clear();
            reports.clear();
            desired = value;
            nodeUpdates = updates;
            maintenance = observed.maintenance();
            controlPlaneReady = observed.controlPlaneReady();
            controlPlaneNodes = observed.controlPlaneNodes();
            health = observed.health();
        }
    }

    /**
     * The decision kept for {@code pool} if it was made from exactly these node objects, in this order, and none of its
     * timers has come by {@code now}; null otherwise. Its status and turn are asked apart ({@link #sameInputs}), once
     * the turn is known.
     */
    PoolDecision keptFor(String pool, List<ObservedNode> nodes, Instant now) {
        KeptDecision kept = decisions.get(pool);
        if (kept == null || now.isBefore(kept.at()) || !now.isBefore(kept.until()) || kept.nodes().length != nodes.size()) {
            return null;
        }
        ObservedNode[] before = kept.nodes();
        for (int i = 0; i < before.length; i++) {
            if (before[i] != nodes.get(i)) {
                return null;
            }
        }
        return kept.decision();
    }

    /**
     * Whether the decision kept for {@code pool} was made from this status (for the decision's part) and with the turn
     * granted or not as now (why a pool waits is the report's).
     */
    boolean sameInputs(String pool, PoolStatus status, FleetSchedule.Turn turn) {
        KeptDecision kept = decisions.get(pool);
        return kept != null && PoolDecision.sameForDecision(kept.status(), status) && kept.turn() == turn.granted();
    }

    /** Keeps {@code decision}, made at {@code now} from these inputs, if it is one to keep; forgets the pool's otherwise. */
    void keep(String pool, List<ObservedNode> nodes, PoolStatus status, FleetSchedule.Turn turn, PoolDecision decision, Instant now) {
        if (decision.reusable(status)) {
            decisions.put(pool, new KeptDecision(nodes.toArray(new ObservedNode[0]), status, turn.granted(), decision, now,
                    decision.validUntil(now)));
        } else {
            decisions.remove(pool);
            reports.remove(pool);
        }
    }

    /** The report kept for {@code pool} if it was made from this very decision, this status and turn, and is due; else null. */
    Reported reportFor(String pool, PoolDecision decision, PoolStatus status, FleetSchedule.Turn turn, Instant now) {
        KeptReport kept = reports.get(pool);
        if (kept == null || kept.decision() != decision || now.isBefore(kept.at()) || !now.isBefore(kept.until())
                || !kept.status().equals(status) || !kept.turn().equals(turn)) {
            return null;
        }
        return kept.reported();
    }

    /**
     * Keeps the report made at {@code now} from a kept decision and these inputs, if making it wrote nothing into the
     * status (the progress clock, the outdated count): then the same inputs make the same report until {@code until}.
     */
    void keepReport(String pool, PoolDecision decision, PoolStatus status, FleetSchedule.Turn turn, Reported reported,
                    Instant now, Instant until) {
        KeptDecision kept = decisions.get(pool);
        if (kept != null && kept.decision() == decision && reported.plan().report().status().equals(status.withRollout(decision.rollout()))) {
            reports.put(pool, new KeptReport(decision, status, turn, reported, now, until));
        } else {
            reports.remove(pool);
        }
    }
}
