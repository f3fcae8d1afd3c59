package dev.nightshift.agent.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.agent.eta.RolloutEta;
import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.agent.window.Upcoming;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.spec.diff.PoolTarget;
import dev.nightshift.strategies.plan.Plan;

/**
 * What one reconcile saw and did: for logs, {@code /status}, metrics and the demo's screen.
 *
 * @param revision the commit whose specs were acted on
 * @param rejected why the newest commit was not taken, if it was not
 * @param notices  what else an operator should know: pools held by the version guard, emergency annotations
 * @param overdue  per pool, outdated nodes whose change was taken before the latest window ended: they missed it
 * @param updates  node updates that finished in this reconcile
 * @param drains   drains that finished in this reconcile
 * @param took     how long the reconcile ran
 * @param targets  each pool's target: what its nodes are brought to, from which commit, and why
 * @param updateFailures nodes whose in-place update or kubelet restart is marked failed, with the reason when the updater gave one
 * @param eta      what is left of the rollout, estimated from now: each pool with outdated nodes, or why it is left out
 * @param refusals steps of the plan a guard refused: they were not executed
 * @param providerFailures pools whose machine provider failed in this reconcile, with the error: held, the others went on
 * @param nodeStates each planned pool's machines, each in one state a person reads at a glance (the web view's grid)
 * @param calendar the accepted spec's windows and exclusions over the next two weeks (the web view's timeline)
 * @param unmanaged pools of the spec this agent does not act on ({@code pools:} in its configuration), with why
 */
public record ReconcileReport(Instant at, String revision, WindowState window, Plan plan,
                              List<StepExecutor.Outcome> outcomes, List<String> rejected, List<String> notices,
                              Map<String, Integer> overdue, List<NodeUpdate> updates, List<FinishedDrain> drains,
                              Duration took, Optional<String> error, Map<String, PoolTarget> targets,
                              List<UpdateFailure> updateFailures, Optional<RolloutEta.Estimate> eta, List<StepRefusal> refusals,
                              Map<String, String> providerFailures, Map<String, List<NodeStates.NodeState>> nodeStates,
                              Optional<Upcoming> calendar, Map<String, String> unmanaged) {

    /** Every pool managed. */
    public ReconcileReport(Instant at, String revision, WindowState window, Plan plan,
                           List<StepExecutor.Outcome> outcomes, List<String> rejected, List<String> notices,
                           Map<String, Integer> overdue, List<NodeUpdate> updates, List<FinishedDrain> drains,
                           Duration took, Optional<String> error, Map<String, PoolTarget> targets,
                           List<UpdateFailure> updateFailures, Optional<RolloutEta.Estimate> eta, List<StepRefusal> refusals,
                           Map<String, String> providerFailures, Map<String, List<NodeStates.NodeState>> nodeStates,
                           Optional<Upcoming> calendar) {
        this(at, revision, window, plan, outcomes, rejected, notices, overdue, updates, drains, took, error, targets, updateFailures,
                eta, refusals, providerFailures, nodeStates, calendar, Map.of());
    }

    /** A node whose update failed: it stays as it is until a person decides. */
    public record UpdateFailure(String pool, String node, String reason) {
    }

    public ReconcileReport {
        updateFailures = List.copyOf(updateFailures);
        outcomes = List.copyOf(outcomes);
        rejected = List.copyOf(rejected);
        notices = List.copyOf(notices);
        overdue = Map.copyOf(overdue);
        updates = List.copyOf(updates);
        drains = List.copyOf(drains);
        targets = Map.copyOf(targets);
        refusals = List.copyOf(refusals);
        providerFailures = Map.copyOf(providerFailures);
        nodeStates = Map.copyOf(nodeStates);
        unmanaged = Map.copyOf(unmanaged);
    }

    /** Without node states or calendar: what was seen of the nodes is only counted. */
    public ReconcileReport(Instant at, String revision, WindowState window, Plan plan,
                           List<StepExecutor.Outcome> outcomes, List<String> rejected, List<String> notices,
                           Map<String, Integer> overdue, List<NodeUpdate> updates, List<FinishedDrain> drains,
                           Duration took, Optional<String> error, Map<String, PoolTarget> targets,
                           List<UpdateFailure> updateFailures, Optional<RolloutEta.Estimate> eta, List<StepRefusal> refusals,
                           Map<String, String> providerFailures) {
        this(at, revision, window, plan, outcomes, rejected, notices, overdue, updates, drains, took, error, targets, updateFailures,
                eta, refusals, providerFailures, Map.of(), Optional.empty());
    }

    /** A pass that planned and did nothing else: no outcomes, refusals, notices, updates, targets or estimate. */
    public static ReconcileReport planned(Instant at, String revision, WindowState window, Plan plan) {
        return new ReconcileReport(at, revision, window, plan, List.of(), List.of(), List.of(), Map.of(), List.of(), List.of(),
                Duration.ZERO, Optional.empty(), Map.of(), List.of(), Optional.empty(), List.of(), Map.of());
    }

    public ReconcileReport withOutcomes(List<StepExecutor.Outcome> outcomes) {
        return new ReconcileReport(at, revision, window, plan, outcomes, rejected, notices, overdue, updates, drains, took, error,
                targets, updateFailures, eta, refusals, providerFailures, nodeStates, calendar, unmanaged);
    }

    public ReconcileReport withRejected(List<String> rejected) {
        return new ReconcileReport(at, revision, window, plan, outcomes, rejected, notices, overdue, updates, drains, took, error,
                targets, updateFailures, eta, refusals, providerFailures, nodeStates, calendar, unmanaged);
    }

    public ReconcileReport withOverdue(Map<String, Integer> overdue) {
        return new ReconcileReport(at, revision, window, plan, outcomes, rejected, notices, overdue, updates, drains, took, error,
                targets, updateFailures, eta, refusals, providerFailures, nodeStates, calendar, unmanaged);
    }

    public ReconcileReport withFinished(List<NodeUpdate> updates, List<FinishedDrain> drains) {
        return new ReconcileReport(at, revision, window, plan, outcomes, rejected, notices, overdue, updates, drains, took, error,
                targets, updateFailures, eta, refusals, providerFailures, nodeStates, calendar, unmanaged);
    }

    public ReconcileReport withTook(Duration took) {
        return new ReconcileReport(at, revision, window, plan, outcomes, rejected, notices, overdue, updates, drains, took, error,
                targets, updateFailures, eta, refusals, providerFailures, nodeStates, calendar, unmanaged);
    }

    public ReconcileReport withRefusals(List<StepRefusal> refusals) {
        return new ReconcileReport(at, revision, window, plan, outcomes, rejected, notices, overdue, updates, drains, took, error,
                targets, updateFailures, eta, refusals, providerFailures, nodeStates, calendar, unmanaged);
    }

    public ReconcileReport withProviderFailures(Map<String, String> providerFailures) {
        return new ReconcileReport(at, revision, window, plan, outcomes, rejected, notices, overdue, updates, drains, took, error,
                targets, updateFailures, eta, refusals, providerFailures, nodeStates, calendar, unmanaged);
    }

    public ReconcileReport withEstimate(RolloutEta.Estimate estimate) {
        return new ReconcileReport(at, revision, window, plan, outcomes, rejected, notices, overdue, updates, drains, took, error,
                targets, updateFailures, Optional.of(estimate), refusals, providerFailures, nodeStates, calendar, unmanaged);
    }

    public ReconcileReport withUnmanaged(Map<String, String> unmanaged) {
        return new ReconcileReport(at, revision, window, plan, outcomes, rejected, notices, overdue, updates, drains, took, error,
                targets, updateFailures, eta, refusals, providerFailures, nodeStates, calendar, unmanaged);
    }

    /** A reconcile that failed before it could plan. */
    public static ReconcileReport failed(Instant at, String revision, List<String> rejected, Duration took, String error) {
        return new ReconcileReport(at, revision, null, null, List.of(), rejected, List.of(), Map.of(), List.of(), List.of(), took,
                Optional.of(error), Map.of(), List.of(), Optional.empty(), List.of(), Map.of());
    }
}
