package dev.nightshift.agent.reconcile;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.eta.RolloutEta;
import dev.nightshift.agent.git.SpecRevision;
import dev.nightshift.agent.kube.ClusterObserver;
import dev.nightshift.agent.kube.EventRecorder;
import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.agent.window.CachedCalendar;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.spec.diff.CommitAcceptance;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.KubernetesVersion;
import dev.nightshift.strategies.KubernetesVersionGuard;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.ValidationStreak;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolReport;
import dev.nightshift.strategies.plan.Step;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The level-triggered loop: any change (a new good spec, a node, pod or record change, a window
 * opening or closing, a timer) asks for one reconcile; requests made while one runs collapse into
 * one more, so reconciles never overlap. Each reconcile reads what is observed now, asks the
 * planner for the next steps, and executes them.
 *
 * <p>It decides nothing itself: it gathers the inputs (the pool records, the observed cluster, the
 * API server's version and readiness) and calls the libraries' pure functions, the same that
 * {@code nightshift plan} and {@code nightshift simulate} call: {@link CommitAcceptance} for which
 * commit is acted on (through {@link AcceptedSpecs}, which keeps what was accepted, and
 * {@link PoolRecordWriter}, which writes it into the pool records), {@link RolloutPlanner} for the
 * plan, {@link KubernetesVersionGuard} for the pools held back, {@link ValidationStreak} for what a
 * validation or a step does to a pool's status.
 */
public final class Reconciler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);
    /** How often to look again while something is in flight (drains retry, machines come up). */
    static final Duration BUSY_RESYNC = Duration.ofSeconds(2);
    static final Duration IDLE_RESYNC = Duration.ofSeconds(30);

    /** What the loop needs from the rest of the agent. */
    /**
     * @param validationsRequired consecutive successful validations a pool needs before it starts and between batches
     * @param validationInterval  the least time between two validations that count
     * @param leading             whether to act from the start; with leader election the agent starts standing by
     */
    public record Settings(String cluster, String namespace, int validationsRequired, Duration validationInterval, boolean dryRun,
                           Optional<KubernetesVersion> apiServerVersion, boolean leading) {
    }

    private final Settings settings;
    private final ClusterObserver observer;
    private final StepExecutor executor;
    private final BooleanSupplier apiServerReady;
    private final RolloutPlanner planner;
    private final Clock clock;
    private final Consumer<ReconcileReport> reports;
    private final ScheduledThreadPoolExecutor loop = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "nightshift-reconcile");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean pending = new AtomicBoolean();
    /** Only the leader reconciles; a replica standing by keeps the newest spec and plans nothing. */
    private volatile boolean leading;
    /** What one term as leader remembered must not leak into the next: another replica acted in between. */
    private volatile boolean forgetTerm;
    /** When each pool's last validation that counted was made; after a restart the next one counts at once. */
    private final Map<String, Instant> lastValidation = new HashMap<>();
    private ScheduledFuture<?> wake;
    private volatile SpecRevision offered;
    /**
     * What was accepted must be read from the pool records before the next reconcile: at start and
     * at every term as leader, never carried over from a previous term or a standby's polls.
     */
    private volatile boolean rebuild = true;
    /** What the agent acts on and why each pool's nodes change; kept in the pool records. */
    private final AcceptedSpecs accepted;
    private final PoolRecordWriter records;
    /** The accepted spec's maintenance calendar, kept between reconciles. */
    private CachedCalendar calendar;
    /** Since when each pool has had outdated nodes without a break. */
    private final Map<String, Instant> outdatedSince = new HashMap<>();
    private NodeUpdateTracker tracker = new NodeUpdateTracker();
    /** Each pool's observed durations, kept in its record for estimates. */
    private final ObservedDurations durations;
    private final EtaRefresh eta;
    private final WhyEvents whyEvents;
    /** The desired pools of the plan being executed, by name: what the executor creates machines and updates nodes to. */
    private volatile Map<String, DesiredPool> planned = Map.of();

    /**
     * @param apiServerReady asked once per reconcile that validates a pool or starts a repair: the API
     *                       server reports itself ready
     */
    public Reconciler(Settings settings, KubernetesClient client, ClusterObserver observer, StepExecutor executor,
                      BooleanSupplier apiServerReady, RolloutPlanner planner, Clock clock, Consumer<ReconcileReport> reports) {
        this(settings, client, observer, executor, apiServerReady, planner, clock, reports,
                new EventRecorder(client, clock, EventRecorder.COMPONENT));
    }

    /** @param events records on each disrupted node why it is disrupted */
    public Reconciler(Settings settings, KubernetesClient client, ClusterObserver observer, StepExecutor executor,
                      BooleanSupplier apiServerReady, RolloutPlanner planner, Clock clock, Consumer<ReconcileReport> reports,
                      EventRecorder events) {
        this.whyEvents = new WhyEvents(events);
        this.accepted = new AcceptedSpecs(client, observer, settings.cluster(), settings.namespace());
        this.records = new PoolRecordWriter(client, observer, settings.namespace(), accepted);
        this.durations = new ObservedDurations(pool -> observer.recordedDurations(settings.namespace(), pool));
        this.eta = new EtaRefresh(new RolloutEta(planner.nodeUpdates()));
        // On close, pending timers are dropped; only a reconcile already running finishes.
        loop.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.settings = settings;
        this.observer = observer;
        this.executor = executor;
        this.apiServerReady = apiServerReady;
        this.planner = planner;
        this.clock = clock;
        this.reports = reports;
        this.leading = settings.leading();
    }

    /** This replica became the leader: act, starting from what is observed now and what the pool records say was accepted. */
    public void lead() {
        rebuild = true;
        leading = true;
        request();
    }

    /** This replica lost or gave up the lease: a reconcile in progress finishes its step; nothing more starts. */
    public void standBy() {
        leading = false;
        forgetTerm = true;
    }

    public boolean leading() {
        return leading;
    }

    /** The desired spec of {@code pool} in the plan being executed (the executor's steps come from it). */
    public DesiredPool desired(String pool) {
        DesiredPool p = planned.get(pool);
        if (p == null) {
            throw new IllegalStateException("no pool " + pool + " in the plan being executed");
        }
        return p;
    }

    /** A new good spec from Git: taken at the next reconcile unless a change in it is not allowed. */
    public void offer(SpecRevision revision) {
        offered = revision;
        request();
    }

    /** Asks for a reconcile soon; many requests while one is pending make one reconcile. */
    public void request() {
        if (!loop.isShutdown() && pending.compareAndSet(false, true)) {
            try {
                loop.execute(this::run);
            } catch (RejectedExecutionException stopping) {
                pending.set(false);
            }
        }
    }

    private void run() {
        pending.set(false);
        if (!leading) {
            return;
        }
        if (forgetTerm) {
            forgetTerm = false;
            tracker = new NodeUpdateTracker();
            durations.forget();
            eta.forget();
            outdatedSince.clear();
            lastValidation.clear();
        }
        Instant now = clock.instant();
        Duration next = IDLE_RESYNC;
        try {
            Optional<ReconcileReport> report = reconcile(now);
            if (report.isPresent()) {
                reports.accept(report.get());
                next = nextWake(report.get().plan(), now);
            }
        } catch (RuntimeException e) {
            LOG.error("reconcile failed; trying again shortly", e);
            reports.accept(ReconcileReport.failed(now, accepted.acting().map(AcceptedSpecs.Acting::commit).orElse(""), accepted.rejected(),
                    Duration.between(now, clock.instant()), e.getClass().getSimpleName() + ": " + e.getMessage()));
            next = BUSY_RESYNC;
        }
        schedule(next);
    }

    private synchronized void schedule(Duration after) {
        if (wake != null) {
            wake.cancel(false);
        }
        if (!loop.isShutdown()) {
            wake = loop.schedule(this::request, Math.max(1, after.toMillis()), TimeUnit.MILLISECONDS);
        }
    }

    private Duration nextWake(Plan plan, Instant now) {
        // Waiting (for a window, a turn, a selection) is not busy: the window scheduler and informers wake us.
        boolean busy = !plan.steps().isEmpty() || plan.reports().values().stream().anyMatch(PoolReport::rolloutInProgress);
        Duration resync = busy ? BUSY_RESYNC : IDLE_RESYNC;
        return plan.wakeAt().map(t -> Duration.between(now, t)).filter(d -> d.compareTo(resync) < 0).orElse(resync);
    }

    private Optional<ReconcileReport> reconcile(Instant now) {
        if (rebuild) {
            accepted.rebuildFromRecords();
            durations.forget();
            rebuild = false;
        }
        accepted.takeOffered(offered);
        Optional<AcceptedSpecs.Acting> current = accepted.acting();
        if (current.isEmpty()) {
            return Optional.empty();
        }
        AcceptedSpecs.Acting acting = current.get();
        ClusterSpec cluster = acting.cluster();
        if (calendar == null || !calendar.maintenance().equals(cluster.maintenance())) {
            calendar = new CachedCalendar(cluster.maintenance());
        }
        WindowState window = calendar.state(now);
        DesiredCluster desired = new DesiredCluster(cluster, acting.pools().values().stream().map(DesiredPool::of).toList(),
                settings.validationsRequired());
        Set<String> pools = new HashSet<>();
        desired.pools().forEach(p -> pools.add(p.name()));
        // What the provider answered for the last reconcile is stale now; each pool is listed at most once from here on.
        observer.refresh();
        if (leading && !settings.dryRun()) {
            desired.pools().stream().sorted(java.util.Comparator.comparing(DesiredPool::name))
                    .forEach(p -> executor.settle(p, observer.unmarked(p.name())));
        }
        ObservedCluster observed = observer.observe(
                window.maintenanceState(),
                observer.controlPlaneNodesReady(), pools);
        KubernetesVersionGuard.Guarded guarded = KubernetesVersionGuard.guard(planner.plan(desired, observed, now), desired,
                settings.apiServerVersion());
        // A pool whose machines the provider will not manage as they are is held: nothing is done to it.
        Map<String, String> refused = observer.refusals(pools);
        Plan plan = guarded.plan().holding(refused);
        accepted.observed(plan.reports());
        List<StepExecutor.Outcome> outcomes = new ArrayList<>();
        List<Step> executed = new ArrayList<>();
        Map<String, PoolStatus> statuses = new HashMap<>();
        plan.reports().forEach((pool, report) -> statuses.put(pool, report.status()));
        Map<String, DesiredPool> byName = new HashMap<>();
        desired.pools().forEach(p -> byName.put(p.name(), p));
        planned = Map.copyOf(byName);
        Optional<Boolean> apiServerAnswered = Optional.empty();
        if (!settings.dryRun()) {
            for (Step step : plan.steps()) {
                if (!leading) {
                    // The lease was lost: another replica may act now; the rest of this plan is its to make again.
                    LOG.warn("stopped leading mid-plan: {} step(s) left to the new leader", plan.steps().size() - executed.size());
                    break;
                }
                if (step instanceof Step.Validate) {
                    if (apiServerAnswered.isEmpty()) {
                        apiServerAnswered = Optional.of(apiServerReady.getAsBoolean());
                    }
                    ValidationStreak.Check check = ValidationStreak.validate(statuses.get(step.pool()),
                            apiServerAnswered.get() && RolloutPlanner.healthy(byName.get(step.pool()), observed, now),
                            Optional.ofNullable(lastValidation.get(step.pool())), settings.validationInterval(), now);
                    statuses.put(step.pool(), check.status());
                    if (check.counted()) {
                        lastValidation.put(step.pool(), now);
                    }
                    continue;
                }
                if (step instanceof Step.Repair r) {
                    // Asked only when a repair is wanted: an idle reconcile never asks.
                    if (apiServerAnswered.isEmpty()) {
                        apiServerAnswered = Optional.of(apiServerReady.getAsBoolean());
                    }
                    if (!apiServerAnswered.get()) {
                        LOG.warn("not repairing {} ({}): the API server's /readyz fails", r.target(), r.condition());
                        continue;
                    }
                }
                statuses.computeIfPresent(step.pool(), (k, s) -> ValidationStreak.afterStep(s, step, now));
                executor.execute(step).ifPresent(o -> {
                    outcomes.add(o);
                    LOG.info("{}", o.summary());
                    whyEvents.executed(step, byName.get(step.pool()), observed.nodesOf(step.pool()).stream()
                            .filter(n -> n.name().equals(step.target())).findFirst(), Optional.ofNullable(accepted.targets().get(step.pool())));
                });
                executed.add(step);
            }
        }
        NodeUpdateTracker.Finished finished = tracker.track(desired, observed, executed, now);
        durations.add(finished);
        if (!settings.dryRun() && leading) {
            records.write(statuses, observed, durations);
        }
        List<String> notices = new ArrayList<>(guarded.reasons());
        refused.forEach((pool, reason) -> notices.add(pool + ": " + reason));
        desired.pools().stream().filter(p -> p.spec().pool().rolloutOutsideWindow()).forEach(p -> notices.add(p.name()
                + ": " + dev.nightshift.spec.model.WorkerPoolSpec.ROLLOUT_OUTSIDE_WINDOW + " is set: its update may run outside"
                + " maintenance windows (exclusions still apply)"));
        List<ReconcileReport.UpdateFailure> failures = observed.nodes().stream().filter(n -> n.inPlaceFailed())
                .map(n -> new ReconcileReport.UpdateFailure(n.pool(), n.name(), observer.node(n.name())
                        .map(x -> dev.nightshift.agent.kube.NodeMarks.annotation(x, dev.nightshift.agent.kube.NodeMarks.IN_PLACE_FAILED_REASON))
                        .orElse(null)))
                .sorted(java.util.Comparator.comparing(ReconcileReport.UpdateFailure::node)).toList();
        return Optional.of(new ReconcileReport(now, acting.commit(), window, plan, outcomes, accepted.rejected(), notices,
                overdue(plan, now), finished.updates(), finished.drains(), Duration.between(now, clock.instant()),
                Optional.empty(), accepted.targets(), failures, eta.estimate(desired, plan, durations::of, now)));
    }

    /**
     * Outdated nodes of pools that had outdated nodes already when the latest window ended: that
     * window passed without finishing them. The agent keeps since when each pool has been outdated
     * in memory, so after a restart it counts from then: late, never early.
     */
    private Map<String, Integer> overdue(Plan plan, Instant now) {
        outdatedSince.keySet().retainAll(plan.reports().keySet());
        plan.reports().forEach((pool, report) -> {
            if (report.outdated() == 0) {
                outdatedSince.remove(pool);
            } else {
                outdatedSince.putIfAbsent(pool, now);
            }
        });
        if (outdatedSince.isEmpty()) {
            return Map.of();
        }
        Optional<Instant> lastClose = calendar.lastClose(now);
        Map<String, Integer> overdue = new HashMap<>();
        plan.reports().forEach((pool, report) -> overdue.put(pool,
                lastClose.isPresent() && outdatedSince.containsKey(pool) && outdatedSince.get(pool).isBefore(lastClose.get())
                        ? report.outdated() : 0));
        return overdue;
    }

    /** The commit acted on. */
    public Optional<String> acceptedCommit() {
        return accepted.acting().map(AcceptedSpecs.Acting::commit);
    }

    /** Lets a reconcile in progress finish its steps (a leader handing over mid-step would leave work half done). */
    @Override
    public void close() {
        eta.close();
        loop.shutdown();
        try {
            if (!loop.awaitTermination(30, TimeUnit.SECONDS)) {
                loop.shutdownNow();
            }
        } catch (InterruptedException e) {
            loop.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
