package dev.nightshift.agent.http;

import dev.nightshift.agent.report.SpecErrorJson;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.agent.eta.EtaJson;
import dev.nightshift.agent.eta.PoolEstimate;
import dev.nightshift.agent.eta.RolloutEta;
import dev.nightshift.agent.git.CommitCheck;
import dev.nightshift.agent.health.EvictedWorkloads;
import dev.nightshift.agent.report.PoolTargetJson;
import dev.nightshift.agent.report.RolloutProgressJson;
import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.agent.reconcile.StepRefusal;
import dev.nightshift.agent.reconcile.NodeStates;
import dev.nightshift.agent.window.Upcoming;
import dev.nightshift.agent.window.Window;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.spec.model.Maintenance;
import dev.nightshift.spec.diff.PoolTarget;
import dev.nightshift.spec.load.SpecError;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolReport;

/** The body of {@code GET /status}: what the agent knows, as one JSON document. */
public final class StatusJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private StatusJson() {
    }

    /** Leader election as this replica sees it. */
    public record Leadership(boolean elected, boolean leading, String identity, Optional<String> leader) {
    }

    /**
     * @param revision   the commit accepted; shown until a reconcile reports, then the report's own
     *                   commit, which is the one its pools were planned for (a commit accepted in the
     *                   reconcile still running must not be shown beside the pools of the one before)
     * @param latest     the newest commit seen, which may be invalid
     * @param specErrors the errors of the newest commit, empty when it is valid
     */
    public static String write(Optional<String> revision, Optional<String> latest, List<SpecError> specErrors,
                               Optional<ReconcileReport> report, Optional<String> lastPollError, Leadership leadership) {
        return write(revision, latest, specErrors, report, lastPollError, leadership, Optional.empty());
    }

    /** @param verification what {@code git.verify} said of the newest commit; empty without {@code git.verify} */
    public static String write(Optional<String> revision, Optional<String> latest, List<SpecError> specErrors,
                               Optional<ReconcileReport> report, Optional<String> lastPollError, Leadership leadership,
                               Optional<CommitCheck> verification) {
        return write(revision, latest, specErrors, report, lastPollError, leadership, verification, Optional.empty());
    }

    /**
     * @param notifications each notification destination's queue, counts and last error ({@code notifications}); empty
     *                      when none is configured (then the key is left out)
     */
    public static String write(Optional<String> revision, Optional<String> latest, List<SpecError> specErrors,
                               Optional<ReconcileReport> report, Optional<String> lastPollError, Leadership leadership,
                               Optional<CommitCheck> verification, Optional<com.fasterxml.jackson.databind.JsonNode> notifications) {
        return write(revision, latest, specErrors, report, lastPollError, leadership, verification, notifications, pool -> Map.of());
    }

    /**
     * @param evicted each pool's workloads whose pods its drains evicted and that its {@code workloadsAvailable} check
     *                still follows, with their first eviction ({@code evictedWorkloads})
     */
    public static String write(Optional<String> revision, Optional<String> latest, List<SpecError> specErrors,
                               Optional<ReconcileReport> report, Optional<String> lastPollError, Leadership leadership,
                               Optional<CommitCheck> verification, Optional<com.fasterxml.jackson.databind.JsonNode> notifications,
                               Function<String, Map<EvictedWorkloads.Workload, Instant>> evicted) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode election = root.putObject("leaderElection");
        election.put("enabled", leadership.elected());
        election.put("leading", leadership.leading());
        election.put("identity", leadership.identity());
        election.put("leader", leadership.leader().orElse(leadership.leading() ? leadership.identity() : null));
        root.put("revision", report.filter(r -> r.plan() != null).map(ReconcileReport::revision).filter(r -> !r.isEmpty())
                .or(() -> revision).orElse(null));
        root.put("latestCommit", latest.orElse(null));
        root.put("specValid", specErrors.isEmpty());
        ArrayNode errors = root.putArray("specErrors");
        for (SpecError e : specErrors) {
            SpecErrorJson.put(errors.addObject(), e);
        }
        verification(root, verification);
        ArrayNode rejected = root.putArray("rejectedChanges");
        report.ifPresent(r -> r.rejected().forEach(rejected::add));
        ArrayNode notices = root.putArray("notices");
        report.ifPresent(r -> r.notices().forEach(notices::add));
        report.map(ReconcileReport::window).ifPresent(w -> window(root.putObject("window"), w));
        report.flatMap(ReconcileReport::calendar).ifPresentOrElse(c -> calendar(root.putObject("calendar"), c),
                () -> root.putNull("calendar"));
        List<PoolReport> byName = report.map(r -> r.plan() == null ? Map.<String, PoolReport>of() : r.plan().reports())
                .orElse(Map.of()).values().stream().sorted(Comparator.comparing(PoolReport::pool)).toList();
        inPlacePending(root.putObject("inPlaceUpdatesPending"), byName);
        ArrayNode pools = root.putArray("pools");
        byName.forEach(p -> pool(pools.addObject(), p, report.get().overdue().getOrDefault(p.pool(), 0),
                Optional.ofNullable(report.get().targets().get(p.pool())),
                report.get().updateFailures().stream().filter(f -> p.pool().equals(f.pool())).toList(),
                report.get().refusals().stream().filter(r -> p.pool().equals(r.pool())).toList(),
                Optional.ofNullable(report.get().providerFailures().get(p.pool())),
                report.get().eta(), report.get().nodeStates().getOrDefault(p.pool(), List.of()), evicted.apply(p.pool())));
        // Pools this agent leaves to another ({@code pools:} in its configuration): not in {@code pools}, named here.
        ArrayNode unmanaged = root.putArray("unmanagedPools");
        report.ifPresent(r -> new java.util.TreeMap<>(r.unmanaged()).forEach((pool, why) -> unmanaged.addObject().put("pool", pool).put("reason", why)));
        root.put("lastError", report.flatMap(ReconcileReport::error).or(() -> lastPollError).orElse(null));
        report.ifPresent(r -> root.put("lastReconcile", r.at().toString()));
        notifications.ifPresent(n -> root.set("notifications", n));
        return root.toPrettyString();
    }

    /** {@code commitVerification}: null without {@code git.verify}. */
    private static void verification(ObjectNode root, Optional<CommitCheck> check) {
        if (check.isEmpty()) {
            root.putNull("commitVerification");
            return;
        }
        CommitCheck c = check.get();
        ObjectNode o = root.putObject("commitVerification");
        o.put("mode", c.mode().label());
        o.put("commit", c.commit());
        o.put("verified", c.verified());
        o.put(c.verified() ? "signer" : "reason", c.detail());
        o.put("rewoundFrom", c.rewoundFrom().orElse(null));
        c.rewindNotice().ifPresent(n -> o.put("notice", n));
    }

    private static void window(ObjectNode o, WindowState w) {
        o.put("alwaysOpen", w.alwaysOpen());
        o.put("open", w.open());
        o.put("specRolloutAllowed", w.specRolloutAllowed());
        o.put("exclusionActive", w.exclusion().isPresent());
        w.exclusion().ifPresent(e -> o.put("exclusionReason", e.reason()));
        // A close beyond the calendar's horizon is null, as in `nightshift windows --output json`:
        // no date stands in for it.
        w.current().ifPresent(c -> o.put("currentCloses", c.close().map(Instant::toString).orElse(null)));
        w.next().ifPresent(n -> {
            o.put("nextOpens", n.open().toString());
            o.put("nextCloses", n.close().map(Instant::toString).orElse(null));
        });
    }

    /**
     * Pools whose outdated nodes are to be updated in place: those the agent goes on with by itself,
     * those (ManualInPlaceUpdate) with nodes that wait for a person to select them, and those it
     * never updates because node updates are off ({@code nodeUpdates.type: none}).
     */
    private static void inPlacePending(ObjectNode o, List<PoolReport> pools) {
        ArrayNode automatic = o.putArray("automatic");
        ArrayNode awaitingSelection = o.putArray("awaitingSelection");
        ArrayNode notExecuted = o.putArray("notExecuted");
        for (PoolReport p : pools) {
            if (p.pendingAction() == PendingAction.IN_PLACE) {
                boolean waitsForPerson = p.phase() == PoolPhase.AWAITING_SELECTION || !p.awaitingSelection().isEmpty();
                (p.phase() == PoolPhase.NODE_UPDATES_OFF ? notExecuted : waitsForPerson ? awaitingSelection : automatic).add(p.pool());
            }
        }
    }

    private static void health(ArrayNode into, List<PoolReport.NodeHealth> nodes) {
        for (PoolReport.NodeHealth h : nodes) {
            ObjectNode n = into.addObject();
            n.put("node", h.node());
            n.put("condition", h.condition());
            n.put("since", h.since().toString());
        }
    }

    private static void pool(ObjectNode o, PoolReport p, int outdatedPastWindow, Optional<PoolTarget> target,
                             List<ReconcileReport.UpdateFailure> updateFailures, List<StepRefusal> refusals, Optional<String> providerError,
                             Optional<RolloutEta.Estimate> estimate, List<NodeStates.NodeState> nodeStates,
                             Map<EvictedWorkloads.Workload, Instant> evicted) {
        o.put("pool", p.pool());
        o.put("phase", p.phase().name());
        o.put("pendingAction", p.pendingAction().name());
        o.put("nodes", p.count());
        o.put("current", p.current());
        o.put("outdated", p.outdated());
        o.put("updating", p.updating());
        o.put("failed", p.failed());
        o.put("outdatedPastWindow", outdatedPastWindow);
        o.put("progress", p.progress());
        o.put("maxSurge", p.resolvedMaxSurge());
        o.put("maxUnavailable", p.resolvedMaxUnavailable());
        o.put("progressing", p.progressing());
        if (!p.progressReason().isEmpty()) {
            o.put("progressReason", p.progressReason());
        }
        // Why a pool with work takes none now (issue 27): role-order, after, concurrency, cluster-budget or zone-repairs.
        p.waitingFor().ifPresentOrElse(w -> {
            ObjectNode n = o.putObject("waitingFor");
            n.put("reason", w.reason().label());
            n.put("pool", w.pool().orElse(null));
            n.put("detail", w.detail());
        }, () -> o.putNull("waitingFor"));
        // A rollout in waves: why it halted ({check, value, threshold, wave, at}; null when not halted), and where it stands.
        p.status().halt().ifPresentOrElse(h -> RolloutProgressJson.halt(o.putObject("healthFailure"), h), () -> o.putNull("healthFailure"));
        p.status().rollout().ifPresentOrElse(r -> {
            ObjectNode w = o.putObject("waves");
            w.put("wave", r.wave() + 1);
            w.put("outdatedAtStart", r.outdatedAtStart());
            w.put("soakStartedAt", r.waveAvailableAt().map(Instant::toString).orElse(null));
            w.put("checksUnknownSince", r.unknownSince().map(Instant::toString).orElse(null));
            ArrayNode failed = w.putArray("failedMachines");
            new java.util.TreeSet<>(r.failedMachines()).forEach(failed::add);
        }, () -> o.putNull("waves"));
        // What its workloadsAvailable check waits for (kept in the pool's record: the same after a restart); [] when nothing.
        o.set("evictedWorkloads", EvictedWorkloads.array(evicted));
        ArrayNode awaiting = o.putArray("awaitingSelection");
        p.awaitingSelection().forEach(awaiting::add);
        ArrayNode adopted = o.putArray("adopted");
        p.adopted().forEach(adopted::add);
        health(o.putArray("unhealthyNodes"), p.unhealthyNodes());
        health(o.putArray("failedNodes"), p.failedNodes());
        // In-place updates and kubelet restarts marked failed, with the node updater's reason (null when it gave none).
        ArrayNode failedUpdates = o.putArray("failedUpdates");
        for (ReconcileReport.UpdateFailure f : updateFailures) {
            failedUpdates.addObject().put("node", f.node()).put("reason", f.reason());
        }
        // The pool's own error: its machine provider failed in the last reconcile (held; the other pools went on).
        o.put("lastError", providerError.orElse(null));
        // Steps the last reconcile's guards refused (not executed), with the numbers: the pool kept its promises.
        ArrayNode refused = o.putArray("refusedSteps");
        for (StepRefusal r : refusals) {
            refused.addObject().put("step", r.step()).put("node", r.node()).put("reason", r.reason()).put("detail", r.detail());
        }
        ArrayNode blocked = o.putArray("blockedDrains");
        for (PoolReport.BlockedDrain b : p.blockedDrains()) {
            ObjectNode d = blocked.addObject();
            d.put("node", b.node());
            d.put("pod", b.eviction().pod());
            d.put("podDisruptionBudget", b.eviction().disruptionBudget());
            d.put("attempts", b.eviction().attempts());
        }
        // Why the pool's nodes change (kept, once carried out, until the next target): null before any commit was accepted.
        target.ifPresentOrElse(t -> PoolTargetJson.put(o.putObject("target"), t), () -> o.putNull("target"));
        eta(o, p, estimate);
        // Every machine of the pool in one state (failed, unhealthy, draining, updating, cordoned, outdated, current): the web view's grid.
        ArrayNode states = o.putArray("nodeStates");
        for (NodeStates.NodeState n : nodeStates) {
            states.addObject().put("node", n.node()).put("state", n.state().label());
        }
    }

    /**
     * The next two weeks of the calendar in force: {@code {"from", "until", "windows": [{"open", "openedBeforeLookBack", "close", "source"}],
     * "exclusions": [{"start", "end", "reason"}], "truncated"}}; a window's {@code close} is null beyond the calendar's horizon,
     * and {@code windows} is empty when the calendar is always open ({@code window.alwaysOpen}); a window already open at the start of
     * the calendar's look-back has that start as its {@code open} and {@code openedBeforeLookBack} true.
     */
    private static void calendar(ObjectNode o, Upcoming c) {
        o.put("from", c.from().toString());
        o.put("until", c.until().toString());
        ArrayNode windows = o.putArray("windows");
        for (Window w : c.windows()) {
            windows.addObject().put("open", w.open().toString()).put("openedBeforeLookBack", w.openedBeforeLookBack())
                    .put("close", w.close().map(Instant::toString).orElse(null)).put("source", w.source());
        }
        ArrayNode exclusions = o.putArray("exclusions");
        for (Maintenance.Exclusion e : c.exclusions()) {
            exclusions.addObject().put("start", e.start().toString()).put("end", e.end().toString()).put("reason", e.reason());
        }
        o.put("truncated", c.truncated());
    }

    /**
     * When the pool's outdated nodes are expected to be done ({@link EtaJson}); null when it has none,
     * or when the estimate leaves it out, with {@code etaLeftOut} saying why (paused, report-only,
     * ManualInPlaceUpdate, node updates off).
     */
    private static void eta(ObjectNode o, PoolReport p, Optional<RolloutEta.Estimate> estimate) {
        Optional<RolloutEta.Estimate> e = estimate.filter(x -> p.outdated() > 0);
        EtaJson.putPool(o, e.map(x -> PoolEstimate.of(p.pool(), x)).orElse(PoolEstimate.NONE));
    }
}
