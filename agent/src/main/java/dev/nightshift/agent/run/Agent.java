package dev.nightshift.agent.run;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.fence.Fence;
import dev.nightshift.agent.fence.FenceInterceptor;
import dev.nightshift.agent.git.CommitCheck;
import dev.nightshift.agent.git.GitCredentials;
import dev.nightshift.agent.git.GitSource;
import dev.nightshift.agent.git.GitSourceConfig;
import dev.nightshift.agent.git.GitSourceException;
import dev.nightshift.agent.git.PollResult;
import dev.nightshift.agent.git.Secret;
import dev.nightshift.agent.git.SpecListener;
import dev.nightshift.agent.git.SpecPoller;
import dev.nightshift.agent.git.SpecRevision;
import dev.nightshift.agent.http.AgentHttpServer;
import dev.nightshift.agent.http.GitWebhookHandler;
import dev.nightshift.agent.http.MetricsHandler;
import dev.nightshift.agent.http.StatusJson;
import dev.nightshift.agent.http.TextHandler;
import dev.nightshift.agent.http.WebView;
import dev.nightshift.agent.http.WebhookVerifier;
import dev.nightshift.agent.kube.ApiServerProbe;
import dev.nightshift.agent.kube.ClusterObserver;
import dev.nightshift.agent.health.EvictedWorkloads;
import dev.nightshift.agent.health.HealthChecks;
import dev.nightshift.agent.health.PrometheusClient;
import dev.nightshift.agent.health.PrometheusEndpoint;
import dev.nightshift.agent.health.PrometheusQueries;
import dev.nightshift.agent.health.WorkloadsAvailability;
import dev.nightshift.agent.health.WorkloadsCheck;
import dev.nightshift.agent.kube.EventRecorder;
import dev.nightshift.agent.report.RolloutProgressJson;
import dev.nightshift.agent.kube.Evictor;
import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.agent.kube.DrainPasses;
import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.agent.metrics.AgentMetrics;
import dev.nightshift.agent.metrics.ApiErrorInterceptor;
import dev.nightshift.agent.nodeupdate.JobNodeUpdater;
import dev.nightshift.agent.nodeupdate.JobSettings;
import dev.nightshift.agent.notify.Notifier;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.agent.provider.NoNodeUpdates;
import dev.nightshift.agent.provider.NodeUpdater;
import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.agent.reconcile.Reconciler;
import dev.nightshift.agent.schedule.AgentScheduler;
import dev.nightshift.agent.window.MaintenanceCalendar;
import dev.nightshift.spec.diff.CommitAcceptance;
import dev.nightshift.spec.load.SpecError;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.KubernetesVersion;
import dev.nightshift.spec.model.Maintenance;
import dev.nightshift.strategies.NodeUpdates;
import dev.nightshift.strategies.RolloutPlanner;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.VersionInfo;

/**
 * The running agent: Git → specs → reconcile loop → cluster, woken by the scheduler (polls, window
 * boundaries), webhooks and informers, and watched through its HTTP port. With leader election, a
 * {@link LeaseElection} decides whether its reconciler acts or stands by.
 */
public final class Agent implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Agent.class);
    public static final String NAMESPACE = "nightshift-system";

    private final AgentConfig config;
    /** No write while it does not hold: the lease renewed within its renew deadline (always, without leader election). */
    private final Fence fence;
    /** The caller's client: only its configuration is used, for a client of our own that counts API errors. */
    private final KubernetesClient given;
    private final AgentMetrics metrics;
    private KubernetesClient client;
    private final MachineProvider provider;
    /** The given updater; with {@code nodeUpdates.type: job} the Job updater, built at start with the agent's client. */
    private NodeUpdater nodeUpdates;
    private final Clock clock;
    /** Filled by the drains, judged by the workloadsAvailable check, kept in the pools' records, shown in /status. */
    private final EvictedWorkloads evictedWorkloads = new EvictedWorkloads();
    private final Consumer<ReconcileReport> reportListener;
    private final AtomicReference<ReconcileReport> lastReport = new AtomicReference<>();
    private final AtomicReference<String> lastPollError = new AtomicReference<>();
    private final AtomicReference<String> latestCommit = new AtomicReference<>();
    /** The newest commit whose specs are valid: the one a report's {@code rejected} is about. */
    private final AtomicReference<String> latestGoodCommit = new AtomicReference<>();
    private GitSource source;
    private SpecPoller poller;
    private ClusterObserver observer;
    private Evictor evictor;
    /** Drain passes, off the reconcile's thread. */
    private DrainPasses drains;
    private ApiServerProbe apiServerProbe;
    private Reconciler reconciler;
    private EventRecorder events;
    /** Commit statuses and events; empty without {@code notifications:} and in a dry run. */
    private Optional<Notifier> notifier = Optional.empty();
    private AgentScheduler scheduler;
    private AgentHttpServer http;
    private final AtomicReference<String> currentLeader = new AtomicReference<>();
    /** Only with leader election. */
    private LeaseElection election;
    /** The maintenance the window wake-ups were scheduled for; rescheduled only when it changes. */
    private Optional<Maintenance> calendarFor;

    /** With one backend that both provides machines and updates nodes (the simulated cloud). */
    public <B extends MachineProvider & NodeUpdater> Agent(AgentConfig config, KubernetesClient client, B backend, Clock clock,
                                                           Consumer<ReconcileReport> reportListener) {
        this(config, client, backend, backend, clock, reportListener);
    }

    public Agent(AgentConfig config, KubernetesClient client, MachineProvider provider, NodeUpdater nodeUpdates, Clock clock,
                 Consumer<ReconcileReport> reportListener) {
        this(config, client, provider, nodeUpdates, clock, reportListener, fence(config, clock));
    }

    /**
     * @param fence whether this replica may write now; the same the machine provider's client asks before each request
     *              ({@link #fence(AgentConfig, Clock)} makes it for a configuration)
     */
    public Agent(AgentConfig config, KubernetesClient client, MachineProvider provider, NodeUpdater nodeUpdates, Clock clock,
                 Consumer<ReconcileReport> reportListener, Fence fence) {
        this.fence = fence;
        this.config = config;
        this.given = client;
        this.metrics = new AgentMetrics(Optional.ofNullable(Agent.class.getPackage().getImplementationVersion()).orElse("development"));
        this.provider = provider;
        // With node updates off, the given updater is never reachable, whatever the planner does.
        this.nodeUpdates = config.nodeUpdatesType().equals(AgentConfig.NodeUpdates.NONE) ? new NoNodeUpdates() : nodeUpdates;
        this.clock = clock;
        this.reportListener = reportListener;
    }

    /** The fence for this configuration: the lease's, with leader election; always held without. */
    public static Fence fence(AgentConfig config, Clock clock) {
        return config.leaderElection().enabled() ? Fence.lease(clock, config.leaderElection().renewDeadline()) : Fence.open();
    }

    public void start() throws Exception {
        String cluster = config.cluster().orElseThrow(() -> new IllegalArgumentException("the cluster to manage is not set"));
        // Read first: a missing, empty or short webhook secret fails the start before anything runs.
        Optional<Secret> webhookSecret = config.webhook().secret(System.getenv());
        config.provider().flatMap(config.nodeUpdates()::refusal).ifPresent(why -> {
            throw new IllegalArgumentException("nodeUpdates.type: " + why);
        });
        if (!AgentConfig.NodeUpdates.RUNNABLE.contains(config.nodeUpdatesType())) {
            throw new IllegalArgumentException("nodeUpdates.type: " + config.nodeUpdatesType() + " is not in this release");
        }
        boolean nodeUpdatesOff = config.nodeUpdatesType().equals(AgentConfig.NodeUpdates.NONE);
        Optional<JobSettings> jobs = config.nodeUpdatesType().equals(AgentConfig.NodeUpdates.JOB)
                ? Optional.of(config.nodeUpdates().job().orElseThrow(() -> new IllegalArgumentException(
                        "nodeUpdates.type: job needs nodeUpdates.job: at least its image and command")))
                : Optional.empty();
        String chosen = !config.nodeUpdates().defaulted() ? "as configured"
                : config.provider().map(p -> "the default with provider " + p.type()).orElse("the default");
        LOG.info("node updates: {} ({}); {}", config.nodeUpdatesType(), chosen, nodeUpdatesOff
                ? "in-place and kubelet-only changes are reported, never executed"
                : jobs.map(j -> "privileged Jobs of image " + j.image() + " in namespace " + j.namespace() + " update nodes")
                        .orElse("the machine provider updates nodes"));
        AgentConfig.Git git = config.git();
        source = new GitSource(new GitSourceConfig(git.url().orElseThrow(() -> new IllegalArgumentException("no repository URL")),
                git.ref(), git.path(), credentials(git.auth()), config.cacheDir(), git.caFile(), git.timeout(), git.verify()));
        git.verify().ifPresent(v -> LOG.info("git.verify: only commits with {} signatures by an allowed key are applied; rewinds {}",
                v.mode().label(), v.allowRewind() ? "are applied and reported (allowRewind)" : "are refused"));
        ApiErrorInterceptor apiErrors = new ApiErrorInterceptor(metrics);
        client = new KubernetesClientBuilder().withConfig(given.getConfiguration())
                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("nightshift-api-errors", apiErrors)
                        .addOrReplaceInterceptor("nightshift-fence", new FenceInterceptor(fence)))
                .build();
        metrics.notificationDestinations(Notifier.destinations(config.notifications()));
        if (config.notifications().any() && config.dryRun()) {
            LOG.info("notifications: none in a dry run (it writes nothing, and tells no one)");
        } else if (config.notifications().any()) {
            // Its secrets' files are checked here: a missing one fails the start before anything runs.
            notifier = Optional.of(Notifier.start(config.notifications(), cluster, client, NAMESPACE, clock,
                    () -> reconciler != null && reconciler.leading() && fence.held(), metrics::notification));
            LOG.info("notifications to {}", String.join(", ", Notifier.destinations(config.notifications())));
        }
        observer = new ClusterObserver(client, NAMESPACE, provider, this::requestReconcile, clock, jobs.map(JobSettings::namespace),
                metrics::watchEvent);
        observer.start();
        // Evictions are writes: fenced like the agent's own client.
        evictor = new Evictor(client.getConfiguration(), List.of(apiErrors, new FenceInterceptor(fence)));
        apiServerProbe = new ApiServerProbe(client.getConfiguration(), List.of(apiErrors));
        // Written on a thread of their own: no reconcile waits on an Event.
        events = EventRecorder.onItsOwnThread(client, clock, config.leaderElection().identity());
        if (jobs.isPresent()) {
            nodeUpdates = new JobNodeUpdater(client, jobs.get(), provider, events, clock);
        }
        // No reconcile waits on a drain: the passes run on threads of their own, and the next reconcile reports them.
        drains = DrainPasses.onThreads(DrainPasses.DEFAULT_THREADS);
        StepExecutor executor = new StepExecutor(client, evictor, observer, provider, nodeUpdates, clock, events, evictedWorkloads,
                drains);
        reconciler = new Reconciler(new Reconciler.Settings(cluster, NAMESPACE, config.validation().consecutive(),
                config.validation().interval(), config.dryRun(), apiServerVersion(), !config.leaderElection().enabled()).with(config.pools()), client,
                observer, executor, apiServerProbe, new RolloutPlanner(nodeUpdatesOff ? NodeUpdates.OFF : NodeUpdates.ON), clock,
                this::onReport, events, fence, healthChecks(config.health(), WorkloadsAvailability.of(evictedWorkloads, client)),
                evictedWorkloads);
        // Alone, it acts from its first reconcile on, and its reports feed the pool series.
        metrics.leading(!config.leaderElection().enabled());
        poller = new SpecPoller(source, new SpecLoader(), Optional.of(cluster), new SpecListener() {
            @Override
            public void onSpec(SpecRevision revision) {
                metrics.headVerified(true);
                metrics.specLoaded(0);
                latestCommit.set(revision.commit());
                latestGoodCommit.set(revision.commit());
                lastPollError.set(null);
                reconciler.offer(revision);
                wakeAtWindows(revision);
            }

            @Override
            public void onInvalidSpec(String commit, List<SpecError> errors) {
                metrics.headVerified(true);
                metrics.specLoaded(errors.size());
                latestCommit.set(commit);
                lastPollError.set(null);
                if (reconciler.leading()) {
                    // A replica standing by writes nothing to the cluster.
                    invalidSpecEvent(commit, errors);
                    notifier.ifPresent(n -> n.onInvalidSpec(commit, errors));
                }
            }

            @Override
            public void onUnverifiedCommit(CommitCheck check) {
                metrics.headVerified(false);
                latestCommit.set(check.commit());
                lastPollError.set(check.refusal());
                if (reconciler.leading() && !config.dryRun()) {
                    events.record(NAMESPACE, EventRecorder.Regarding.namespace(NAMESPACE), EventRecorder.Reason.UnverifiedCommit,
                            check.refusal());
                    notifier.ifPresent(n -> n.onUnverified(check.commit(), check.refusal()));
                }
            }

            @Override
            public void onPollFailed(GitSourceException error) {
                lastPollError.set(error.getMessage());
            }
        }, clock, git.verify().isPresent() ? this::recordedCommit : Optional::empty);
        scheduler = new AgentScheduler(clock, new Random());
        http = new AgentHttpServer(new InetSocketAddress(config.http().port()));
        http.handle("/healthz", new TextHandler(() -> new TextHandler.Response(200, "text/plain", "ok\n")));
        http.handle("/readyz", new TextHandler(this::readiness));
        http.handle("/status", new TextHandler(() -> new TextHandler.Response(200, "application/json", status())));
        http.handle("/metrics", new MetricsHandler(metrics));
        // The read-only web view of /status (docs/operations/web-view.md); its context also answers 404 for unknown paths.
        http.handle("/", new WebView());
        webhookSecret.ifPresent(secret -> http.handle("/hooks/git",
                new GitWebhookHandler(new WebhookVerifier(secret), scheduler::pollNow)));
        http.start();
        scheduler.schedulePolling(git.pollInterval(), 0.1, this::poll);
        if (config.leaderElection().enabled()) {
            election = new LeaseElection(config.leaderElection(), NAMESPACE, given.getConfiguration(), List.of(apiErrors),
                    new Leadership(), fence, clock);
            election.start();
        }
        if (config.pools().restricted()) {
            LOG.info("pools: only {}{}; the others are not managed here", config.pools().include().isEmpty() ? "every pool"
                    : "pools " + new java.util.TreeSet<>(config.pools().include()),
                    config.pools().roles().isEmpty() ? "" : " of roles " + new java.util.TreeSet<>(config.pools().roles()));
        }
        LOG.info("agent started for cluster {} from {}; HTTP on port {}", cluster, source, http.port());
    }

    /**
     * What the election means to the agent: the leader reconciles; the others keep polling Git and
     * watching the cluster, ready but idle, so that a new leader starts from warm caches.
     */
    private final class Leadership implements LeaseElection.Listener {

        @Override
        public void leading() {
            metrics.leading(true);
            reconciler.lead();
        }

        @Override
        public void tookOver() {
            // A refused commit seen while standing by gets its Event now, from the replica that acts.
            Optional.ofNullable(latestCommit.get()).filter(c -> !poller.currentErrors().isEmpty())
                    .ifPresent(c -> {
                        invalidSpecEvent(c, poller.currentErrors());
                        notifier.ifPresent(n -> n.onInvalidSpec(c, poller.currentErrors()));
                    });
        }

        @Override
        public void standingBy() {
            metrics.leading(false);
            reconciler.standBy();
            notifier.ifPresent(Notifier::standBy);
        }

        @Override
        public void leaderChanged(String identity) {
            currentLeader.set(identity);
        }
    }

    /** The API server's own version, from {@code /version}; empty when it cannot be read (then no guard). */
    private Optional<KubernetesVersion> apiServerVersion() {
        try {
            VersionInfo v = client.getKubernetesVersion();
            return Optional.of(new KubernetesVersion(Integer.parseInt(v.getMajor().replaceAll("[^0-9]", "")),
                    Integer.parseInt(v.getMinor().replaceAll("[^0-9]", "")), 0));
        } catch (RuntimeException e) {
            LOG.warn("cannot read the API server's version; the version guard is off: {}", e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * A Kubernetes Event, so that `kubectl get events -n nightshift-system` shows a commit was refused and why.
     * Not in a dry run, which writes nothing (the log and {@code /status} still report the errors).
     */
    private void invalidSpecEvent(String commit, List<SpecError> errors) {
        if (config.dryRun()) {
            return;
        }
        String message = "commit " + commit + " is not applied; the last good spec stays in force: "
                + String.join("; ", errors.stream().limit(5).map(SpecError::toString).toList())
                + (errors.size() > 5 ? " (and " + (errors.size() - 5) + " more)" : "");
        events.record(NAMESPACE, EventRecorder.Regarding.namespace(NAMESPACE), EventRecorder.Reason.InvalidSpec, message);
    }

    /**
     * The commit most pools' status records say they accepted: what is in force for an agent that
     * has loaded nothing yet (after a restart), so that git.verify refuses a rewind then too. Empty
     * when there are no records or they cannot be read (then only the signature is judged).
     */
    private Optional<String> recordedCommit() {
        try {
            Map<String, String> byPool = new TreeMap<>();
            for (ConfigMap map : client.configMaps().inNamespace(NAMESPACE).withLabel(PoolStatusRecords.LABEL).list().getItems()) {
                PoolStatusRecords.accepted(map).ifPresent(a -> byPool.put(map.getMetadata().getName(), a.commit()));
            }
            return CommitAcceptance.majority(byPool);
        } catch (RuntimeException e) {
            LOG.warn("cannot read the commit in force from the pool records; a rewind is judged against the commits this agent"
                    + " applies from now on: {}", e.getMessage());
            return Optional.empty();
        }
    }

    private void wakeAtWindows(SpecRevision revision) {
        revision.specs().cluster(config.cluster().orElseThrow()).ifPresent(c -> {
            if (c.maintenance().equals(calendarFor)) {
                return;
            }
            calendarFor = c.maintenance();
            try {
                scheduler.wakeAtWindowChanges(new MaintenanceCalendar(c.maintenance()), this::requestReconcile);
            } catch (Exception e) {
                LOG.error("cannot schedule window wake-ups", e);
            }
        });
    }

    private void poll() {
        Instant start = clock.instant();
        PollResult result = poller.poll();
        Instant end = clock.instant();
        metrics.polled(result, Duration.between(start, end), end);
    }

    private void requestReconcile() {
        if (reconciler != null) {
            reconciler.request();
        }
    }

    /** The halt of each pool already told in an Event, by its time; only the reconcile thread reads and writes it. */
    private final Map<String, Instant> haltsReported = new java.util.concurrent.ConcurrentHashMap<>();

    private void onReport(ReconcileReport report) {
        if (reconciler.leading() && !config.dryRun()) {
            // The same message again adds to the same Event's count.
            report.providerFailures().forEach((pool, error) -> events.record(NAMESPACE, EventRecorder.Regarding.namespace(NAMESPACE),
                    EventRecorder.Reason.ProviderFailed, "Pool " + pool + " is held: its machine provider failed: " + error));
            // One Event per halt (a restarted agent says it once more, on the same Event: its name follows the message).
            if (report.plan() != null) {
                report.plan().reports().values().forEach(p -> p.status().halt()
                        .filter(h -> !h.at().equals(haltsReported.put(p.pool(), h.at()))).ifPresent(h -> events.record(NAMESPACE,
                        EventRecorder.Regarding.namespace(NAMESPACE), EventRecorder.Reason.RolloutHalted, "Pool " + p.pool()
                                + " halted at " + h.at() + ": " + RolloutProgressJson.describe(h)
                                + "; nothing new starts until `nightshift resume --pool " + p.pool() + "` or a new target")));
            }
        }
        metrics.reconciled(report);
        // Queued only: the destinations send on threads of their own, so this pass is not held up by them.
        notifier.ifPresent(n -> n.onReport(report, Optional.ofNullable(latestGoodCommit.get())));
        lastReport.set(report);
        reportListener.accept(report);
    }

    /** The rollout health checks: Prometheus as configured (none: every Prometheus check is unknown, never passing). */
    private static HealthChecks healthChecks(AgentConfig.Health health, WorkloadsCheck workloads) {
        PrometheusQueries prometheus = health.prometheusUrl()
                .<PrometheusQueries>map(url -> new PrometheusClient(new PrometheusEndpoint(url, health.tokenFile(), health.caFile(),
                        health.timeout())))
                .orElse(PrometheusQueries.NONE);
        health.prometheusUrl().ifPresent(url -> LOG.info("rollout health checks query Prometheus at {}{}", url,
                health.tokenFile().map(f -> " with the token in " + f).orElse("")));
        return new HealthChecks(prometheus, workloads);
    }

    private static GitCredentials credentials(AgentConfig.Auth auth) throws IOException {
        if (auth.sshKeyFile().isPresent()) {
            return new GitCredentials.SshKey(auth.sshKeyFile().get(), auth.knownHostsFile().orElseThrow());
        }
        Optional<Secret> token = auth.tokenFile().isPresent() ? Optional.of(Secret.fromFile(auth.tokenFile().get()))
                : auth.tokenEnv().flatMap(v -> Secret.fromEnvironment(System.getenv(), v));
        if (token.isPresent()) {
            return new GitCredentials.HttpsToken(auth.user().orElse("git"), token.get());
        }
        return new GitCredentials.None();
    }

    /**
     * Ready once a good spec was loaded and the Kubernetes API answers: for the leader, its last
     * reconcile went through; for a replica standing by, its watches are up. Standing by is ready.
     */
    private TextHandler.Response readiness() {
        if (poller == null || poller.lastGood().isEmpty()) {
            return new TextHandler.Response(503, "text/plain", "not ready: no good spec loaded yet\n");
        }
        if (reconciler.leading()) {
            ReconcileReport report = lastReport.get();
            if (report == null || report.error().isPresent()) {
                return new TextHandler.Response(503, "text/plain", "not ready: "
                        + (report == null ? "no reconcile yet" : "the last reconcile failed: " + report.error().get()) + "\n");
            }
            return new TextHandler.Response(200, "text/plain", "ready: leading\n");
        }
        if (!observer.watching()) {
            return new TextHandler.Response(503, "text/plain", "not ready: the Kubernetes API is not being watched\n");
        }
        return new TextHandler.Response(200, "text/plain", "ready: standing by; " + Optional.ofNullable(currentLeader.get())
                .map(l -> l + " leads").orElse("no leader yet") + "\n");
    }

    /** Whether this replica acts (always, without leader election). */
    public boolean leading() {
        return reconciler != null && reconciler.leading();
    }

    public String status() {
        return StatusJson.write(reconciler == null ? Optional.empty() : reconciler.acceptedCommit(),
                Optional.ofNullable(latestCommit.get()), poller == null ? List.of() : poller.currentErrors(),
                Optional.ofNullable(lastReport.get()), Optional.ofNullable(lastPollError.get()),
                new StatusJson.Leadership(config.leaderElection().enabled(), leading(), config.leaderElection().identity(),
                        Optional.ofNullable(currentLeader.get())), poller == null ? Optional.empty() : poller.lastCheck(),
                notifier.map(Notifier::status), evictedWorkloads::of);
    }

    public int httpPort() {
        return http.port();
    }

    /** Polls Git now (as the webhook does). */
    public void pollNow() {
        scheduler.pollNow();
    }

    public List<SpecError> specErrors() {
        return poller == null ? List.of() : poller.currentErrors();
    }

    /**
     * The newest commit polled, valid or not; {@link #specErrors()} are its errors once it is this
     * one (the poller records the errors before it names the commit).
     */
    public Optional<String> latestCommit() {
        return Optional.ofNullable(latestCommit.get());
    }

    @Override
    public void close() {
        if (election != null) {
            election.stopJoining();
        }
        if (reconciler != null) {
            // Stop acting and let the reconcile in progress finish its step before the lease goes:
            // the replica that takes over must not act beside this one.
            reconciler.standBy();
            reconciler.close();
        }
        if (drains != null) {
            // And the drain passes it started, within their evictions' timeout, also while the lease is held.
            drains.close();
        }
        if (events != null) {
            // The Events recorded are written while the lease is held (their writes are fenced too).
            events.close();
        }
        // Deliveries under way finish and are written down while the lease is still held (the ledger's writes are fenced).
        notifier.ifPresent(Notifier::close);
        if (election != null) {
            // Then the lease goes, so that a standby takes over at once rather than after it expires.
            election.leave();
        }
        for (AutoCloseable c : new AutoCloseable[] {http, scheduler, reconciler, observer, evictor, apiServerProbe, source,
                election, client, metrics}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    LOG.warn("closing {}: {}", c.getClass().getSimpleName(), e.getMessage());
                }
            }
        }
    }
}
