package dev.nightshift.strategies;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.spec.model.Taint;
import dev.nightshift.strategies.fleet.FleetSchedule;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.NodesByPool;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolPlan;
import dev.nightshift.strategies.plan.PoolReport;
import dev.nightshift.strategies.plan.Step;

/**
 * The level-triggered rollout planner: from the desired state and what is observed now, the next
 * safe steps. It keeps no memory between calls; everything a timer or counter needs is in the
 * observed state, so a crash or a leader change resumes cleanly.
 *
 * <p>Pools take turns as the fleet's schedule allows ({@link FleetSchedule}): one at a time by default, bastions first,
 * then control planes, apiservers and nodes, by name within a role; {@code rollout.concurrency.pools} at once within a
 * role, and {@code rollout.after}, where the cluster's spec says so. Adoption, re-stamping and label/annotation/taint propagation happen in every pool at once:
 * they disrupt nothing. Failed nodes are repaired in every pool, before its outdated nodes.
 */
public final class RolloutPlanner {

    public static final String PROGRESS_DEADLINE_EXCEEDED = "ProgressDeadlineExceeded";
    /** How stale the progress clock of a waiting pool may get before it is moved to now. */
    static final Duration WAIT_REFRESH = Duration.ofMinutes(1);

    private final NodeUpdates nodeUpdates;

    /** With node updates carried out. */
    public RolloutPlanner() {
        this(NodeUpdates.ON);
    }

    public RolloutPlanner(NodeUpdates nodeUpdates) {
        this.nodeUpdates = nodeUpdates;
    }

    /** Whether this planner carries out node updates (in-place updates, kubelet restarts). */
    public NodeUpdates nodeUpdates() {
        return nodeUpdates;
    }

    public Plan plan(DesiredCluster desired, ObservedCluster observed, Instant now) {
        return planWithAccounts(desired, observed, now).plan();
    }

    /**
     * A plan, and each pool's accounting as the plan made it (its machines, size and available
     * nodes before the plan's steps), for those who measure a rollout from outside.
     */
    public record Planned(Plan plan, Map<String, PoolAccount> accounts) {

        public Planned {
            accounts = Map.copyOf(accounts);
        }
    }

    /** {@link #plan}, with each pool's accounting. */
    public Planned planWithAccounts(DesiredCluster desired, ObservedCluster observed, Instant now) {
        return planWithAccounts(desired, observed, now, null);
    }

    /**
     * {@link #planWithAccounts(DesiredCluster, ObservedCluster, Instant)} for a caller that plans
     * again and again: the nodes observed as the same objects as in the previous plan made with
     * {@code memo} are not judged again, and a pool waiting or done whose nodes, status and turn are
     * those of an earlier plan is not decided again ({@link DecisionMemo}). The same plan as without it.
     */
    public Planned planWithAccounts(DesiredCluster desired, ObservedCluster observed, Instant now, PlanMemo memo) {
        Map<String, PoolAccount> accounts = new HashMap<>(desired.pools().size() * 2);
        List<PoolPlan> pools = new ArrayList<>(desired.pools().size());
        List<Instant> wakeTimes = new ArrayList<>();
        // Each pool's nodes picked out in one walk of the cluster's, in the order observed: a fleet has hundreds of pools.
        List<DesiredPool> desiredPools = desired.pools();
        List<List<ObservedNode>> byPool = memo == null ? NodesByPool.of(desiredPools, observed.nodes())
                : memo.nodesByPool().group(desiredPools, observed.nodes());
        DecisionMemo decisions = memo == null ? null : memo.decisions();
        if (decisions != null) {
            decisions.startPlan(desired, observed, nodeUpdates);
        }
        int size = desiredPools.size();
        PoolView[] views = new PoolView[size];
        PoolDecision[] kept = new PoolDecision[size];
        List<FleetSchedule.Candidate> candidates = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            DesiredPool pool = desiredPools.get(i);
            // A pool waiting or done, with the nodes its kept decision was made from: no view to make unless its status
            // or turn changed.
            PoolDecision decision = decisions == null ? null : decisions.keptFor(pool.name(), byPool.get(i), now);
            PoolView view;
            if (decision != null) {
                kept[i] = decision;
                view = decision.view();
            } else {
                view = PoolView.ofOwn(pool, byPool.get(i), now, memo);
                views[i] = view;
            }
            candidates.add(new FleetSchedule.Candidate(pool.name(), pool.spec().pool().role(), pool.spec().pool().after(),
                    inProgress(view)));
        }
        // The fleet's turns, pool by pool in the order the pools roll (the desired cluster's order is the schedule's).
        FleetSchedule schedule = FleetSchedule.inOrder(desired.cluster().concurrency().pools(), candidates);
        for (int i = 0; i < size; i++) {
            planPool(desired, observed, desiredPools.get(i), byPool.get(i), views[i], kept[i], schedule, now, decisions, memo, accounts,
                    pools, wakeTimes);
        }
        Optional<Instant> wakeAt = wakeTimes.stream().filter(t -> t.isAfter(now)).min(Instant::compareTo);
        return new Planned(new Plan(pools, wakeAt), accounts);
    }

    /**
     * One pool's part of a plan, in the fleet's order: its turn, its decision ({@code kept} when there is one to use
     * again, else made from {@code view}, or from a view made now when the pool had a kept decision and no view), its
     * report; settled in {@code schedule} for the pools after it.
     */
    private void planPool(DesiredCluster desired, ObservedCluster observed, DesiredPool pool, List<ObservedNode> nodes, PoolView view,
                          PoolDecision kept, FleetSchedule schedule, Instant now, DecisionMemo decisions, PlanMemo memo,
                          Map<String, PoolAccount> accounts, List<PoolPlan> pools, List<Instant> wakeTimes) {
        String name = pool.name();
        PoolStatus status = observed.status(name);
        FleetSchedule.Turn turn = schedule.turn(name);
        PoolDecision decision = kept;
        if (decision == null || !decisions.sameInputs(name, status, turn)) {
            decision = decide(desired, observed, view != null ? view : PoolView.ofOwn(pool, nodes, now, memo), status, turn.granted(), now);
            if (decisions != null) {
                decisions.keep(name, nodes, status, turn, decision, now);
            }
        }
        DecisionMemo.Reported reported = decisions == null ? null : decisions.reportFor(name, decision, status, turn, now);
        if (reported == null) {
            List<Instant> reportWakes = new ArrayList<>(1);
            PoolReport report = report(decision, status.withRollout(decision.rollout()), now, reportWakes);
            FleetSchedule.Outcome outcome = outcome(decision.phase(), report, decision.view());
            Instant until = reportUntil(decision, report);
            if (decision.phase() == PoolPhase.WAITING_FOR_TURN) {
                report = report.withWaitingFor(turn.waiting());
            }
            reported = new DecisionMemo.Reported(new PoolPlan(name, decision.steps(), report), outcome, reportWakes);
            if (decisions != null) {
                decisions.keepReport(name, decision, status, turn, reported, now, until);
            }
        }
        accounts.put(name, decision.account());
        wakeTimes.addAll(decision.wakes());
        wakeTimes.addAll(reported.wakes());
        schedule.settle(name, turn, reported.outcome(), decision.phase().name());
        pools.add(reported.plan());
    }

    /** One pool's steps and phase, given its turn; its report is made from them ({@link #report}). */
    private PoolDecision decide(DesiredCluster desired, ObservedCluster observed, PoolView view, PoolStatus status, boolean myTurn,
                                Instant now) {
        DesiredPool pool = view.desired();
        List<Instant> wakeTimes = new ArrayList<>();
        PlanSink sink = new PlanSink(pool.name());
        List<String> adopted = stampAndPropagate(view, sink);

        boolean rollWork = view.anyOutdated();
        boolean kubeletWork = !rollWork && view.anyKubeletOutdated();
        // Changes that need a node update, when nothing updates nodes: reported, never executed.
        boolean notExecuted = nodeUpdates == NodeUpdates.OFF
                && (kubeletWork || (rollWork && view.spec().updateStrategy().inPlace()));
        boolean reportOnly = rollWork && !view.spec().drainAndTerminate() && !notExecuted;
        boolean healthy = healthy(view, observed);
        // Waived only by a run by hand that was told to go on (rolling-update --fail-on-validate-error=false).
        boolean validated = healthy && status.validationStreak() >= desired.validationsRequired()
                || desired.validationWaived().contains(pool.name());
        Optional<Instant> intervalEnd = status.lastTerminationAt().map(t -> t.plus(view.spec().interval()))
                .filter(t -> t.isAfter(now));
        intervalEnd.ifPresent(wakeTimes::add);
        StartGate selected = node -> myTurn && !status.paused() && windowAllows(observed.maintenance(), view, node);
        // A pool short of its minimum is refilled first (a repair: no window, turn or streak; a pause or an
        // exclusion stops it); meanwhile nothing new is disrupted in it.
        int shortfall = desired.refillsPools() ? Refills.shortfall(view) : 0;
        // Waves, soak, health checks and maxFailedMachines narrow the gate; a halted pool starts, retires and refills nothing.
        Waves.Decision waves = Waves.judge(view, status, observed.health(pool.name()), now);
        waves.wake().ifPresent(wakeTimes::add);
        StartGate gate = waves.limit(node -> selected.allows(node) && validated && intervalEnd.isEmpty() && shortfall == 0);

        // Repairs are not updates: no window, turn or validation streak; a pause or an exclusion stops them.
        // They need the control plane Ready, the node under repair aside; control-plane nodes,
        // by the pool's role or by the cluster's label, go one at a time and only while every other one is Ready.
        boolean repairsAllowed = !status.paused() && !observed.maintenance().exclusionActive() && !Repairs.tooManyUnhealthy(view);
        boolean controlPlaneNodes = view.controlPlane()
                || (!observed.controlPlaneNodes().isEmpty()
                    && view.nodes().stream().anyMatch(n -> observed.controlPlaneNodes().containsKey(n.name())));
        Repairs.plan(view, controlPlaneNodes, node -> repairsAllowed && observed.controlPlaneReadyBesides(node.name())
                && (!controlPlaneNodes || otherControlPlaneNodesReady(desired, observed, node)), sink);
        if (shortfall > 0 && !status.paused() && !observed.maintenance().exclusionActive() && !waves.halted()) {
            Refills.plan(view, shortfall, sink);
        }

        // Work in flight is always carried on, so that no node is left cordoned or half-drained.
        boolean nodesInFlight = view.anyInFlight();
        boolean restartsInFlight = view.anyKubeletRestart();
        if (notExecuted) {
            // Work started before node updates were turned off is finished or released, never continued.
            NodeUpdatesOff.release(view, sink);
        } else {
            if (!reportOnly && (rollWork || nodesInFlight)) {
                planner(view).plan(view, gate, sink);
            }
            if (!rollWork && (kubeletWork || restartsInFlight)) {
                KubeletRestarts.plan(view, gate, sink);
            }
        }
        if (!waves.halted()) {
            retireCreationTimeouts(view, sink, wakeTimes);
        }
        cleanUpCurrentNodes(view, sink);
        taints(view, reportOnly ? node -> true : notExecuted ? node -> false : selected, sink);
        boolean wantsToStart = (rollWork || kubeletWork) && !reportOnly && !notExecuted && myTurn && !status.paused()
                && view.nodes().stream().anyMatch(selected::allows);
        // Asked for healthy or not: an unhealthy check ends the streak, so the N checks are consecutive. A streak
        // complete before the cluster went unhealthy is checked again too: the unhealthy check ends it, and N
        // consecutive checks are needed once the cluster is healthy again (as kops's validate-count), not none.
        if (wantsToStart && (status.validationStreak() < desired.validationsRequired() || !healthy)) {
            sink.add(new Step.Validate(pool.name()));
        }

        PoolPhase phase = phase(view, status, sink, rollWork, kubeletWork, reportOnly, notExecuted, myTurn, validated,
                selected, observed.maintenance());
        if (waves.halted() && (phase == PoolPhase.UPDATING || phase == PoolPhase.FAILED || phase == PoolPhase.WAITING_FOR_WINDOW
                || phase == PoolPhase.WAITING_FOR_VALIDATION)) {
            phase = PoolPhase.HALTED;
        }
        view.nextTimer().ifPresent(wakeTimes::add);
        return new PoolDecision(view, PoolAccount.of(view), sink.steps, sink.failed.size(), sink.awaitingSelection,
                sink.blockedDrains, phase, adopted, waves.next(), wakeTimes);
    }

    /**
     * A pool's rollout has started and is not over: work of ours in flight, or some nodes at the target while others
     * are not. It keeps its turn in the fleet ({@link FleetSchedule}).
     */
    private static boolean inProgress(PoolView view) {
        return view.phaseInFlight() || view.anyKubeletRestart() || (view.anyOutdated() && view.canaryPassed());
    }

    /** What a pool's plan means for the pools after it: kept as the single turn of old was taken or left. */
    private static FleetSchedule.Outcome outcome(PoolPhase phase, PoolReport report, PoolView view) {
        return switch (phase) {
            // Machines asked for and not up yet (a bastion's until Ready, another's until registered): still settling.
            case CURRENT -> view.phaseInFlight() || view.pendingCreation().length > 0 ? FleetSchedule.Outcome.SETTLING
                    : report.failed() == 0 && report.unhealthyNodes().isEmpty() ? FleetSchedule.Outcome.DONE : FleetSchedule.Outcome.FREE;
            case REPORT_ONLY, AWAITING_SELECTION, NODE_UPDATES_OFF -> FleetSchedule.Outcome.FREE;
            case FAILED, PAUSED, HALTED -> FleetSchedule.Outcome.HELD;
            case WAITING_FOR_TURN -> FleetSchedule.Outcome.WAITING;
            case UPDATING, RESTARTING_KUBELETS, WAITING_FOR_WINDOW, WAITING_FOR_VALIDATION -> FleetSchedule.Outcome.ACTIVE;
        };
    }

    private static NodeUpdatePlanner planner(PoolView view) {
        return switch (view.spec().updateStrategy()) {
            case AutoRollingUpdate -> new RollingReplacement();
            case Replace -> new ReplaceAll();
            case AutoInPlaceUpdate, ManualInPlaceUpdate -> new InPlaceUpdate();
        };
    }

    /** Spec changes wait for {@code specRolloutAllowed}; needs-update marks for {@code selfInitiatedAllowed}. */
    private static boolean windowAllows(MaintenanceState maintenance, PoolView view, ObservedNode node) {
        if (maintenance.specRolloutAllowed() && maintenance.selfInitiatedAllowed()) {
            // Both kinds of work may start: the node does not matter.
            return true;
        }
        if (view.spec().rolloutOutsideWindow() && !maintenance.exclusionActive()) {
            return true;
        }
        boolean selfInitiated = node.needsUpdate() && !view.hashOutdated(node) && !view.kubeletOutdated(node);
        return selfInitiated ? maintenance.selfInitiatedAllowed() : maintenance.specRolloutAllowed();
    }

    /**
     * What a validation checks: the pool's own registered nodes (leaving ones aside) and the control
     * plane are Ready; other pools do not count; a bastion has no node to check.
     */
    public static boolean healthy(DesiredPool pool, ObservedCluster observed, Instant now) {
        // Every registered node Ready: healthy whatever the pool's health rules say, without judging each node.
        String name = pool.name();
        List<ObservedNode> notReady = observed.nodes().stream()
                .filter(n -> n.registered() && !n.terminating() && !n.ready() && n.pool().equals(name)).toList();
        if (notReady.isEmpty()) {
            return observed.controlPlaneReady();
        }
        // Whether a node failed depends on that node alone: the pool's other nodes (Ready) need no judging.
        return healthy(new PoolView(pool, notReady, now), observed);
    }

    private static boolean healthy(PoolView view, ObservedCluster observed) {
        if (!observed.controlPlaneReady()) {
            return false;
        }
        // A failed node is being repaired: it does not hold the pool's validation back.
        return view.bastion() || view.registeredNodesReady();
    }

    /**
     * A control-plane node is repaired only while every other control-plane node is Ready: those of
     * every control-plane pool, and those the cluster labels control-plane, in a pool or not.
     */
    private static boolean otherControlPlaneNodesReady(DesiredCluster desired, ObservedCluster observed, ObservedNode node) {
        boolean labelled = observed.controlPlaneNodes().entrySet().stream()
                .filter(e -> !e.getKey().equals(node.name())).allMatch(Map.Entry::getValue);
        return labelled && desired.pools().stream().filter(p -> p.spec().pool().role() == PoolRole.CONTROL_PLANE)
                .flatMap(p -> observed.nodesOf(p.name()).stream())
                .filter(n -> n.registered() && !n.terminating() && !n.name().equals(node.name()))
                .allMatch(ObservedNode::ready);
    }

    private static List<String> stampAndPropagate(PoolView view, PlanSink sink) {
        List<String> adopted = new ArrayList<>();
        DesiredPool pool = view.desired();
        Map<String, String> labels = pool.labels();
        Map<String, String> annotations = pool.annotations();
        List<Taint> taints = view.spec().taints();
        // Only the nodes the view found needing either: the others need neither.
        for (int i : view.stampOrPropagate()) {
            ObservedNode node = view.nodes().get(i);
            if (view.needsStamp(node)) {
                boolean adopt = node.rollHash().isEmpty();
                if (adopt) {
                    adopted.add(node.name());
                }
                sink.add(new Step.Stamp(node.name(), sink.pool, pool.rollHash(), pool.kubeletHash(), adopt));
            }
            if (node.registered() && !view.bastion()) {
                if (!labels.equals(node.managedLabels()) || !annotations.equals(node.managedAnnotations())
                        || !taints.equals(node.managedTaints())) {
                    sink.add(new Step.Propagate(node.name(), sink.pool, labels, annotations, taints));
                }
            }
        }
        return adopted;
    }

    /** A machine that did not register within creationTimeout is deleted; the provider tries again. */
    private static void retireCreationTimeouts(PoolView view, PlanSink sink, List<Instant> wakeTimes) {
        Duration timeout = view.spec().machineControllerManager().creationTimeout();
        for (int i : view.pendingCreation()) {
            ObservedNode node = view.nodes().get(i);
            boolean pending = view.bastion() ? !node.ready() : !node.registered();
            if (!pending || node.createdAt().isEmpty() || view.outdated(node)) {
                continue;
            }
            Instant deadline = node.createdAt().get().plus(timeout);
            if (deadline.isAfter(view.now())) {
                wakeTimes.add(deadline);
            } else {
                sink.failed.add(node.name());
                sink.add(new Step.DeleteMachine(node.name(), view.desired().name(), !view.hasLivePartner(node),
                        view.desired()));
            }
        }
    }

    /** A node that runs the desired spec again (the target was reverted) is released from its drain. */
    private static void cleanUpCurrentNodes(PoolView view, PlanSink sink) {
        for (int i : view.inFlightNodes()) {
            ObservedNode node = view.nodes().get(i);
            if (node.draining() && view.current(node) && !node.updatingInPlace() && node.rollHash().isPresent()
                    && !view.failed(node)) {
                sink.add(new Step.Uncordon(node.name(), sink.pool));
            }
        }
    }

    /**
     * Outdated nodes selected for update carry the PreferNoSchedule taint; a node no longer selected
     * (current again, window closed, paused, not the pool's turn) loses it unless it is in flight.
     */
    private static void taints(PoolView view, StartGate selected, PlanSink sink) {
        if (view.bastion()) {
            return;
        }
        // Taints go first, the last node's first (as if each were put in front of the others).
        List<Step> taintsFirst = new ArrayList<>();
        List<ObservedNode> nodes = view.nodes();
        // Registered nodes that are neither outdated nor tainted are left alone: only the others are visited.
        for (int i : view.taintCandidates()) {
            if (!view.registered(i)) {
                continue;
            }
            ObservedNode node = nodes.get(i);
            boolean wanted = view.outdated(i) && !view.failed(node) && selected.allows(node);
            if (wanted && !view.updateTainted(i)) {
                taintsFirst.add(new Step.Taint(node.name(), sink.pool));
            } else if (!wanted && view.updateTainted(i) && !(view.outdated(i) && view.inFlight(i))) {
                sink.add(new Step.Untaint(node.name(), sink.pool));
            }
        }
        Collections.reverse(taintsFirst);
        sink.steps.addAll(0, taintsFirst);
    }

    private static PoolPhase phase(PoolView view, PoolStatus status, PlanSink sink, boolean rollWork, boolean kubeletWork,
                                   boolean reportOnly, boolean notExecuted, boolean myTurn, boolean validated,
                                   StartGate selected, MaintenanceState maintenance) {
        // Ours in flight: drains, in-place updates, restarts, and new machines not registered yet.
        boolean inFlight = view.phaseInFlight();
        if (!rollWork && !kubeletWork) {
            return PoolPhase.CURRENT;
        }
        if (reportOnly) {
            return PoolPhase.REPORT_ONLY;
        }
        if (notExecuted) {
            return PoolPhase.NODE_UPDATES_OFF;
        }
        if (!sink.failed.isEmpty()) {
            return PoolPhase.FAILED;
        }
        if (status.paused()) {
            return PoolPhase.PAUSED;
        }
        if (!myTurn) {
            return PoolPhase.WAITING_FOR_TURN;
        }
        if (!inFlight && view.nodes().stream().noneMatch(selected::allows)) {
            return PoolPhase.WAITING_FOR_WINDOW;
        }
        if (!inFlight && !validated) {
            return PoolPhase.WAITING_FOR_VALIDATION;
        }
        if (!inFlight && !sink.awaitingSelection.isEmpty()
                && view.outdatedNodes().stream().noneMatch(ObservedNode::selectedForUpdate)) {
            return PoolPhase.AWAITING_SELECTION;
        }
        return kubeletWork ? PoolPhase.RESTARTING_KUBELETS : PoolPhase.UPDATING;
    }

    private static PoolReport report(PoolDecision decision, PoolStatus status, Instant now, List<Instant> wakeTimes) {
        PoolView view = decision.view();
        PoolPhase phase = decision.phase();
        PoolView.Tally tally = view.tally();
        int outdated = tally.outdated();
        int current = tally.current();
        int updating = tally.updating();
        boolean roll = tally.roll();
        boolean kubelet = tally.kubelet();
        boolean waiting = waiting(phase);
        Optional<Instant> lastProgress = status.lastProgressAt();
        boolean waitRefresh = waiting && lastProgress.filter(t -> t.plus(WAIT_REFRESH).isAfter(now)).isEmpty();
        if (outdated < status.outdatedNodes() || (status.outdatedNodes() == 0 && outdated > 0) || waitRefresh
                || lastProgress.isEmpty()) {
            // Progress, a new rollout, or a wait that is not the rollout's fault: the deadline starts
            // again. While waiting, the clock is moved at most once a minute, so that the status
            // record is not rewritten on every reconcile.
            lastProgress = Optional.of(now);
        }
        Instant deadline = lastProgress.get().plus(view.desired().spec().progressDeadline());
        boolean progressing = outdated == 0 || deadline.isAfter(now);
        if (outdated > 0 && progressing) {
            wakeTimes.add(deadline);
        }
        PoolStatus next = status.withProgress(outdated, lastProgress);
        List<PoolReport.NodeHealth> failedNodes = view.failedNodes();
        List<PoolReport.NodeHealth> unhealthyNodes = failedNodes.isEmpty() ? view.unhealthyNodes()
                : view.unhealthyNodes().stream().filter(h -> !failedNodes.contains(h)).toList();
        PendingAction pending = roll ? (view.spec().updateStrategy().inPlace() ? PendingAction.IN_PLACE : PendingAction.ROLL)
                : kubelet ? PendingAction.KUBELET_RESTART : PendingAction.NONE;
        return new PoolReport(view.desired().name(), phase, pending, view.count(), current, outdated, updating,
                decision.failed() + failedNodes.size(), view.maxSurge(), view.maxUnavailable(), progressing,
                progressing ? "" : PROGRESS_DEADLINE_EXCEEDED, decision.adopted(), decision.awaitingSelection(),
                decision.blockedDrains(), next, unhealthyNodes, failedNodes);
    }

    /** A phase in which the pool waits for something that is not the rollout's fault: its progress clock moves. */
    private static boolean waiting(PoolPhase phase) {
        return phase == PoolPhase.PAUSED || phase == PoolPhase.WAITING_FOR_TURN
                || phase == PoolPhase.WAITING_FOR_WINDOW || phase == PoolPhase.AWAITING_SELECTION
                || phase == PoolPhase.REPORT_ONLY || phase == PoolPhase.NODE_UPDATES_OFF;
    }

    /**
     * Until when a report that moved nothing in the status ({@link #report}) is the report of the same decision, status
     * and turn: the progress clock of a waiting pool moves {@link #WAIT_REFRESH} after it last did, and the pool stops
     * progressing at its deadline.
     */
    private static Instant reportUntil(PoolDecision decision, PoolReport report) {
        Instant until = Instant.MAX;
        Optional<Instant> lastProgress = report.status().lastProgressAt();
        if (lastProgress.isEmpty()) {
            return until;
        }
        if (waiting(decision.phase())) {
            until = lastProgress.get().plus(WAIT_REFRESH);
        }
        Instant deadline = lastProgress.get().plus(decision.view().desired().spec().progressDeadline());
        if (report.outdated() > 0 && report.progressing() && deadline.isBefore(until)) {
            until = deadline;
        }
        return until;
    }
}
