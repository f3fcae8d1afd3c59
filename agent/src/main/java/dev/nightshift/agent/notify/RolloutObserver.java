package dev.nightshift.agent.notify;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.nightshift.agent.eta.PoolEta;
import dev.nightshift.agent.eta.RolloutEta;
import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.agent.report.RolloutProgressJson;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.spec.load.SpecError;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolReport;

/**
 * Derives the events and commit statuses from what the reconcile pass already reports: each pass's pool reports are
 * compared with what was already said for the commit (the events' keys, the last status), so that every event is said
 * once however many passes see it, and a restarted agent, seeded with what was delivered ({@link #seed}), says nothing
 * again. Level-triggered like the pass: a status or event missed (a crash before it was sent) is derived again from the
 * cluster as long as it holds — which is what keeps a final status from being lost.
 *
 * <p>Not thread-safe: the reconcile thread (and the poller's, for invalid specs, through {@link Notifier}'s lock) only.
 */
final class RolloutObserver {

    /** {@code pool.progress} at most this often per pool. */
    static final Duration PROGRESS_EVERY = Duration.ofMinutes(1);
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT);

    private final String cluster;
    private final Optional<Duration> announce;
    /** Per commit, the keys of the events already said. */
    private final Map<String, Set<String>> said = new HashMap<>();
    /** Per commit, the last status derived. */
    private final Map<String, CommitStatus> statuses = new LinkedHashMap<>();
    private final Map<String, Instant> lastProgressAt = new HashMap<>();
    private final Map<String, Integer> lastCurrent = new HashMap<>();

    RolloutObserver(String cluster, Optional<Duration> announce) {
        this.cluster = cluster;
        this.announce = announce;
    }

    /** What was delivered before (the records in the cluster): said already, never again. */
    void seed(Map<String, Set<String>> keys, Map<String, CommitStatus> delivered) {
        forget();
        keys.forEach((commit, k) -> said.put(commit, new HashSet<>(k)));
        statuses.putAll(delivered);
    }

    /** A term as leader ended: the next one starts from the records. */
    void forget() {
        said.clear();
        statuses.clear();
        lastProgressAt.clear();
        lastCurrent.clear();
    }

    /**
     * The notices of one pass, in the order they happened: superseded commits, then the pools' events in the spec's
     * order, the rollout's, and last the accepted commit's status.
     *
     * @param refused the newest commit, when it is valid but was not taken (the report's {@code rejected} say why)
     */
    List<Notice> observe(ReconcileReport report, Optional<String> refused) {
        List<Notice> out = new ArrayList<>();
        if (report.plan() == null || report.revision().isEmpty()) {
            return out;
        }
        String commit = report.revision();
        Instant now = report.at();
        String shortCommit = shortHash(commit);
        // A commit still pending while another is acted on will never finish: it gets its last state.
        for (CommitStatus s : List.copyOf(statuses.values())) {
            if (!s.commit().equals(commit) && s.state() == CommitState.PENDING) {
                status(out, new CommitStatus(cluster, s.commit(), CommitState.SUPERSEDED, "superseded by " + shortCommit));
            }
        }
        Map<String, PoolReport> pools = report.plan().reports();
        List<String> order = report.plan().pools().stream().map(p -> p.pool()).toList();
        announce(out, report, commit, now);
        Map<String, String> failing = new LinkedHashMap<>();
        for (String name : order) {
            PoolReport p = pools.get(name);
            failure(report, p).ifPresent(why -> failing.put(name, why));
            // A pool with nothing outdated or in flight starts no rollout, though its report says UPDATING while a pass
            // left its stamps, labels or taints for the next (an adoption of many nodes, say).
            if (p.rolloutInProgress() && !p.fullyCurrent() && !said(commit, "pool.started/" + name)) {
                if (!said(commit, "rollout.started")) {
                    long rolling = pools.values().stream().filter(r -> !r.fullyCurrent()).count();
                    event(out, EventType.ROLLOUT_STARTED, now, commit, Optional.empty(), "rollout.started",
                            "rollout of " + rolling + " pool" + (rolling == 1 ? "" : "s") + " started" + eta(report).map(e -> ", ETA " + e).orElse(""),
                            data("pools", (int) rolling, "eta", etaInstant(report).map(Instant::toString).orElse(null)));
                }
                event(out, EventType.POOL_STARTED, now, commit, Optional.of(name), "pool.started/" + name,
                        "pool " + name + " started: " + p.outdated() + " of " + p.count() + " nodes to update ("
                                + p.pendingAction().name().toLowerCase(Locale.ROOT) + ")",
                        data("nodes", p.count(), "outdated", p.outdated(), "action", p.pendingAction().name()));
                lastCurrent.put(name, p.current());
                lastProgressAt.put(name, now);
            }
            if (said(commit, "pool.started/" + name) && p.rolloutInProgress()) {
                progress(out, commit, name, p, now);
            }
            for (PoolReport.BlockedDrain b : p.blockedDrains()) {
                event(out, EventType.POOL_BLOCKED, now, commit, Optional.of(name),
                        "pool.blocked/" + name + "/" + b.node() + "/" + b.eviction().pod(),
                        "pool " + name + ": the drain of " + b.node() + " is blocked: evicting " + b.eviction().pod()
                                + " would break PodDisruptionBudget " + b.eviction().disruptionBudget(),
                        data("node", b.node(), "pod", b.eviction().pod(), "podDisruptionBudget", b.eviction().disruptionBudget(),
                                "attempts", b.eviction().attempts()));
            }
            if (p.phase() == PoolPhase.HALTED) {
                // Once per halt: a resumed pool that halts again later is a new halt (its time is in the key).
                p.status().halt().ifPresent(h -> event(out, EventType.POOL_HALTED, now, commit, Optional.of(name),
                        "pool.halted/" + name + "/" + h.at(), "pool " + name + " halted: " + RolloutProgressJson.describe(h),
                        data("check", h.check(), "value", h.value(), "threshold", h.threshold(), "wave", h.wave(),
                                "at", h.at().toString())));
            }
            if (failing.containsKey(name)) {
                event(out, EventType.POOL_FAILED, now, commit, Optional.of(name), "pool.failed/" + name,
                        "pool " + name + " failed: " + failing.get(name),
                        data("reason", failing.get(name), "failed", p.failed(), "current", p.current(), "nodes", p.count()));
            }
            if (said(commit, "pool.started/" + name) && p.fullyCurrent()) {
                event(out, EventType.POOL_COMPLETED, now, commit, Optional.of(name), "pool.completed/" + name,
                        "pool " + name + " completed: " + p.count() + " of " + p.count() + " nodes current",
                        data("nodes", p.count()));
            }
        }
        long current = pools.values().stream().filter(PoolReport::fullyCurrent).count();
        if (said(commit, "rollout.started") && current == pools.size()) {
            event(out, EventType.ROLLOUT_COMPLETED, now, commit, Optional.empty(), "rollout.completed",
                    "rollout completed: " + pools.size() + " of " + pools.size() + " pools current", data("pools", pools.size()));
        }
        closedWithWorkLeft(out, report, commit, now);
        refused.filter(r -> !r.equals(commit) && !report.rejected().isEmpty()).ifPresent(r -> {
            String why = String.join("; ", report.rejected());
            event(out, EventType.COMMIT_REFUSED, now, r, Optional.empty(), "commit.refused", "commit refused: " + why,
                    data("reasons", report.rejected(), "inForce", commit));
            status(out, new CommitStatus(cluster, r, CommitState.FAILURE, "refused: " + why));
        });
        status(out, statusOf(commit, pools, current, failing, report));
        return out;
    }

    /** An invalid commit: {@code spec.invalid} with every error, and the status {@code error} naming the first at file:line. */
    List<Notice> specInvalid(String commit, List<SpecError> errors, Instant now) {
        List<Notice> out = new ArrayList<>();
        List<Map<String, Object>> list = errors.stream().map(e -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("file", e.file());
            m.put("line", e.line());
            m.put("column", e.column());
            m.put("field", e.path());
            m.put("message", e.message());
            return m;
        }).toList();
        String first = errors.isEmpty() ? "invalid" : errors.get(0).file() + ":" + errors.get(0).line() + ": "
                + (errors.get(0).path().isEmpty() ? "" : errors.get(0).path() + ": ") + errors.get(0).message();
        String more = errors.size() > 1 ? " (and " + (errors.size() - 1) + " more)" : "";
        event(out, EventType.SPEC_INVALID, now, commit, Optional.empty(), "spec.invalid",
                "the specs are invalid, nothing of this commit is applied: " + first + more, data("errors", list));
        status(out, new CommitStatus(cluster, commit, CommitState.ERROR, first + more));
        return out;
    }

    /** A commit {@code git.verify} refused: {@code commit.refused} and the status {@code failure} with the reason. */
    List<Notice> unverified(String commit, String reason, Instant now) {
        List<Notice> out = new ArrayList<>();
        event(out, EventType.COMMIT_REFUSED, now, commit, Optional.empty(), "commit.refused", "commit refused: " + reason,
                data("reasons", List.of(reason)));
        status(out, new CommitStatus(cluster, commit, CommitState.FAILURE, "refused: " + reason));
        return out;
    }

    private void progress(List<Notice> out, String commit, String name, PoolReport p, Instant now) {
        Integer before = lastCurrent.get(name);
        if (before == null) {
            // A new term: progress is counted from what is current now.
            lastCurrent.put(name, p.current());
            lastProgressAt.put(name, now);
            return;
        }
        Instant at = lastProgressAt.get(name);
        boolean due = at == null || !now.isBefore(at.plus(PROGRESS_EVERY));
        if (before != p.current() && due && p.current() < p.count()) {
            event(out, EventType.POOL_PROGRESS, now, commit, Optional.of(name), "pool.progress/" + name + "/" + p.current(),
                    "pool " + name + ": " + p.current() + " of " + p.count() + " nodes current",
                    data("nodes", p.count(), "current", p.current(), "outdated", p.outdated(), "updating", p.updating()));
            lastCurrent.put(name, p.current());
            lastProgressAt.put(name, now);
        }
    }

    /** Before a window opens, within {@code announce}: what will roll in it, once per window. */
    private void announce(List<Notice> out, ReconcileReport report, String commit, Instant now) {
        WindowState w = report.window();
        if (announce.isEmpty() || w == null || w.open() || w.next().isEmpty()) {
            return;
        }
        Instant opens = w.next().get().open();
        if (opens.isAfter(now.plus(announce.get()))) {
            return;
        }
        List<Map<String, Object>> pools = report.plan().pools().stream().map(pp -> report.plan().reports().get(pp.pool()))
                .filter(p -> p.outdated() > 0).map(p -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("pool", p.pool());
                    m.put("outdated", p.outdated());
                    m.put("action", p.pendingAction().name());
                    return m;
                }).toList();
        if (pools.isEmpty()) {
            return;
        }
        int nodes = pools.stream().mapToInt(m -> (Integer) m.get("outdated")).sum();
        event(out, EventType.ROLLOUT_ANNOUNCED, now, commit, Optional.empty(), "rollout.announced/" + opens,
                nodes + " node" + (nodes == 1 ? "" : "s") + " in " + pools.size() + " pool" + (pools.size() == 1 ? "" : "s")
                        + " will roll in the window opening at " + opens,
                data("opensAt", opens.toString(), "closesAt", w.next().get().close().map(Instant::toString).orElse(null), "pools", pools));
    }

    private void closedWithWorkLeft(List<Notice> out, ReconcileReport report, String commit, Instant now) {
        List<Map<String, Object>> left = new ArrayList<>();
        report.plan().pools().forEach(pp -> {
            int n = report.overdue().getOrDefault(pp.pool(), 0);
            if (n > 0) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("pool", pp.pool());
                m.put("outdated", n);
                left.add(m);
            }
        });
        if (left.isEmpty()) {
            return;
        }
        int nodes = left.stream().mapToInt(m -> (Integer) m.get("outdated")).sum();
        Optional<Instant> next = Optional.ofNullable(report.window()).flatMap(WindowState::next).map(n -> n.open());
        event(out, EventType.WINDOW_CLOSED_WITH_WORK_LEFT, now, commit, Optional.empty(),
                "window.closed-with-work-left/" + next.map(Instant::toString).orElse("none"),
                "a maintenance window closed with " + nodes + " outdated node" + (nodes == 1 ? "" : "s") + " left"
                        + next.map(n -> "; the next opens at " + n).orElse(""),
                data("pools", left, "nextOpensAt", next.map(Instant::toString).orElse(null)));
    }

    /**
     * Why the pool counts as failed: a node failed, its progress deadline passed, or it is refused (held by the provider
     * or the version guard). A provider that failed in this one pass is not a failure of the pool: it is tried again.
     */
    private static Optional<String> failure(ReconcileReport report, PoolReport p) {
        if (p.phase() == PoolPhase.FAILED || (p.failed() > 0 && !p.failedNodes().isEmpty())) {
            List<String> why = new ArrayList<>();
            report.updateFailures().stream().filter(f -> f.pool().equals(p.pool()))
                    .forEach(f -> why.add(f.node() + ": " + (f.reason() == null ? "update failed" : f.reason())));
            p.failedNodes().forEach(n -> why.add(n.node() + ": " + n.condition()));
            // Neither an update nor a node's health: what is left to fail is a machine that never joined.
            return Optional.of(why.isEmpty() ? p.failed() + (p.failed() == 1 ? " node failed: a new machine did not become a node"
                    : " nodes failed: new machines did not become nodes") + " within its creationTimeout" : String.join("; ", why));
        }
        if (!p.progressing() && !p.progressReason().isEmpty() && !report.providerFailures().containsKey(p.pool())) {
            return Optional.of(p.progressReason().equals(RolloutPlanner.PROGRESS_DEADLINE_EXCEEDED)
                    ? "no node finished within its progress deadline (ProgressDeadlineExceeded)" : p.progressReason());
        }
        return Optional.empty();
    }

    private CommitStatus statusOf(String commit, Map<String, PoolReport> pools, long current, Map<String, String> failing,
                                  ReconcileReport report) {
        int n = pools.size();
        if (!failing.isEmpty()) {
            Map.Entry<String, String> first = failing.entrySet().iterator().next();
            return new CommitStatus(cluster, commit, CommitState.FAILURE, "pool " + first.getKey() + " failed: " + first.getValue());
        }
        if (current == n) {
            return new CommitStatus(cluster, commit, CommitState.SUCCESS, n + "/" + n + " pools current");
        }
        // The ETA only while nothing is current yet: an estimate that drifts by a minute must not post a status every minute.
        String text = current == 0 ? n + " pool" + (n == 1 ? "" : "s") + eta(report).map(e -> ", ETA " + e).orElse("")
                : current + "/" + n + " pools current";
        CommitStatus before = statuses.get(commit);
        if (current == 0 && before != null && before.state() == CommitState.PENDING && before.description().startsWith(n + " pool")) {
            // Keep the ETA said when the commit was accepted.
            text = before.description();
        }
        return new CommitStatus(cluster, commit, CommitState.PENDING, text);
    }

    private static Optional<Instant> etaInstant(ReconcileReport report) {
        return report.eta().flatMap(e -> e.pools().stream().map(PoolEta::completesAt).flatMap(Optional::stream).max(Instant::compareTo));
    }

    /** The rollout's end, as {@code 03:10 UTC} in the calendar's zone; empty without an estimate. */
    private static Optional<String> eta(ReconcileReport report) {
        ZoneId zone = report.eta().map(RolloutEta.Estimate::zone).orElse(ZoneOffset.UTC);
        return etaInstant(report).map(i -> CLOCK.format(i.atZone(zone)) + " " + (zone.equals(ZoneOffset.UTC) ? "UTC" : zone.getId()));
    }

    private boolean said(String commit, String key) {
        return said.getOrDefault(commit, Set.of()).contains(key);
    }

    private void event(List<Notice> out, EventType type, Instant now, String commit, Optional<String> pool, String key,
                       String message, Map<String, Object> data) {
        if (said.computeIfAbsent(commit, c -> new HashSet<>()).add(key)) {
            out.add(new Notice.Event(new NotificationEvent(type, now, cluster, commit, pool, key, message, data)));
        }
    }

    private void status(List<Notice> out, CommitStatus status) {
        CommitStatus before = statuses.get(status.commit());
        // Last states stay: an invalid commit stays in error, a superseded one superseded.
        if (status.equals(before) || (before != null && before.state().last())) {
            return;
        }
        statuses.remove(status.commit());
        statuses.put(status.commit(), status);
        if (statuses.size() > Ledger.COMMITS_KEPT) {
            statuses.remove(statuses.keySet().iterator().next());
        }
        out.add(new Notice.Status(status));
    }

    /** Keys and values in pairs; a null value is written as JSON null. */
    private static Map<String, Object> data(Object... pairs) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put((String) pairs[i], pairs[i + 1]);
        }
        return m;
    }

    static String shortHash(String commit) {
        return commit.length() > 7 ? commit.substring(0, 7) : commit;
    }
}
