package dev.nightshift.agent.reconcile;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.eta.RolloutEta;
import dev.nightshift.agent.fence.Fence;
import dev.nightshift.agent.health.EvictedWorkloads;
import dev.nightshift.agent.health.HealthJudge;
import dev.nightshift.agent.git.SpecRevision;
import dev.nightshift.agent.kube.ClusterObserver;
import dev.nightshift.agent.kube.EventRecorder;
import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.spec.model.KubernetesVersion;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolReport;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The level-triggered loop: any change (a new good spec, a node, pod or record change, a window opening or closing, a
 * timer) asks for one pass; requests made while one runs collapse into one more, so passes never overlap. Only the
 * leader runs passes; a failed pass is reported and tried again shortly. What a pass does is {@link ReconcilePass}'s.
 */
public final class Reconciler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);
    /** How often to look again while something is in flight (drains retry, machines come up). */
    static final Duration BUSY_RESYNC = Duration.ofSeconds(2);
    static final Duration IDLE_RESYNC = Duration.ofSeconds(30);

    /**
     * @param validationsRequired consecutive successful validations a pool needs before it starts and between batches
     * @param validationInterval  the least time between two validations that count
     * @param leading             whether to act from the start; with leader election the agent starts standing by
     * @param managed             the pools acted on ({@code pools:}; {@code rolling-update --instance-group})
     * @param byHand              a run by hand ({@code rolling-update}): maintenance windows are not consulted, and what
     *                            {@link HandRun} says; empty: the agent's
     */
    public record Settings(String cluster, String namespace, int validationsRequired, Duration validationInterval, boolean dryRun,
                           Optional<KubernetesVersion> apiServerVersion, boolean leading, ManagedPools managed,
                           Optional<HandRun> byHand) {

        /** The agent's: every pool, inside maintenance windows. */
        public Settings(String cluster, String namespace, int validationsRequired, Duration validationInterval, boolean dryRun,
                        Optional<KubernetesVersion> apiServerVersion, boolean leading) {
            this(cluster, namespace, validationsRequired, validationInterval, dryRun, apiServerVersion, leading, ManagedPools.ALL,
                    Optional.empty());
        }

        public Settings with(ManagedPools pools) {
            return new Settings(cluster, namespace, validationsRequired, validationInterval, dryRun, apiServerVersion, leading, pools,
                    byHand);
        }
    }

    /** What runs a pass: {@link ReconcilePass} in the agent, a fake in the loop's tests. */
    interface Pass {

        /** One pass from the newest good spec offered (null before the first); empty while nothing is accepted. */
        Optional<ReconcileReport> run(SpecRevision offered, Instant now);

        /** This replica became the leader. */
        void rebuildAcceptance();

        /** A term as leader ended. */
        void forgetTerm();

        Optional<String> acceptedCommit();

        /** Why the newest commit was not taken. */
        java.util.List<String> rejected();

        /** Steps of its plan the last pass left for the next, its time for steps being up: the next pass runs at once. */
        default int stepsLeft() {
            return 0;
        }
    }

    private final Pass pass;
    private final Clock clock;
    private final Consumer<ReconcileReport> reports;
    private final AutoCloseable closing;
    private final ScheduledThreadPoolExecutor loop = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "nightshift-reconcile");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean pending = new AtomicBoolean();
    /** Only the leader reconciles; a replica standing by keeps the newest spec and plans nothing. */
    private volatile boolean leading;
    /** Set by the lease's threads, taken by the loop's: a pass never sees half a change of term. */
    private volatile boolean rebuild;
    private volatile boolean forgetTerm;
    private ScheduledFuture<?> wake;
    private volatile SpecRevision offered;

    /**
     * The agent's loop and pass against the cluster.
     *
     * @param apiServerReady asked once per pass that validates a pool or starts a repair: the API server reports itself ready
     * @param events         records on each disrupted node why it is disrupted
     */
    public Reconciler(Settings settings, KubernetesClient client, ClusterObserver observer, StepExecutor executor,
                      BooleanSupplier apiServerReady, RolloutPlanner planner, Clock clock, Consumer<ReconcileReport> reports,
                      EventRecorder events) {
        this(settings, client, observer, executor, apiServerReady, planner, clock, reports, events, Fence.open());
    }

    /** @param fence asked before each step with the lease: a replica whose lease was not renewed in time stops its pass */
    public Reconciler(Settings settings, KubernetesClient client, ClusterObserver observer, StepExecutor executor,
                      BooleanSupplier apiServerReady, RolloutPlanner planner, Clock clock, Consumer<ReconcileReport> reports,
                      EventRecorder events, Fence fence) {
        this(settings, client, observer, executor, apiServerReady, planner, clock, reports, events, fence, HealthJudge.NONE);
    }

    /** @param health judges the rolling pools' health checks; {@link HealthJudge#NONE}: pools with checks stay unknown */
    public Reconciler(Settings settings, KubernetesClient client, ClusterObserver observer, StepExecutor executor,
                      BooleanSupplier apiServerReady, RolloutPlanner planner, Clock clock, Consumer<ReconcileReport> reports,
                      EventRecorder events, Fence fence, HealthJudge health) {
        this(settings, client, observer, executor, apiServerReady, planner, clock, reports, events, fence, health, new EvictedWorkloads());
    }

    /**
     * @param evicted the workloads whose pods the drains evicted, as {@code health}'s workloadsAvailable check follows
     *                them: kept in the pools' records at each pass and taken up again at each term as leader
     */
    public Reconciler(Settings settings, KubernetesClient client, ClusterObserver observer, StepExecutor executor,
                      BooleanSupplier apiServerReady, RolloutPlanner planner, Clock clock, Consumer<ReconcileReport> reports,
                      EventRecorder events, Fence fence, HealthJudge health, EvictedWorkloads evicted) {
        AcceptedSpecs accepted = new AcceptedSpecs(client, observer, settings.cluster(), settings.namespace(),
                RollbackNotes.events(events, settings.namespace(), settings.dryRun()), evicted);
        EtaRefresh eta = new EtaRefresh(new RolloutEta(planner.nodeUpdates()));
        this.leading = settings.leading();
        this.pass = new ReconcilePass(new ReconcilePass.Settings(settings.validationsRequired(), settings.dryRun(),
                settings.apiServerVersion(), settings.managed(), settings.byHand()), accepted, new ObserverView(observer, executor, settings.namespace()), planner,
                new DisruptionStage(), runner(executor), new WhyEvents(events),
                new PoolRecordWriter(client, observer, settings.namespace(), accepted, clock, evicted), apiServerReady,
                settings.validationInterval(), () -> leading && fence.held(), eta, clock, health);
        this.clock = clock;
        this.reports = reports;
        this.closing = eta;
        this.rebuild = true;
        // On close, pending timers are dropped; only a pass already running finishes.
        loop.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** The executor's steps, and the drain passes it ran off the pass's thread. */
    private static StepRunner runner(StepExecutor executor) {
        return new StepRunner() {
            @Override
            public Optional<StepExecutor.Outcome> execute(dev.nightshift.strategies.plan.Step step) {
                return executor.execute(step);
            }

            @Override
            public java.util.List<StepExecutor.Outcome> finished() {
                return executor.finishedDrains();
            }
        };
    }

    /** A loop around any pass (the loop's tests). */
    Reconciler(Pass pass, boolean leading, Clock clock, Consumer<ReconcileReport> reports) {
        this.pass = pass;
        this.leading = leading;
        this.clock = clock;
        this.reports = reports;
        this.closing = () -> { };
        this.rebuild = true;
        loop.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** This replica became the leader: act, starting from what is observed now and what the pool records say was accepted. */
    public void lead() {
        rebuild = true;
        leading = true;
        request();
    }

    /** This replica lost or gave up the lease: a pass in progress stops before its next step; nothing more starts. */
    public void standBy() {
        leading = false;
        forgetTerm = true;
    }

    public boolean leading() {
        return leading;
    }

    /** A new good spec from Git: taken at the next pass unless a change in it is not allowed. */
    public void offer(SpecRevision revision) {
        offered = revision;
        request();
    }

    /** Asks for a pass soon; many requests while one is pending make one pass. */
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
            pass.forgetTerm();
        }
        if (rebuild) {
            rebuild = false;
            pass.rebuildAcceptance();
        }
        Instant now = clock.instant();
        Duration next = IDLE_RESYNC;
        try {
            Optional<ReconcileReport> report = pass.run(offered, now);
            if (report.isPresent()) {
                reports.accept(report.get());
                next = pass.stepsLeft() > 0 ? Duration.ZERO : nextWake(report.get().plan(), now);
            }
        } catch (RuntimeException e) {
            LOG.error("reconcile failed; trying again shortly", e);
            reports.accept(ReconcileReport.failed(now, pass.acceptedCommit().orElse(""), pass.rejected(),
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

    /** Busy while steps run or a rollout is in progress; waiting (for a window, a turn) is not: schedulers and informers wake us. */
    static Duration nextWake(Plan plan, Instant now) {
        boolean busy = !plan.steps().isEmpty() || plan.reports().values().stream().anyMatch(PoolReport::rolloutInProgress);
        Duration resync = busy ? BUSY_RESYNC : IDLE_RESYNC;
        return plan.wakeAt().map(t -> Duration.between(now, t)).filter(d -> d.compareTo(resync) < 0).orElse(resync);
    }

    /** The commit acted on. */
    public Optional<String> acceptedCommit() {
        return pass.acceptedCommit();
    }

    /** Lets a pass in progress finish its step (a leader handing over mid-step would leave work half done). */
    @Override
    public void close() {
        try {
            closing.close();
        } catch (Exception e) {
            LOG.warn("closing the estimates failed", e);
        }
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
