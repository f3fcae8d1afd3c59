package dev.nightshift.agent.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.HashMap;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.nightshift.agent.git.PollResult;
import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.agent.kube.WatchEvents;
import dev.nightshift.agent.reconcile.FinishedDrain;
import dev.nightshift.agent.reconcile.NodeUpdate;
import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.agent.reconcile.StepRefusal;
import dev.nightshift.agent.window.Window;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolReport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * Everything the agent exports at {@code /metrics}, fed from what the agent already produces (poll
 * results, reconcile reports, API answers) so that the numbers are the ones the agent acted on.
 * Meter names are dotted with base units; the Prometheus registry adds {@code _seconds} and
 * {@code _total}. The only label with unbounded values is {@code revision} on the one {@code _info}
 * gauge; pools are bounded by the spec.
 */
public final class AgentMetrics implements AutoCloseable {

    /** Node updates run from seconds (demo, kubelet restarts) to an hour (large machines). */
    private static final Duration[] UPDATE_BUCKETS = durations(1, 2, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600);
    private static final Duration[] DRAIN_BUCKETS = durations(1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600);
    private static final List<String> NODE_STATES = List.of("current", "outdated", "updating", "failed");
    /** The Kubernetes verbs, so that every error counter exists (at 0) from the start. */
    public static final List<String> VERBS = List.of("get", "list", "watch", "create", "update", "patch", "delete");

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gc = new JvmGcMetrics();

    private final AtomicLong lastSyncMillis = new AtomicLong(-1);
    private final AtomicReference<Optional<String>> revision = new AtomicReference<>(Optional.empty());
    private final MultiGauge revisionInfo;
    private final AtomicLong specValid = new AtomicLong(1);
    private final AtomicLong specErrors = new AtomicLong();
    private final AtomicLong headVerified = new AtomicLong(1);

    private final AtomicLong leading = new AtomicLong();
    /** Guards the pool series against a change of leadership between a report's check and its registration. */
    private final Object poolSeries = new Object();
    private final AtomicReference<Optional<WindowState>> window = new AtomicReference<>(Optional.empty());

    private final MultiGauge poolNodes;
    private final MultiGauge pendingAction;
    private final MultiGauge phase;
    private final MultiGauge rolloutInProgress;
    private final MultiGauge progressRatio;
    private final MultiGauge deadlineExceeded;
    private final MultiGauge overdue;
    private final MultiGauge blockedDrains;
    private final MultiGauge halted;
    private final MultiGauge wave;

    public AgentMetrics(String version) {
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);

        Gauge.builder("nightshift.build.info", () -> 1).description("The running agent's version")
                .tag("version", version).register(registry);
        for (PollResult result : PollResult.values()) {
            Counter.builder("nightshift.git.polls").description("Git polls by result").tag("result", label(result))
                    .register(registry);
            pollTimer(result);
        }
        for (String verb : VERBS) {
            apiErrors(verb);
        }
        for (String result : List.of("ok", "blocked_by_pdb", "error")) {
            evictions(result, 0);
        }
        for (WatchEvents.Kind kind : WatchEvents.Kind.values()) {
            watchEvents(kind, true);
            watchEvents(kind, false);
        }
        Gauge.builder("nightshift.git.last.sync.timestamp", lastSyncMillis, m -> m.get() < 0 ? Double.NaN : m.get() / 1000.0)
                .description("When a poll last reached the repository (whether or not the head moved), Unix time")
                .baseUnit("seconds").register(registry);
        revisionInfo = MultiGauge.builder("nightshift.git.revision.info")
                .description("The commit whose specs the agent acts on, as the revision label").register(registry);
        Gauge.builder("nightshift.leader", leading, AtomicLong::get)
                .description("1 when this replica acts (always without leader election), 0 while it stands by").register(registry);
        Gauge.builder("nightshift.spec.valid", specValid, AtomicLong::get)
                .description("1 when the newest commit's specs loaded and validated, 0 when it was refused").register(registry);
        Gauge.builder("nightshift.spec.errors", specErrors, AtomicLong::get)
                .description("Errors in the newest commit's specs; 0 when it is valid").register(registry);
        Gauge.builder("nightshift.git.head.verified", headVerified, AtomicLong::get)
                .description("0 while git.verify refuses the newest commit (signature missing, bad or not allowed, or a rewind);"
                        + " 1 when it passed, or without git.verify").register(registry);

        Gauge.builder("nightshift.window.open", window, w -> flag(w.get().map(WindowState::open)))
                .description("1 inside a maintenance window (or when none is configured) and outside exclusions").register(registry);
        Gauge.builder("nightshift.window.always.open", window, w -> flag(w.get().map(WindowState::alwaysOpen)))
                .description("1 when the cluster configures no maintenance window: maintenance may happen at any time").register(registry);
        Gauge.builder("nightshift.window.exclusion.active", window, w -> flag(w.get().map(s -> s.exclusion().isPresent())))
                .description("1 while an exclusion blocks every disruptive action").register(registry);
        Gauge.builder("nightshift.window.next.open.timestamp", window,
                        w -> seconds(w.get().flatMap(WindowState::next).map(Window::open)))
                .description("When the next window opens, Unix time; NaN when none is ahead").baseUnit("seconds").register(registry);
        Gauge.builder("nightshift.window.next.close.timestamp", window,
                        w -> seconds(w.get().flatMap(s -> s.current().or(s::next)).flatMap(Window::close)))
                .description("When the current window closes, or else the next one; Unix time; NaN when none, or when it closes"
                        + " beyond the calendar's horizon")
                .baseUnit("seconds").register(registry);

        poolNodes = MultiGauge.builder("nightshift.pool.nodes").description("Nodes of the pool by state").register(registry);
        pendingAction = MultiGauge.builder("nightshift.pool.pending.action")
                .description("1 for what the pool's outdated nodes need (none, roll, in_place, kubelet_restart), 0 for the others")
                .register(registry);
        phase = MultiGauge.builder("nightshift.pool.phase").description("1 for the pool's update phase, 0 for the others")
                .register(registry);
        rolloutInProgress = MultiGauge.builder("nightshift.pool.rollout.in.progress")
                .description("1 while nodes of the pool are being replaced, updated or restarted").register(registry);
        progressRatio = MultiGauge.builder("nightshift.pool.rollout.progress.ratio")
                .description("Share of the pool's nodes that run the desired spec, 0 to 1").register(registry);
        deadlineExceeded = MultiGauge.builder("nightshift.pool.progress.deadline.exceeded")
                .description("1 when no node of the pool finished its update for progressDeadlineSeconds").register(registry);
        overdue = MultiGauge.builder("nightshift.pool.outdated.past.window.nodes")
                .description("Outdated nodes of pools that were outdated already when the latest maintenance window ended")
                .register(registry);
        blockedDrains = MultiGauge.builder("nightshift.pool.blocked.drains")
                .description("Nodes whose drain is held by a PodDisruptionBudget").register(registry);
        halted = MultiGauge.builder("nightshift.pool.halted")
                .description("1 while the pool's rollout is halted (failed health checks or maxFailedMachines) until resumed or retargeted")
                .register(registry);
        wave = MultiGauge.builder("nightshift.pool.rollout.wave")
                .description("The wave (1-based) of the pool's rollout in waves; 0 without one").register(registry);
        // The one commit-status destination and Slack exist at most once each: their series are there from the start
        // (at 0 when not configured), so that the alert and dashboards always read a series; webhooks join when configured.
        notificationDestinations(List.of("commit-status", "slack"));
    }

    /** The results of notification deliveries counted by {@link #notification}. */
    public static final List<String> NOTIFICATION_RESULTS = List.of("delivered", "retried", "failed", "dropped");

    /** Registers every result of each destination at 0, so that a failure is a rise and not a new series. */
    public void notificationDestinations(List<String> destinations) {
        for (String d : destinations) {
            for (String r : NOTIFICATION_RESULTS) {
                notificationCounter(d, r);
            }
        }
    }

    /**
     * One notification's result at a destination: {@code delivered}, {@code retried} (a try failed and will be made
     * again), {@code failed} (given up after its tries, or refused by the destination), {@code dropped} (its queue was full).
     */
    public void notification(String destination, String result) {
        notificationCounter(destination, result).increment();
    }

    private Counter notificationCounter(String destination, String result) {
        return Counter.builder("nightshift.notifications").description("Notifications (commit statuses, events) by destination and result")
                .tag("destination", destination).tag("result", result).register(registry);
    }

    private static Duration[] durations(long... seconds) {
        Duration[] d = new Duration[seconds.length];
        for (int i = 0; i < seconds.length; i++) {
            d[i] = Duration.ofSeconds(seconds[i]);
        }
        return d;
    }

    private static String label(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    private static double flag(Optional<Boolean> b) {
        return b.map(v -> v ? 1.0 : 0.0).orElse(0.0);
    }

    private static double seconds(Optional<Instant> t) {
        return t.map(i -> i.toEpochMilli() / 1000.0).orElse(Double.NaN);
    }

    /** One poll ended; any result but a failure means the repository was reached. */
    public void polled(PollResult result, Duration took, Instant at) {
        registry.counter("nightshift.git.polls", "result", label(result)).increment();
        pollTimer(result).record(took);
        if (result != PollResult.FAILED) {
            lastSyncMillis.set(at.toEpochMilli());
        }
    }

    /** A replica standing by exports no pool series: summed over replicas, only the leader's count. */
    public void leading(boolean acting) {
        synchronized (poolSeries) {
            leading.set(acting ? 1 : 0);
            if (!acting) {
                for (MultiGauge g : List.of(poolNodes, pendingAction, phase, rolloutInProgress, progressRatio, deadlineExceeded, overdue,
                        blockedDrains, halted, wave)) {
                    g.register(List.of(), true);
                }
                refusalSeries.values().forEach(registry::remove);
                refusalSeries.clear();
            }
        }
    }

    /** A new builder each time: builders are mutable, and polls may end on two threads at once. */
    private Timer pollTimer(PollResult result) {
        return Timer.builder("nightshift.git.poll.duration").description("Time of one Git poll, from the head check to the specs handed on")
                .tag("result", label(result)).register(registry);
    }

    /** The newest commit's specs: valid (handed on) or refused with this many errors. */
    public void specLoaded(int errors) {
        specValid.set(errors == 0 ? 1 : 0);
        specErrors.set(errors);
    }

    /** Whether git.verify passed the newest commit (always, without git.verify). */
    public void headVerified(boolean verified) {
        headVerified.set(verified ? 1 : 0);
    }

    /** The commit the agent acts on changed. */
    public void actingOn(String commit) {
        if (!revision.getAndSet(Optional.of(commit)).equals(Optional.of(commit))) {
            revisionInfo.register(List.of(MultiGauge.Row.of(Tags.of("revision", commit), 1)), true);
        }
    }

    /** A Kubernetes API request that failed: no answer, refused credentials or permissions, or a server error. */
    public void apiError(String verb) {
        apiErrors(verb).increment();
    }

    private Counter apiErrors(String verb) {
        return Counter.builder("nightshift.kubernetes.api.errors")
                .description("Kubernetes API requests that failed (no answer, 401, 403, 5xx), by verb").tag("verb", verb)
                .register(registry);
    }

    /** One event of the cluster observer's watches, and whether it asked for a reconcile. */
    public void watchEvent(WatchEvents.Kind kind, boolean reconcile) {
        watchEvents(kind, reconcile).increment();
    }

    private Counter watchEvents(WatchEvents.Kind kind, boolean reconcile) {
        return Counter.builder("nightshift.watch.events")
                .description("Events of the agent's watches on nodes, pods and pool records, by whether they asked for a reconcile"
                        + " (reconcile) or could not change a plan (ignored: kubelet heartbeats, pods on nodes not in flight)")
                .tag("kind", kind.label()).tag("effect", reconcile ? "reconcile" : "ignored").register(registry);
    }

    /** What one reconcile saw and did. */
    /** The reasons a guard refuses a step for: the labels of {@code nightshift_steps_refused_total}. */
    private static final List<String> REFUSAL_REASONS = List.of("unavailable", "surge", "api_server_not_ready");

    /** The refusal counters of the current pools, by (pool, reason); guarded by {@link #poolSeries}. */
    private final Map<List<String>, Counter> refusalSeries = new HashMap<>();

    /**
     * Every current pool's refusal series exist from its first reconcile, at 0, so that an alert on their increase has
     * data to read; a pool gone (or the lease lost) takes its series with it, as its gauges.
     */
    private void refusals(ReconcileReport report) {
        Set<String> pools = report.plan().reports().keySet();
        refusalSeries.entrySet().removeIf(e -> {
            boolean gone = !pools.contains(e.getKey().get(0));
            if (gone) {
                registry.remove(e.getValue());
            }
            return gone;
        });
        pools.forEach(pool -> REFUSAL_REASONS.forEach(reason -> refusalSeries.computeIfAbsent(List.of(pool, reason),
                k -> refused(pool, reason))));
        for (StepRefusal r : report.refusals()) {
            refusalSeries.computeIfAbsent(List.of(r.pool(), r.reason()), k -> refused(r.pool(), r.reason())).increment();
        }
    }

    private Counter refused(String pool, String reason) {
        return Counter.builder("nightshift.steps.refused")
                .description("Steps of a plan a guard refused, not executed: by the pool's promises (unavailable, surge) or"
                        + " while the API server is not ready (api_server_not_ready); counted at every pass that asks again")
                .tags("pool", pool, "reason", reason).register(registry);
    }

    public void reconciled(ReconcileReport report) {
        // A histogram, so that p50/p95 come from Prometheus (histogram_quantile) over any window: what a large
        // cluster's reconcile costs, with nothing to do and during a rollout, is read from it.
        Timer.builder("nightshift.reconcile.duration").description("Time of one reconcile: observe, plan, execute, write status")
                .tag("result", report.error().isPresent() ? "error" : "ok").publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofMinutes(2))
                .register(registry).record(report.took());
        if (report.error().isPresent()) {
            return;
        }
        actingOn(report.revision());
        window.set(Optional.ofNullable(report.window()));
        for (StepExecutor.Outcome o : report.outcomes()) {
            evictions("ok", o.evictions().evicted());
            evictions("blocked_by_pdb", o.evictions().blocked());
            evictions("error", o.evictions().failed());
        }
        for (NodeUpdate u : report.updates()) {
            registry.counter("nightshift.node.updates", "pool", u.pool(), "kind", u.kind().label(),
                    "result", u.succeeded() ? "success" : "failure").increment();
            Timer.builder("nightshift.node.update.duration")
                    .description("Time from a node's first update step to its end (docs/operations/observability.md says where each kind starts and ends)")
                    .tags("pool", u.pool(), "kind", u.kind().label()).serviceLevelObjectives(UPDATE_BUCKETS)
                    .register(registry).record(u.took());
        }
        report.providerFailures().keySet().forEach(pool -> Counter.builder("nightshift.pool.provider.failures")
                .description("Reconciles in which a pool's machine provider failed (listing, settle): the pool was held, the others went on")
                .tag("pool", pool).register(registry).increment());
        for (FinishedDrain d : report.drains()) {
            Timer.builder("nightshift.drain.duration").description("Time from a drain's start until the node was handed on")
                    .tag("pool", d.pool()).serviceLevelObjectives(DRAIN_BUCKETS).register(registry).record(d.took());
        }
        synchronized (poolSeries) {
            // The report of a reconcile that was running when the lease was lost must not bring
            // the pool series back on a replica standing by.
            if (report.plan() != null && leading.get() == 1) {
                pools(report);
                refusals(report);
            }
        }
    }

    private void evictions(String result, int count) {
        Counter c = Counter.builder("nightshift.evictions").description("Eviction requests by answer").tag("result", result)
                .register(registry);
        if (count > 0) {
            c.increment(count);
        }
    }

    private void pools(ReconcileReport report) {
        List<MultiGauge.Row<?>> nodes = new ArrayList<>();
        List<MultiGauge.Row<?>> actions = new ArrayList<>();
        List<MultiGauge.Row<?>> phases = new ArrayList<>();
        List<MultiGauge.Row<?>> inProgress = new ArrayList<>();
        List<MultiGauge.Row<?>> ratio = new ArrayList<>();
        List<MultiGauge.Row<?>> deadline = new ArrayList<>();
        List<MultiGauge.Row<?>> late = new ArrayList<>();
        List<MultiGauge.Row<?>> blocked = new ArrayList<>();
        List<MultiGauge.Row<?>> halts = new ArrayList<>();
        List<MultiGauge.Row<?>> waves = new ArrayList<>();
        for (PoolReport p : report.plan().reports().values().stream().sorted(Comparator.comparing(PoolReport::pool)).toList()) {
            Tags pool = Tags.of("pool", p.pool());
            int[] counts = {p.current(), p.outdated(), p.updating(), p.failed()};
            for (int i = 0; i < NODE_STATES.size(); i++) {
                nodes.add(MultiGauge.Row.of(pool.and("state", NODE_STATES.get(i)), counts[i]));
            }
            for (PendingAction a : PendingAction.values()) {
                actions.add(MultiGauge.Row.of(pool.and("action", label(a)), a == p.pendingAction() ? 1 : 0));
            }
            for (PoolPhase ph : PoolPhase.values()) {
                phases.add(MultiGauge.Row.of(pool.and("phase", label(ph)), ph == p.phase() ? 1 : 0));
            }
            inProgress.add(MultiGauge.Row.of(pool, p.rolloutInProgress() ? 1 : 0));
            ratio.add(MultiGauge.Row.of(pool, p.progress()));
            deadline.add(MultiGauge.Row.of(pool, p.progressing() ? 0 : 1));
            late.add(MultiGauge.Row.of(pool, report.overdue().getOrDefault(p.pool(), 0)));
            blocked.add(MultiGauge.Row.of(pool, p.blockedDrains().stream().map(PoolReport.BlockedDrain::node).distinct().count()));
            halts.add(MultiGauge.Row.of(pool, p.status().halt().isPresent() ? 1 : 0));
            waves.add(MultiGauge.Row.of(pool, p.status().rollout().map(r -> r.wave() + 1).orElse(0)));
        }
        poolNodes.register(nodes, true);
        pendingAction.register(actions, true);
        phase.register(phases, true);
        rolloutInProgress.register(inProgress, true);
        progressRatio.register(ratio, true);
        deadlineExceeded.register(deadline, true);
        overdue.register(late, true);
        blockedDrains.register(blocked, true);
        halted.register(halts, true);
        wave.register(waves, true);
    }

    /** The exposition for an {@code Accept} header: OpenMetrics when asked for, else the Prometheus text format. */
    public Exposition scrape(String accept) {
        String contentType = accept != null && accept.contains("application/openmetrics-text")
                ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                : "text/plain; version=0.0.4; charset=utf-8";
        return new Exposition(contentType, registry.scrape(contentType));
    }

    /** A scrape's body and its content type. */
    public record Exposition(String contentType, String body) {
    }

    @Override
    public void close() {
        gc.close();
        registry.close();
    }
}
