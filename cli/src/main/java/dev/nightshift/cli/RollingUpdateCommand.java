package dev.nightshift.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.nightshift.agent.command.Plugin;
import dev.nightshift.agent.command.ValidSpecs;
import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.fence.Fence;
import dev.nightshift.agent.git.GitSourceException;
import dev.nightshift.agent.git.SpecCommits;
import dev.nightshift.agent.git.SpecRevision;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.agent.kube.ApiServerProbe;
import dev.nightshift.agent.kube.ClusterObserver;
import dev.nightshift.agent.kube.EventRecorder;
import dev.nightshift.agent.kube.Evictor;
import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.agent.reconcile.HandRun;
import dev.nightshift.agent.reconcile.ManagedPools;
import dev.nightshift.agent.reconcile.Reconciler;
import dev.nightshift.agent.run.Agent;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.DurationText;
import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.strategies.NodeUpdates;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedCluster;
import io.fabric8.kubernetes.client.KubernetesClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nightshift rolling-update}: kops' {@code rolling-update cluster}, for people who run it by hand or in an
 * emergency. Without {@code --yes} it prints kops' preview and changes nothing; with it, it updates the selected pools in
 * the foreground through the agent's own reconcile (planner, guard, executor, drains), maintenance windows aside, and
 * exits 0 when every selected pool is current, 1 on a failure. {@code --cloudonly} replaces machines through the
 * provider alone, with no Kubernetes request ({@link CloudOnlyUpdate}). It refuses to run while an agent holds the
 * Lease, so the two never act at once. See docs/commands/rolling-update.md.
 */
@Command(name = "rolling-update", mixinStandardHelpOptions = true,
        description = {"Roll the cluster's pools now, in the foreground, as kops' rolling-update cluster: without --yes, show what "
                + "would be done and change nothing.", "Refuses to run while an agent holds its Lease (exit 2)."})
public final class RollingUpdateCommand implements java.util.concurrent.Callable<Integer> {

    static final int EXIT_FAILED = 1;

    private final List<Plugin> plugins;

    RollingUpdateCommand(List<Plugin> plugins) {
        this.plugins = List.copyOf(plugins);
    }

    @Spec
    private CommandSpec spec;

    @Mixin
    private KubernetesOptions kubernetes;

    @Mixin
    private ProviderFlags providerFlags;

    @Option(names = "--spec", paramLabel = "DIR", description = "Spec file or directory (or --repo and --ref).")
    Path specPath;

    @Option(names = "--repo", paramLabel = "PATH_OR_URL", description = "Spec repository (a path or URL, as for diff), with --ref.")
    String repo;

    @Option(names = "--ref", paramLabel = "REF", description = "Branch, tag or commit of --repo (default main).")
    String ref;

    @Option(names = "--path", paramLabel = "DIR", description = "Spec directory inside --repo.")
    String repoPath;

    @Option(names = "--yes", description = "Carry out the update (without it: a preview that changes nothing).")
    boolean yes;

    @Option(names = "--instance-group", paramLabel = "NAME", split = ",", description = "Only these pools (kops: instance groups).")
    List<String> instanceGroups = new ArrayList<>();

    @Option(names = "--instance-group-roles", paramLabel = "ROLE", split = ",",
            description = "Only pools of these roles: bastion, control-plane (or master), apiserver, node.")
    List<String> instanceGroupRoles = new ArrayList<>();

    @Option(names = "--cloudonly", description = "No Kubernetes API request at all: machines replaced by the provider only "
            + "(no taint, cordon, drain or validation), for a cluster whose API is down. Not with cluster-api.")
    boolean cloudOnly;

    @Option(names = "--force", description = "Update the machines that are current too.")
    boolean force;

    @Option(names = "--bastion-interval", paramLabel = "DURATION", defaultValue = "15s",
            description = "After a bastion pool's machine is deleted, wait at least this long before its next one (the pool's interval "
                    + "when longer; default ${DEFAULT-VALUE}).")
    String bastionInterval;

    @Option(names = "--master-interval", paramLabel = "DURATION", defaultValue = "15s",
            description = "The same for control-plane and apiserver pools (default ${DEFAULT-VALUE}).")
    String masterInterval;

    @Option(names = "--node-interval", paramLabel = "DURATION", defaultValue = "15s",
            description = "The same for node pools (default ${DEFAULT-VALUE}).")
    String nodeInterval;

    @Option(names = "--validation-timeout", paramLabel = "DURATION", defaultValue = "15m",
            description = "How long a pool may wait for the cluster to validate before a batch (--cloudonly: for its machines to run; "
                    + "default ${DEFAULT-VALUE}).")
    String validationTimeout;

    @Option(names = "--drain-timeout", paramLabel = "DURATION", defaultValue = "15m",
            description = "How long one node's drain may take (default ${DEFAULT-VALUE}).")
    String drainTimeout;

    @Option(names = "--fail-on-validate-error", arity = "0..1", defaultValue = "true", fallbackValue = "true",
            description = "Past --validation-timeout, stop with exit 1 (default ${DEFAULT-VALUE}); false: warn and start the batch anyway.")
    boolean failOnValidateError;

    @Option(names = "--fail-on-drain-error", arity = "0..1", defaultValue = "true", fallbackValue = "true",
            description = "Past --drain-timeout, stop with exit 1, the node left cordoned (default ${DEFAULT-VALUE}); false: warn and "
                    + "delete (or update) the node with its pods.")
    boolean failOnDrainError;

    /** The flags' durations, checked. */
    record Timing(Map<PoolRole, Duration> intervals, Duration validationTimeout, Duration drainTimeout) {
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter out = spec.commandLine().getOut();
        Optional<Timing> timing = timing(err);
        Optional<ManagedPools> selection = selection(err);
        if (timing.isEmpty() || selection.isEmpty()) {
            return Main.EXIT_USAGE;
        }
        Optional<AgentConfig> config = config(err);
        if (config.isEmpty()) {
            return Main.EXIT_USAGE;
        }
        Optional<Loaded> loaded = load(providerFlags.cluster(config.get()), err);
        if (loaded.isEmpty()) {
            return Main.EXIT_USAGE;
        }
        String type = config.get().provider().orElseThrow().type();
        if (cloudOnly && type.equals(AgentConfig.Provider.CLUSTER_API)) {
            err.println("--cloudonly cannot work with provider cluster-api: its machines are Cluster API objects in a Kubernetes API,"
                    + " and --cloudonly makes no Kubernetes request; use the cloud's own console, or a run without --cloudonly");
            return Main.EXIT_USAGE;
        }
        if (cloudOnly && type.equals(AgentConfig.Provider.SIMULATED)) {
            err.println("--cloudonly cannot work with provider simulated: its machines are Node objects of the Kubernetes API");
            return Main.EXIT_USAGE;
        }
        ClusterSpec clusterSpec = loaded.get().cluster();
        List<ResolvedPool> all = loaded.get().specs().resolvedPools(clusterSpec.name());
        Set<String> names = all.stream().map(ResolvedPool::name).collect(Collectors.toSet());
        List<String> unknown = selection.get().include().stream().filter(n -> !names.contains(n)).sorted().toList();
        if (!unknown.isEmpty()) {
            err.println("--instance-group: no pool " + String.join(", ", unknown) + " in cluster " + clusterSpec.name() + "; its pools are "
                    + all.stream().map(ResolvedPool::name).sorted().collect(Collectors.joining(", ")));
            return Main.EXIT_USAGE;
        }
        // In the agent's order: bastions, control planes, apiservers, nodes; by name within a role.
        List<DesiredPool> selected = all.stream().filter(selection.get()::manages)
                .sorted(Comparator.comparing((ResolvedPool p) -> p.pool().role()).thenComparing(ResolvedPool::name))
                .map(DesiredPool::of).toList();
        if (cloudOnly) {
            err.println("--cloudonly: no Kubernetes request is made, so whether an agent holds its Lease is not checked: stop the agent"
                    + " first; nothing is drained or validated");
            err.flush();
            return cloudOnly(config.get(), selected, timing.get(), out, err);
        }
        return inCluster(config.get(), loaded.get(), selected, selection.get(), timing.get(), out, err);
    }

    Optional<Timing> timing(PrintWriter err) {
        Map<String, String> given = new java.util.LinkedHashMap<>();
        given.put("--bastion-interval", bastionInterval);
        given.put("--master-interval", masterInterval);
        given.put("--node-interval", nodeInterval);
        given.put("--validation-timeout", validationTimeout);
        given.put("--drain-timeout", drainTimeout);
        Map<String, Duration> parsed = new HashMap<>();
        for (Map.Entry<String, String> e : given.entrySet()) {
            Optional<Duration> d = DurationText.parse(e.getValue());
            if (d.isEmpty() || d.get().isNegative()) {
                err.println(e.getKey() + " must be a duration such as 15s or 10m, got \"" + e.getValue() + "\"");
                return Optional.empty();
            }
            parsed.put(e.getKey(), d.get());
        }
        Map<PoolRole, Duration> intervals = new EnumMap<>(PoolRole.class);
        intervals.put(PoolRole.BASTION, parsed.get("--bastion-interval"));
        intervals.put(PoolRole.CONTROL_PLANE, parsed.get("--master-interval"));
        intervals.put(PoolRole.APISERVER, parsed.get("--master-interval"));
        intervals.put(PoolRole.NODE, parsed.get("--node-interval"));
        return Optional.of(new Timing(intervals, parsed.get("--validation-timeout"), parsed.get("--drain-timeout")));
    }

    private Optional<ManagedPools> selection(PrintWriter err) {
        Set<PoolRole> roles = new LinkedHashSet<>();
        for (String r : instanceGroupRoles) {
            Optional<PoolRole> role = ManagedPools.role(r);
            if (role.isEmpty()) {
                err.println("--instance-group-roles: \"" + r + "\" is not a pool role; the roles are " + ManagedPools.ROLES);
                return Optional.empty();
            }
            roles.add(role.get());
        }
        return Optional.of(new ManagedPools(new LinkedHashSet<>(instanceGroups), roles));
    }

    /** The specs and the commit they are acted on as. */
    record Loaded(SpecSet specs, ClusterSpec cluster, String commit) {
    }

    private Optional<Loaded> load(Optional<String> cluster, PrintWriter err) throws IOException {
        if ((specPath == null) == (repo == null)) {
            err.println("name the spec with --spec DIR, or with --repo URL and --ref REF");
            return Optional.empty();
        }
        Optional<SpecSet> specs;
        String commit;
        if (specPath != null) {
            specs = ValidSpecs.load(specPath, err);
            // Not a Git commit: what the pool records keep as accepted, so that the agent and a person see a run by hand.
            commit = "rolling-update:" + digest(specPath);
        } else {
            String revision = ref == null ? "main" : ref;
            String dir = repoPath == null ? "" : repoPath;
            try (SpecCommits commits = SpecCommits.open(repo, Path.of(System.getProperty("java.io.tmpdir")))) {
                commit = commits.commit(revision);
                Optional<Map<String, byte[]>> files = commits.specFiles(commit, dir);
                if (files.isEmpty()) {
                    err.println("no directory \"" + dir + "\" in commit " + commit);
                    return Optional.empty();
                }
                LoadResult result = new SpecLoader().load(files.get());
                result.errors().forEach(e -> err.println(e));
                specs = result.errors().isEmpty() ? Optional.of(result.specs()) : Optional.empty();
            } catch (GitSourceException e) {
                err.println(e.getMessage());
                return Optional.empty();
            }
        }
        if (specs.isEmpty()) {
            return Optional.empty();
        }
        List<ClusterSpec> clusters = specs.get().clusters().stream().filter(c -> cluster.isEmpty() || c.name().equals(cluster.get()))
                .toList();
        if (clusters.size() != 1) {
            err.println(clusters.isEmpty() ? "no cluster " + cluster.orElse("") + " in the spec; it has " + specs.get().clusters().stream()
                    .map(ClusterSpec::name).sorted().collect(Collectors.joining(", ")) : "several clusters: name one with --cluster");
            return Optional.empty();
        }
        return Optional.of(new Loaded(specs.get(), clusters.get(0), commit));
    }

    /** The file contents' SHA-256, short: the same spec gives the same name. */
    private static String digest(Path path) throws IOException {
        try (Stream<Path> files = Files.isDirectory(path) ? Files.walk(path) : Stream.of(path)) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                sha.update(path.relativize(f).toString().getBytes(StandardCharsets.UTF_8));
                sha.update(Files.readAllBytes(f));
            }
            return HexFormat.of().formatHex(sha.digest()).substring(0, 12);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The provider settings from {@code --config} and the flags; no Git or cluster is needed here. */
    private Optional<AgentConfig> config(PrintWriter err) throws IOException {
        Optional<AgentConfig> file = providerFlags.file(err);
        return file.isEmpty() ? file : providerFlags.apply(file.get(), err);
    }

    /**
     * What the run changes in the agent's reconcile: windows, {@code --force}, the intervals by role, and the drain and
     * validation timeouts as give-up times where the run is to go on past them ({@code --fail-on-*-error=false}).
     */
    HandRun handRun(Timing timing) {
        return new HandRun(force, timing.intervals(), failOnDrainError ? Optional.empty() : Optional.of(timing.drainTimeout()),
                failOnValidateError ? Optional.empty() : Optional.of(timing.validationTimeout()));
    }

    private int cloudOnly(AgentConfig config, List<DesiredPool> selected, Timing timing, PrintWriter out, PrintWriter err)
            throws Exception {
        ScheduledExecutorService cloud = Executors.newScheduledThreadPool(1);
        try {
            // No Kubernetes client is ever built: the http provider needs none for machines (its node updater is not used).
            Optional<Backends.Backend> backend = new Backends(plugins, err).create(config, null, cloud, Fence.open());
            if (backend.isEmpty()) {
                return Main.EXIT_USAGE;
            }
            try (Backends.Backend b = backend.get()) {
                CloudOnlyUpdate update = new CloudOnlyUpdate(b.machines(), new CloudOnlyUpdate.Settings(force, timing.intervals(),
                        timing.validationTimeout(), failOnValidateError), Clock.systemUTC(), d -> Thread.sleep(d.toMillis()),
                        new Progress(out, System.console() != null), err);
                List<RollingPreview.Row> rows = selected.stream().map(p -> RollingPreview.machines(p, update.machines(p.name()), force))
                        .toList();
                out.print(RollingPreview.table(rows));
                if (!yes) {
                    out.print(RollingPreview.footer(rows));
                    out.flush();
                    return 0;
                }
                out.flush();
                boolean ok = update.run(selected);
                out.println(ok ? "rolling-update (cloud only) done" : "rolling-update (cloud only) failed");
                out.flush();
                return ok ? 0 : EXIT_FAILED;
            }
        } finally {
            cloud.shutdownNow();
        }
    }

    private int inCluster(AgentConfig config, Loaded loaded, List<DesiredPool> selected, ManagedPools selection, Timing timing,
                          PrintWriter out, PrintWriter err) throws Exception {
        Clock clock = Clock.systemUTC();
        ScheduledExecutorService cloud = Executors.newScheduledThreadPool(1);
        try (KubernetesClient client = kubernetes.client()) {
            Optional<String> holder = LeaseCheck.holder(client, Agent.NAMESPACE, config.leaderElection().leaseName(), clock.instant());
            if (holder.isPresent()) {
                err.println("an agent holds the Lease " + Agent.NAMESPACE + "/" + config.leaderElection().leaseName() + " (" + holder.get()
                        + "): rolling-update does not run beside it; stop the agent (or pause its pools) and try again");
                return Main.EXIT_USAGE;
            }
            Optional<Backends.Backend> backend = new Backends(plugins, err).create(config, client, cloud, Fence.open());
            if (backend.isEmpty()) {
                return Main.EXIT_USAGE;
            }
            try (Backends.Backend b = backend.get()) {
                if (!yes) {
                    return preview(client, b, selected, out);
                }
                return update(config, client, b, loaded, selected, selection, timing, clock, out, err);
            }
        } finally {
            cloud.shutdownNow();
        }
    }

    private int preview(KubernetesClient client, Backends.Backend b, List<DesiredPool> selected, PrintWriter out) throws Exception {
        try (ClusterObserver observer = new ClusterObserver(client, Agent.NAMESPACE, b.machines(), () -> { })) {
            observer.start();
            ObservedCluster observed = observer.observe(MaintenanceState.OPEN, true,
                    selected.stream().map(DesiredPool::name).collect(Collectors.toSet()));
            List<RollingPreview.Row> rows = selected.stream().map(p -> RollingPreview.observed(p, observed.nodesOf(p.name()),
                    b.machines().machines(p.name()), force))
                    .toList();
            out.print(RollingPreview.table(rows));
            out.print(RollingPreview.footer(rows));
            out.flush();
            return 0;
        }
    }

    private int update(AgentConfig config, KubernetesClient client, Backends.Backend b, Loaded loaded, List<DesiredPool> selected,
                       ManagedPools selection, Timing timing, Clock clock, PrintWriter out, PrintWriter err) throws Exception {
        Progress progress = new Progress(out, System.console() != null);
        RunWatch watch = new RunWatch(selected.stream().map(DesiredPool::name).toList(), timing, failOnValidateError, failOnDrainError,
                progress, clock, err);
        boolean nodeUpdatesOff = config.nodeUpdatesType().equals(AgentConfig.NodeUpdates.NONE);
        Reconciler[] reconciler = new Reconciler[1];
        Runnable wake = () -> {
            if (reconciler[0] != null) {
                reconciler[0].request();
            }
        };
        try (ClusterObserver observer = new ClusterObserver(client, Agent.NAMESPACE, b.machines(), wake, clock);
             Evictor evictor = new Evictor(client.getConfiguration());
             ApiServerProbe probe = new ApiServerProbe(client.getConfiguration(), List.of())) {
            observer.start();
            EventRecorder events = new EventRecorder(client, clock, "nightshift-rolling-update");
            StepExecutor executor = new StepExecutor(client, evictor, observer, b.machines(), nodeUpdatesOff
                    ? new dev.nightshift.agent.provider.NoNodeUpdates() : b.nodes(), clock, events);
            // Fencing off (Fence.open): there is no lease; the check above made sure no agent holds one.
            reconciler[0] = new Reconciler(new Reconciler.Settings(loaded.cluster().name(), Agent.NAMESPACE,
                    config.validation().consecutive(), config.validation().interval(), false, Optional.empty(), true, selection,
                    Optional.of(handRun(timing))), client, observer,
                    executor, probe, new RolloutPlanner(nodeUpdatesOff ? NodeUpdates.OFF : NodeUpdates.ON), clock, watch::report, events,
                    Fence.open());
            try {
                reconciler[0].offer(new SpecRevision(loaded.commit(), loaded.specs(), clock.instant()));
                RunWatch.Verdict verdict = watch.result().get();
                verdict.failure().ifPresent(err::println);
                out.println(verdict.failure().isEmpty() ? "rolling-update done: every selected pool is current" : "rolling-update failed");
                out.flush();
                err.flush();
                return verdict.failure().isEmpty() ? 0 : EXIT_FAILED;
            } finally {
                reconciler[0].close();
            }
        }
    }
}
