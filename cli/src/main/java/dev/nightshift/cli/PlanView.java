package dev.nightshift.cli;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.agent.eta.EtaJson;
import dev.nightshift.agent.eta.PoolEstimate;
import dev.nightshift.agent.eta.RolloutEta;
import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.agent.report.RolloutProgressJson;
import dev.nightshift.agent.report.PoolTargetJson;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.spec.diff.InPlaceHistory;
import dev.nightshift.spec.diff.PoolTarget;
import dev.nightshift.spec.load.CanonicalYaml;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolPlan;
import dev.nightshift.strategies.plan.PoolReport;
import dev.nightshift.strategies.plan.Step;
import io.fabric8.kubernetes.api.model.ConfigMap;

/**
 * What {@code nightshift plan} shows for each pool, as a table for people and as JSON for tools:
 * the same rows in both.
 */
final class PlanView {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int REASONS_SHOWN = 3;

    private PlanView() {
    }

    /**
     * One pool's row.
     *
     * @param target  the pool's target if the agent took this spec; empty when the pool's record holds no accepted spec
     * @param steps   the next steps, by node, in plan order
     * @param blocked what holds the pool's update back
     * @param eta     for a pool with outdated nodes, when they are expected to be done (the pools
     *                before it in role order first), or why it is left out of the estimate
     * @param waves   how the pool rolls when in waves ({@link WavesLine}); empty for the default canary
     * @param held    the pool held where a rollback brought it, the spec offering the revision it refused; empty otherwise
     */
    record PoolRow(String pool, String strategy, PoolPhase phase, PoolReport report, Optional<Instant> nextWindow, String window,
                   Optional<PoolTarget> target, Map<String, List<String>> steps, List<String> blocked, PoolEstimate eta,
                   Optional<String> waves, Optional<HeldPool> held) {
    }

    /**
     * The target the agent would have with this spec: the same {@link PoolTarget#next} it calls, from
     * the pool's record (its target, the spec it was last fully current at, the spec it accepted).
     * A target this spec does not change keeps its commit; a new one has none yet (empty revision).
     */
    static Optional<PoolTarget> target(Optional<ConfigMap> record, ResolvedPool offered) {
        if (record.isEmpty()) {
            return Optional.empty();
        }
        Optional<PoolStatusRecords.Accepted> accepted = PoolStatusRecords.accepted(record.get());
        PoolStatusRecords.Why why = PoolStatusRecords.why(record.get());
        Optional<PoolStatusRecords.Accepted> baseline = why.fullyCurrent().or(() -> accepted);
        Optional<ResolvedPool> base = baseline.flatMap(PlanView::read);
        if (base.isEmpty()) {
            return why.target();
        }
        boolean current = why.fullyCurrent().isPresent() && accepted.isPresent()
                && why.fullyCurrent().get().cluster().equals(accepted.get().cluster())
                && why.fullyCurrent().get().pool().equals(accepted.get().pool());
        return Optional.of(PoolTarget.next(why.target(), base, current, "", offered, InPlaceHistory.Entry.CLEAN));
    }

    static Optional<ResolvedPool> read(PoolStatusRecords.Accepted texts) {
        LoadResult loaded = CanonicalYaml.read(texts.cluster(), texts.pool());
        if (!loaded.valid() || loaded.specs().pools().size() != 1) {
            return Optional.empty();
        }
        WorkerPoolSpec spec = loaded.specs().pools().get(0);
        return loaded.specs().cluster(spec.cluster()).map(c -> new ResolvedPool(c, spec));
    }

    static PoolRow row(DesiredPool pool, PoolPlan plan, WindowState window, Optional<PoolTarget> target, RolloutEta.Estimate estimate,
                       Optional<HeldPool> held) {
        PoolReport r = plan.report();
        Map<String, List<String>> steps = new LinkedHashMap<>();
        for (Step s : plan.steps()) {
            steps.computeIfAbsent(s instanceof Step.Validate ? "(pool)" : s.target(), k -> new ArrayList<>()).add(name(s));
        }
        List<String> blocked = new ArrayList<>();
        r.blockedDrains().forEach(d -> blocked.add("drain of " + d.node() + ": pod " + d.eviction().pod() + " refused by PodDisruptionBudget "
                + d.eviction().disruptionBudget() + " (" + d.eviction().attempts() + " attempt(s))"));
        switch (r.phase()) {
            case WAITING_FOR_WINDOW -> blocked.add("the maintenance window is closed" + window.next().map(w -> "; next opens "
                    + w.open()).orElse(""));
            // The fleet's schedule says which pool it waits for (role order, rollout.after) or that the turns are taken.
            case WAITING_FOR_TURN -> blocked.add(r.waitingFor().map(w -> "waits for its turn: " + w.detail())
                    .orElse("an earlier pool (by role, then name) updates first"));
            case WAITING_FOR_VALIDATION -> blocked.add("the cluster must validate first");
            case PAUSED -> blocked.add("the rollout is paused (" + PoolStatusRecords.PAUSED + ")");
            case REPORT_ONLY -> blocked.add("drainAndTerminate is false: outdated nodes are reported only");
            case NODE_UPDATES_OFF -> blocked.add("node updates are off (nodeUpdates.type: none): the "
                    + (r.pendingAction() == PendingAction.IN_PLACE ? "in-place update" : "kubelet restart")
                    + " is reported, never executed");
            case AWAITING_SELECTION -> blocked.add("nodes wait to be selected: " + String.join(", ", r.awaitingSelection()));
            case FAILED -> blocked.add("a node failed and needs a decision");
            case HALTED -> blocked.add("the rollout is halted: " + r.status().halt().map(RolloutProgressJson::describe)
                    .orElse("its checks failed") + "; nothing new starts until `nightshift resume " + pool.name()
                    + "` or a new commit that changes the pool's target");
            default -> { }
        }
        if (!r.progressing()) {
            blocked.add(r.progressReason());
        }
        return new PoolRow(pool.name(), pool.spec().pool().updateStrategy().toString(), r.phase(), r,
                window.next().map(w -> w.open()), nextWindow(window), target, steps, blocked,
                r.outdated() > 0 ? PoolEstimate.of(pool.name(), estimate) : PoolEstimate.NONE, WavesLine.of(pool.spec().rollout()), held);
    }

    private static String name(Step s) {
        if (s instanceof Step.DeleteMachine d) {
            return d.replace() ? "DeleteMachine(replace)" : "DeleteMachine";
        }
        if (s instanceof Step.ForceDeletePod f) {
            return "ForceDeletePod(" + f.pod() + ")";
        }
        if (s instanceof Step.CreateMachine) {
            return "CreateMachine";
        }
        return s.getClass().getSimpleName();
    }

    private static String nextWindow(WindowState window) {
        return window.alwaysOpen() ? "always open" : window.open() ? "open now" : window.next().map(w -> w.open().toString()).orElse("none");
    }

    static String text(List<PoolRow> rows) {
        String row = "%-12s %-20s %-22s %-26s %-26s %s%n";
        StringBuilder b = new StringBuilder(String.format(row, "POOL", "STRATEGY", "ACTION", "NODES (cur/out/upd/fail)", "NEXT WINDOW",
                "REASONS"));
        for (PoolRow p : rows) {
            PoolReport r = p.report();
            b.append(String.format(row, p.pool(), p.strategy(), p.phase(), r.current() + "/" + r.outdated() + "/" + r.updating() + "/" + r.failed(),
                    p.window(), summary(p)));
            p.held().ifPresent(h -> b.append("    held:     ").append(h.message()).append("; revert or fix it in Git (a commit that"
                    + " changes the pool's spec lifts the refusal)\n"));
            p.target().ifPresent(t -> b.append("    why:      ").append(t.action()).append(t.revision().isEmpty() ? " (this spec)"
                    : " (commit " + t.shortRevision() + ")").append(": ").append(t.summary(REASONS_SHOWN)).append('\n'));
            p.steps().forEach((node, steps) -> b.append("    next:     ").append(node).append(": ").append(String.join(", ", steps)).append('\n'));
            p.blocked().forEach(x -> b.append("    blocked:  ").append(x).append('\n'));
            p.waves().ifPresent(w -> b.append("    waves:    ").append(w)
                    .append(w.contains("checks: ") ? " (this plan takes the checks as passing: it queries no Prometheus; the agent judges them)" : "")
                    .append('\n'));
            p.eta().eta().ifPresent(e -> b.append("    eta:      ").append(e.text(p.eta().zone()))
                    .append(e.windows().isEmpty() ? "" : e.completesAt().map(t -> "; done by " + t).orElse("")).append('\n'));
            // When its turn comes, in the fleet's schedule: after other pools of the rollout.
            p.eta().eta().flatMap(e -> e.startText(p.eta().zone())).ifPresent(t -> b.append("    starts:   ").append(t.substring("starts ".length()))
                    .append('\n'));
            p.eta().leftOut().ifPresent(x -> b.append("    eta:      none: ").append(x).append('\n'));
        }
        return b.toString().stripTrailing();
    }

    /** The row's last column: the next steps in short and what blocks them, as before the detail lines. */
    private static String summary(PoolRow p) {
        StringBuilder b = new StringBuilder();
        if (!p.report().adopted().isEmpty()) {
            b.append("adopt ").append(p.report().adopted().size()).append(" unstamped node(s); ");
        }
        List<String> next = new ArrayList<>();
        p.steps().forEach((node, steps) -> steps.forEach(s -> next.add(s + " " + node)));
        if (!next.isEmpty()) {
            b.append("next: ").append(next.stream().limit(4).collect(Collectors.joining(", "))).append(next.size() > 4 ? ", …" : "").append("; ");
        }
        p.report().blockedDrains().forEach(d -> b.append("drain of ").append(d.node()).append(" blocked by ")
                .append(d.eviction().disruptionBudget()).append("; "));
        if (!p.report().progressing()) {
            b.append(p.report().progressReason()).append("; ");
        }
        String text = b.toString();
        return text.isEmpty() ? "-" : text.substring(0, text.length() - 2);
    }

    static String json(String cluster, WindowState window, List<PoolRow> rows) {
        ObjectNode root = JSON.createObjectNode();
        root.put("cluster", cluster);
        root.put("windowOpen", window.alwaysOpen() || window.open());
        ArrayNode pools = root.putArray("pools");
        for (PoolRow p : rows) {
            PoolReport r = p.report();
            ObjectNode o = pools.addObject();
            o.put("pool", p.pool());
            o.put("strategy", p.strategy());
            o.put("phase", p.phase().name());
            o.put("pendingAction", r.pendingAction().name());
            ObjectNode nodes = o.putObject("nodes");
            nodes.put("total", r.count());
            nodes.put("current", r.current());
            nodes.put("outdated", r.outdated());
            nodes.put("updating", r.updating());
            nodes.put("failed", r.failed());
            o.put("nextWindow", window.alwaysOpen() || window.open() ? null : p.nextWindow().map(Instant::toString).orElse(null));
            p.target().ifPresentOrElse(t -> {
                ObjectNode target = o.putObject("target");
                PoolTargetJson.put(target, t);
                if (t.revision().isEmpty()) {
                    // Not committed yet: the spec given to plan introduces it.
                    target.putNull("revision");
                }
            }, () -> o.putNull("target"));
            ArrayNode steps = o.putArray("nextSteps");
            p.steps().forEach((node, names) -> {
                ObjectNode n = steps.addObject();
                n.put("node", node);
                names.forEach(n.putArray("steps")::add);
            });
            ArrayNode blocked = o.putArray("blockedBy");
            p.blocked().forEach(blocked::add);
            o.put("waves", p.waves().orElse(null));
            // Added for issue 26, null when they do not apply: a hold after a rollback, and the halt in effect as /status gives it.
            o.put("held", p.held().map(HeldPool::message).orElse(null));
            o.put("refusedRevision", p.held().map(HeldPool::refusedCommit).orElse(null));
            r.status().halt().filter(h -> p.phase() == PoolPhase.HALTED).ifPresentOrElse(
                    h -> RolloutProgressJson.halt(o.putObject("healthFailure"), h), () -> o.putNull("healthFailure"));
            // As in /status: null for a pool without outdated nodes or left out of the estimate (etaLeftOut says why).
            EtaJson.putPool(o, p.eta());
        }
        return root.toPrettyString();
    }
}
