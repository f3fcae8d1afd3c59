package dev.nightshift.cli;

import dev.nightshift.agent.run.StopSignal;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.config.AgentConfigLoader;
import dev.nightshift.agent.fence.Fence;
import dev.nightshift.agent.fence.FenceInterceptor;
import dev.nightshift.agent.git.CaFile;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.agent.provider.NoNodeUpdates;
import dev.nightshift.agent.provider.NodeUpdater;
import dev.nightshift.agent.provider.capi.ClusterApiMachineProvider;
import dev.nightshift.agent.provider.http.HttpMachineApiClient;
import dev.nightshift.agent.provider.http.HttpMachineProvider;
import dev.nightshift.agent.provider.http.MachineApi;
import dev.nightshift.agent.provider.http.MachineApiEndpoint;
import dev.nightshift.agent.provider.http.MachineApiNodeUpdater;
import dev.nightshift.agent.provider.capi.ClusterApiSettings;
import dev.nightshift.agent.run.Agent;
import dev.nightshift.agent.command.Plugin;
import dev.nightshift.agent.command.PluggedProvider;
import dev.nightshift.spec.model.DurationText;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nightshift run}: the agent, against a Git repository and a Kubernetes API, until stopped. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Run the agent: poll the spec repository and roll the cluster's worker pools inside maintenance windows.",
                "Configuration from --config (YAML); flags override it. Secrets only from files or environment variables."})
public final class RunCommand implements Callable<Integer> {

    private final List<Plugin> plugins;

    /** {@code plugins}: where provider types beyond this module's come from (the sandbox's {@code simulated}). */
    RunCommand(List<Plugin> plugins) {
        this.plugins = List.copyOf(plugins);
    }

    @Spec
    private CommandSpec spec;

    @Mixin
    private KubernetesOptions kubernetes;

    @Mixin
    private ProviderFlags providerFlags;

    @Option(names = "--repo", paramLabel = "URL", description = "Spec repository: https://, ssh://, git:// or file://.")
    private URI repo;

    @Option(names = "--ref", paramLabel = "REF", description = "Branch, tag or commit (default main).")
    private String ref;

    @Option(names = "--path", paramLabel = "DIR", description = "Spec directory inside the repository.")
    private String path;

    @Option(names = "--git-ca-file", paramLabel = "FILE",
            description = "PEM file of the CA certificates trusted for an https:// repository, instead of the JDK's default CAs.")
    private Path gitCaFile;

    @Option(names = "--poll-interval", paramLabel = "DURATION", description = "e.g. 60s (default 60s, plus up to 10%% jitter).")
    private String pollInterval;

    @Option(names = "--http-port", paramLabel = "PORT", description = "HTTP port for /metrics, /status, /healthz, /readyz, /hooks/git (default 9400).")
    private Integer httpPort;

    @Option(names = "--cache-dir", paramLabel = "DIR", description = "Where the local copy of the repository is kept.")
    private Path cacheDir;

    @Option(names = "--leader-elect", description = "Elect one acting replica through a Lease in nightshift-system; "
            + "the others stand by, ready but idle (or leaderElection.enabled).")
    private Boolean leaderElect;

    @Option(names = "--validations", paramLabel = "N",
            description = "Consecutive successful cluster validations before a pool starts and between batches (default 1).")
    private Integer validations;

    @Option(names = "--dry-run", description = "Plan and report; change nothing.")
    private Boolean dryRun;

    @Option(names = "--prometheus-url", paramLabel = "URL",
            description = "The Prometheus the rollout health checks query (or health.prometheus.url), e.g. http://prometheus:9090.")
    private String prometheusUrl;

    @Option(names = "--node-updates", paramLabel = "TYPE",
            description = "What updates nodes in place and restarts kubelets (or nodeUpdates.type): provider (the machine provider's own; "
                    + "the default with simulated), job (a privileged Job on each node, with any provider; nodeUpdates.job in the "
                    + "configuration) or none (in-place and kubelet-only changes are reported, never executed; the default "
                    + "with cluster-api).")
    private String nodeUpdates;

    @Override
    public Integer call() throws Exception {
        AgentConfig config;
        try {
            Optional<AgentConfig> checked = configured();
            if (checked.isEmpty()) {
                return Main.EXIT_USAGE;
            }
            config = checked.get();
            // Read before anything starts, so that a weak secret is a usage error (its file or variable named, never its content).
            config.webhook().secret(System.getenv());
        } catch (IllegalArgumentException e) {
            // The configuration's own checks (a credential in the repository URL, a machine API token in clear, a short
            // webhook secret): one line, exit 2, never a stack trace.
            spec.commandLine().getErr().println(e.getMessage());
            return Main.EXIT_USAGE;
        } catch (IOException e) {
            spec.commandLine().getErr().println("the webhook secret cannot be read: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            return Main.EXIT_USAGE;
        }
        return run(config);
    }

    /** The configuration from the file and the flags, checked; empty after saying on stderr what is wrong. */
    private Optional<AgentConfig> configured() throws IOException {
        Optional<AgentConfig> file = providerFlags.file(spec.commandLine().getErr());
        if (file.isEmpty()) {
            return Optional.empty();
        }
        AgentConfig config = file.get();
        Optional<Duration> interval = Optional.ofNullable(pollInterval).flatMap(DurationText::parse);
        if (pollInterval != null && interval.isEmpty()) {
            spec.commandLine().getErr().println("--poll-interval must be a duration such as 60s, got \"" + pollInterval + "\"");
            return Optional.empty();
        }
        config = config.with(new AgentConfig.Overrides(Optional.ofNullable(repo), Optional.ofNullable(ref), Optional.ofNullable(path),
                interval, Optional.ofNullable(providerFlags.cluster), Optional.ofNullable(httpPort), Optional.ofNullable(cacheDir),
                Optional.ofNullable(dryRun), Optional.ofNullable(gitCaFile)));
        if (leaderElect != null) {
            config = config.with(config.leaderElection().enabled(leaderElect));
        }
        if (validations != null) {
            if (validations < 1) {
                spec.commandLine().getErr().println("--validations must be at least 1, got " + validations);
                return Optional.empty();
            }
            config = config.with(config.validation().consecutive(validations));
        }
        if (prometheusUrl != null) {
            Optional<java.net.URI> url = AgentConfigLoader.machineApiUrl(prometheusUrl);
            if (url.isEmpty()) {
                spec.commandLine().getErr().println("--prometheus-url must be an http:// or https:// URL with a host and no user info"
                        + (prometheusUrl.contains("@") ? "" : ", got \"" + prometheusUrl + "\""));
                return Optional.empty();
            }
            config = config.with(config.health().withPrometheusUrl(url.get()));
        }
        if (config.git().url().isEmpty() || config.cluster().isEmpty()) {
            spec.commandLine().getErr().println("the spec repository (--repo or git.url) and the cluster (--cluster or cluster) are required");
            return Optional.empty();
        }
        Optional<AgentConfig> provided = providerFlags.apply(config, spec.commandLine().getErr());
        if (provided.isEmpty()) {
            return Optional.empty();
        }
        config = provided.get();
        if (nodeUpdates != null) {
            // The flag names the type; the file's nodeUpdates.job settings stay.
            config = config.with(config.nodeUpdates().withType(nodeUpdates));
        }
        Optional<String> refusal = config.nodeUpdates().refusal(config.provider().get());
        if (refusal.isPresent()) {
            spec.commandLine().getErr().println("nodeUpdates.type (or --node-updates): " + refusal.get());
            return Optional.empty();
        }
        try {
            config.git().caFile().ifPresent(CaFile::certificates);
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println(e.getMessage());
            return Optional.empty();
        }
        return Optional.of(config);
    }

    private Integer run(AgentConfig config) throws Exception {
        ScheduledExecutorService cloud = Executors.newScheduledThreadPool(1);
        // One fence for every write: the agent's, the machine provider's and the node updater's.
        Fence fence = Agent.fence(config, Clock.systemUTC());
        try (StopSignal stop = new StopSignal(Duration.ofSeconds(45));
             KubernetesClient client = kubernetes.client(fence)) {
            Optional<Backends.Backend> backend = new Backends(plugins, spec.commandLine().getErr()).create(config, client, cloud, fence);
            if (backend.isEmpty()) {
                return Main.EXIT_USAGE;
            }
            // With nodeUpdates.type none, the Agent itself puts a NodeUpdater that refuses every call in its place;
            // with job, the Job updater, built with the agent's own client.
            try (Backends.Backend closing = backend.get(); Agent agent = new Agent(config, client, backend.get().machines(), backend.get().nodes(),
                    Clock.systemUTC(), r -> { }, fence)) {
                stop.install();
                agent.start();
                spec.commandLine().getOut().println("nightshift agent running; status on http://127.0.0.1:" + agent.httpPort() + "/status");
                spec.commandLine().getOut().flush();
                stop.await();
                return 0;
            }
        } finally {
            cloud.shutdownNow();
        }
    }

}
