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
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.git.SpecRevision;
import dev.nightshift.agent.kube.ClusterObserver;
import dev.nightshift.agent.kube.EventRecorder;
import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.agent.window.CachedCalendar;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.spec.diff.CommitAcceptance;
import dev.nightshift.spec.diff.InPlaceHistory;
import dev.nightshift.spec.diff.PoolTarget;
import dev.nightshift.spec.load.CanonicalYaml;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.KubernetesVersion;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.strategies.KubernetesVersionGuard;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.ValidationStreak;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolReport;
import dev.nightshift.strategies.plan.Step;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * The level-triggered loop: any change (a new good spec, a node, pod or record change, a window
 * opening or closing, a timer) asks for one reconcile; requests made while one runs collapse into
 * one more, so reconciles never overlap. Each reconcile reads what is observed now, asks the
 * planner for the next steps, and executes them.
 *
 * <p>It decides nothing itself: it gathers the inputs (the pool records, the observed cluster, the
 * API server's version and readiness) and calls the libraries' pure functions, the same that
 * {@code nightshift plan} and {@code nightshift simulate} call: {@link CommitAcceptance} for which
 * commit is acted on, {@link RolloutPlanner} for the plan, {@link KubernetesVersionGuard} for the
 * pools held back, {@link ValidationStreak} for what a validation or a step does to a pool's status.
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
    private final KubernetesClient client;
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
    /** What the agent acts on; null until something was accepted or read from the records. */
    private Acting acting;
    /** What each pool's record must say it accepted (canonical texts, so that unchanged records are not written again). */
    private final Map<String, PoolStatusRecords.Accepted> acceptedRecords = new HashMap<>();
    /** Pools whose record holds an accepted spec that cannot be read: no commit is accepted until it is fixed. */
    private List<String> unreadableRecords = List.of();
    /** The accepted spec's maintenance calendar, kept between reconciles. */
    private CachedCalendar calendar;
    /** Since when each pool has had outdated nodes without a break. */
    private final Map<String, Instant> outdatedSince = new HashMap<>();
    private NodeUpdateTracker tracker = new NodeUpdateTracker();
    private List<String> rejected = List.of();
    private final Map<String, String> tokensToRecord = new HashMap<>();
    /** Each pool's target and the spec it was last fully current at: why its nodes change. */
    private final PoolTargets targets = new PoolTargets();
    private final WhyEvents whyEvents;

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
        // On close, pending timers are dropped; only a reconcile already running finishes.
        loop.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.settings = settings;
        this.client = client;
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
            reports.accept(ReconcileReport.failed(now, acting == null ? "" : acting.commit(), rejected,
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
            rebuildFromRecords();
            rebuild = false;
        }
        takeOffered();
        if (acting == null) {
            return Optional.empty();
        }
        ClusterSpec cluster = acting.cluster();
        if (calendar == null || !calendar.maintenance().equals(cluster.maintenance())) {
            calendar = new CachedCalendar(cluster.maintenance());
        }
        WindowState window = calendar.state(now);
        DesiredCluster desired = new DesiredCluster(cluster, acting.pools().values().stream().map(DesiredPool::of).toList(),
                settings.validationsRequired());
        Set<String> pools = new HashSet<>();
        desired.pools().forEach(p -> pools.add(p.name()));
        ObservedCluster observed = observer.observe(
                new MaintenanceState(window.specRolloutAllowed(), window.selfInitiatedAllowed(), window.exclusion().isPresent()),
                observer.controlPlaneNodesReady(), pools);
        KubernetesVersionGuard.Guarded guarded = KubernetesVersionGuard.guard(planner.plan(desired, observed, now), desired,
                settings.apiServerVersion());
        Plan plan = guarded.plan();
        targets.observed(plan.reports(), acceptedRecords, acting.pools());
        List<StepExecutor.Outcome> outcomes = new ArrayList<>();
        List<Step> executed = new ArrayList<>();
        Map<String, PoolStatus> statuses = new HashMap<>();
        plan.reports().forEach((pool, report) -> statuses.put(pool, report.status()));
        Map<String, DesiredPool> byName = new HashMap<>();
        desired.pools().forEach(p -> byName.put(p.name(), p));
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
                    whyEvents.executed(step, Optional.ofNullable(targets.targets().get(step.pool())), observed.nodesOf(step.pool())
                            .stream().anyMatch(n -> n.name().equals(step.target()) && byName.get(step.pool()).outdated(n)));
                });
                executed.add(step);
            }
            if (leading) {
                writeStatus(statuses, observed);
            }
        }
        NodeUpdateTracker.Finished finished = tracker.track(desired, observed, executed, now);
        List<String> notices = new ArrayList<>(guarded.reasons());
        desired.pools().stream().filter(p -> p.spec().pool().rolloutOutsideWindow()).forEach(p -> notices.add(p.name()
                + ": " + dev.nightshift.spec.model.WorkerPoolSpec.ROLLOUT_OUTSIDE_WINDOW + " is set: its update may run outside"
                + " maintenance windows (exclusions still apply)"));
        return Optional.of(new ReconcileReport(now, acting.commit(), window, plan, outcomes, rejected, notices,
                overdue(plan, now), finished.updates(), finished.drains(), Duration.between(now, clock.instant()),
                Optional.empty(), targets.targets()));
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

    /**
     * What the agent acts on: the commit, and each pool resolved against the cluster as that pool
     * accepted it (after an interrupted acceptance, pools may stand at different commits).
     */
    private record Acting(String commit, ClusterSpec cluster, Map<String, ResolvedPool> pools) {
    }

    /**
     * Reads what each pool accepted from its record, in the API server rather than a cache, so that
     * a new leader judges the head against what the last leader accepted. A pool without a record
     * accepted nothing: it is new.
     */
    private void rebuildFromRecords() {
        Map<String, ResolvedPool> pools = new TreeMap<>();
        Map<String, PoolStatusRecords.Accepted> read = new HashMap<>();
        List<String> unreadable = new ArrayList<>();
        targets.clear();
        for (ConfigMap map : client.configMaps().inNamespace(settings.namespace()).withLabel(PoolStatusRecords.LABEL).list().getItems()) {
            Optional<PoolStatusRecords.Accepted> accepted = PoolStatusRecords.accepted(map);
            if (accepted.isEmpty()) {
                continue;
            }
            String pool = map.getMetadata().getLabels().get(PoolStatusRecords.LABEL);
            targets.read(pool, PoolStatusRecords.why(map));
            LoadResult loaded = CanonicalYaml.read(accepted.get().cluster(), accepted.get().pool());
            if (!loaded.valid() || loaded.specs().pools().size() != 1 || !loaded.specs().pools().get(0).name().equals(pool)) {
                unreadable.add(pool + ": the spec it accepted, kept in ConfigMap " + settings.namespace() + "/" + map.getMetadata().getName()
                        + ", cannot be read (" + loaded.errors().stream().limit(3).map(Object::toString).toList() + "); no commit is"
                        + " applied until it is fixed, or its keys " + PoolStatusRecords.ACCEPTED_COMMIT + ", "
                        + PoolStatusRecords.ACCEPTED_CLUSTER + " and " + PoolStatusRecords.ACCEPTED_POOL
                        + " are removed (then the pool is judged as new)");
                continue;
            }
            WorkerPoolSpec spec = loaded.specs().pools().get(0);
            if (!spec.cluster().equals(settings.cluster())) {
                continue;
            }
            pools.put(pool, new ResolvedPool(loaded.specs().cluster(spec.cluster()).orElseThrow(), spec));
            read.put(pool, accepted.get());
        }
        acceptedRecords.clear();
        acceptedRecords.putAll(read);
        unreadableRecords = List.copyOf(unreadable);
        if (pools.isEmpty()) {
            acting = null;
            return;
        }
        // The commit most pools accepted names what is acted on, and its cluster gives the windows.
        Map<String, String> commitByPool = new TreeMap<>();
        read.forEach((pool, a) -> commitByPool.put(pool, a.commit()));
        String commit = CommitAcceptance.majority(commitByPool).orElseThrow();
        ClusterSpec cluster = pools.entrySet().stream().filter(e -> read.get(e.getKey()).commit().equals(commit))
                .findFirst().orElseThrow().getValue().cluster();
        acting = new Acting(commit, cluster, pools);
        LOG.info("the pool records say commit {} was accepted ({} pool(s))", commit, pools.size());
    }

    /**
     * Takes the offered spec unless one of its changes is rejected; then what was accepted stays.
     * Each pool is judged against what it accepted (kept in its record); a pool that accepted
     * nothing is new, and a pool no longer offered is deleted.
     */
    private void takeOffered() {
        SpecRevision candidate = offered;
        if (candidate == null) {
            return;
        }
        Optional<ClusterSpec> cluster = candidate.specs().cluster(settings.cluster());
        if (cluster.isEmpty()) {
            rejected = CommitAcceptance.judge(candidate.commit(), candidate.specs(), settings.cluster(), Map.of(), InPlaceHistory.NONE)
                    .refusals();
            return;
        }
        List<ResolvedPool> offeredPools = candidate.specs().resolvedPools(settings.cluster());
        Map<String, ResolvedPool> byName = new TreeMap<>();
        offeredPools.forEach(p -> byName.put(p.name(), p));
        if (acting != null && candidate.commit().equals(acting.commit()) && acting.pools().keySet().equals(byName.keySet())) {
            return;
        }
        CommitAcceptance.Verdict verdict = acting == null
                ? CommitAcceptance.judge(candidate.commit(), candidate.specs(), settings.cluster(), Map.of(), InPlaceHistory.NONE)
                : CommitAcceptance.judge(candidate.commit(), candidate.specs(), settings.cluster(), acting.pools(), history());
        tokensToRecord.putAll(verdict.forceTokensUsed());
        List<String> refusals = new ArrayList<>(unreadableRecords);
        refusals.addAll(verdict.refusals());
        if (!refusals.isEmpty()) {
            if (!refusals.equals(rejected)) {
                LOG.error("commit {} is not applied; keeping {}: {}", candidate.commit(), acting == null ? "nothing" : acting.commit(), refusals);
            }
            rejected = List.copyOf(refusals);
            return;
        }
        rejected = List.of();
        Map<String, PoolTarget> newTargets = targets.accept(candidate.commit(), byName, acting == null ? Map.of() : acting.pools(),
                Map.copyOf(acceptedRecords), acting == null ? InPlaceHistory.NONE : history(), settings.cluster());
        acting = new Acting(candidate.commit(), cluster.get(), byName);
        String clusterText = CanonicalYaml.cluster(cluster.get());
        acceptedRecords.clear();
        byName.forEach((name, p) -> acceptedRecords.put(name,
                new PoolStatusRecords.Accepted(candidate.commit(), clusterText, CanonicalYaml.pool(p.pool()))));
        if (newTargets.isEmpty()) {
            LOG.info("acting on commit {}; no pool's target changes", candidate.commit());
        } else {
            LOG.info("acting on commit {}; new target for {}", candidate.commit(), PoolTargets.describe(newTargets));
        }
    }

    /** In-place updates still in flight or failed, and the force tokens already spent, per pool. */
    private InPlaceHistory history() {
        Map<String, InPlaceHistory.Entry> entries = new HashMap<>();
        ObservedCluster observed = observer.observe(MaintenanceState.CLOSED, true, Set.of());
        for (ObservedNode n : observed.nodes()) {
            if (n.updatingInPlace() || n.inPlaceFailed()) {
                entries.put(InPlaceHistory.key(settings.cluster(), n.pool()),
                        new InPlaceHistory.Entry(true, observed.status(n.pool()).usedForceTokens()));
            }
        }
        observed.poolStatus().forEach((pool, s) -> entries.putIfAbsent(InPlaceHistory.key(settings.cluster(), pool),
                new InPlaceHistory.Entry(false, s.usedForceTokens())));
        return new InPlaceHistory(entries);
    }

    /**
     * Writes each pool's record where it changed: its status and the spec it accepted. Records of
     * pools no longer accepted lose their accepted spec: such a pool, offered again, is new.
     */
    private void writeStatus(Map<String, PoolStatus> statuses, ObservedCluster observed) {
        Set<String> pools = new TreeSet<>(statuses.keySet());
        pools.addAll(acceptedRecords.keySet());
        observed.poolStatus().keySet().stream().filter(p -> observer.statusRecord(settings.namespace(), p)
                .flatMap(PoolStatusRecords::accepted).isPresent()).forEach(pools::add);
        for (String pool : pools) {
            PoolStatus s = statuses.getOrDefault(pool, observed.status(pool));
            String token = tokensToRecord.remove(pool);
            if (token != null) {
                Set<String> tokens = new HashSet<>(s.usedForceTokens());
                tokens.add(token);
                s = new PoolStatus(s.outdatedNodes(), s.lastProgressAt(), s.lastTerminationAt(), s.validationStreak(), tokens, s.paused());
            }
            Map<String, String> data = PoolStatusRecords.data(s, Optional.ofNullable(acceptedRecords.get(pool)),
                    acceptedRecords.containsKey(pool) ? targets.why(pool) : PoolStatusRecords.Why.NONE);
            Optional<ConfigMap> existing = observer.statusRecord(settings.namespace(), pool);
            if (existing.isPresent() && data.equals(existing.get().getData())) {
                continue;
            }
            if (existing.isEmpty()) {
                try {
                    client.configMaps().inNamespace(settings.namespace()).resource(PoolStatusRecords.create(settings.namespace(), pool, data))
                            .create();
                    continue;
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 409) {
                        throw e;
                    }
                    // Created a moment ago and not yet in the watch cache: update it instead.
                }
            }
            client.configMaps().inNamespace(settings.namespace()).withName(PoolStatusRecords.name(pool))
                    .edit(cm -> {
                        cm.setData(data);
                        return cm;
                    });
        }
    }

    /** The commit acted on. */
    public Optional<String> acceptedCommit() {
        Acting a = acting;
        return a == null ? Optional.empty() : Optional.of(a.commit());
    }

    /** Lets a reconcile in progress finish its steps (a leader handing over mid-step would leave work half done). */
    @Override
    public void close() {
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
