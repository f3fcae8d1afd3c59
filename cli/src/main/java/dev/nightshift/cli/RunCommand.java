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

    @Option(names = "--config", paramLabel = "FILE", description = "The agent's configuration file.")
    private Path configFile;

    @Option(names = "--repo", paramLabel = "URL", description = "Spec repository: https://, ssh://, git:// or file://.")
    private URI repo;

    @Option(names = "--ref", paramLabel = "REF", description = "Branch, tag or commit (default main).")
    private String ref;

    @Option(names = "--path", paramLabel = "DIR", description = "Spec directory inside the repository.")
    private String path;

    @Option(names = "--git-ca-file", paramLabel = "FILE",
            description = "PEM file of the CA certificates trusted for an https:// repository, instead of the JDK's default CAs.")
    private Path gitCaFile;

    @Option(names = "--cluster", paramLabel = "NAME", description = "The Cluster this agent manages.")
    private String cluster;

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

    @Option(names = "--provider", paramLabel = "NAME",
            description = "Machine provider (or provider.type; no default): simulated (machines become Node objects of the cluster itself; "
                    + "for the embedded cluster and test clusters), cluster-api (Cluster API MachineDeployments; provider.clusterApi) "
                    + "or http (a cloud adapter serving the machine API; provider.http).")
    private String provider;

    @Option(names = "--machine-api-url", paramLabel = "URL",
            description = "The machine API's base URL for provider http (or provider.http.url), e.g. the one nightshift sandbox prints.")
    private String machineApiUrl;

    @Option(names = "--machine-api-token-file", paramLabel = "FILE",
            description = "The file holding the machine API's bearer token (or provider.http.tokenFile); read on every request.")
    private Path machineApiTokenFile;

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
        AgentConfig config = AgentConfig.DEFAULTS;
        if (configFile != null) {
            AgentConfigLoader.Result loaded = new AgentConfigLoader().load(configFile);
            if (loaded.config().isEmpty()) {
                loaded.errors().forEach(spec.commandLine().getErr()::println);
                return Optional.empty();
            }
            config = loaded.config().get();
        }
        Optional<Duration> interval = Optional.ofNullable(pollInterval).flatMap(DurationText::parse);
        if (pollInterval != null && interval.isEmpty()) {
            spec.commandLine().getErr().println("--poll-interval must be a duration such as 60s, got \"" + pollInterval + "\"");
            return Optional.empty();
        }
        config = config.with(new AgentConfig.Overrides(Optional.ofNullable(repo), Optional.ofNullable(ref), Optional.ofNullable(path),
                interval, Optional.ofNullable(cluster), Optional.ofNullable(httpPort), Optional.ofNullable(cacheDir),
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
        if (provider != null) {
            // The flag names the type; the file's provider.clusterApi settings stay.
            config = config.with(config.provider().map(p -> p.withType(provider)).orElseGet(() -> new AgentConfig.Provider(provider)));
        }
        if (machineApiUrl != null || machineApiTokenFile != null) {
            if (config.provider().isEmpty() || !config.provider().get().type().equals(AgentConfig.Provider.HTTP)) {
                spec.commandLine().getErr().println("--machine-api-url and --machine-api-token-file are for provider http"
                        + " (--provider http or provider.type: http)");
                return Optional.empty();
            }
            AgentConfig.Provider.Http http = config.provider().get().http();
            if (machineApiUrl != null) {
                Optional<java.net.URI> url = AgentConfigLoader.machineApiUrl(machineApiUrl);
                if (url.isEmpty()) {
                    spec.commandLine().getErr().println("--machine-api-url must be an http:// or https:// URL with a host and no user info"
                            + (machineApiUrl.contains("@") ? "" : ", got \"" + machineApiUrl + "\""));
                    return Optional.empty();
                }
                http = http.withUrl(url.get());
            }
            if (machineApiTokenFile != null) {
                http = http.withTokenFile(machineApiTokenFile);
            }
            config = config.with(config.provider().get().with(http));
        }
        if (nodeUpdates != null) {
            // The flag names the type; the file's nodeUpdates.job settings stay.
            config = config.with(config.nodeUpdates().withType(nodeUpdates));
        }
        String types = String.join(", ", AgentConfig.Provider.TYPES);
        if (config.provider().isEmpty()) {
            spec.commandLine().getErr().println("no machine provider is named: set provider.type in the configuration or --provider;"
                    + " this release has: " + types);
            return Optional.empty();
        }
        if (!AgentConfig.Provider.TYPES.contains(config.provider().get().type())) {
            spec.commandLine().getErr().println("unknown provider \"" + config.provider().get().type() + "\"; this release has: " + types);
            return Optional.empty();
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
            Optional<Backend> backend = backend(config, client, cloud, fence);
            if (backend.isEmpty()) {
                return Main.EXIT_USAGE;
            }
            // With nodeUpdates.type none, the Agent itself puts a NodeUpdater that refuses every call in its place;
            // with job, the Job updater, built with the agent's own client.
            try (Backend closing = backend.get(); Agent agent = new Agent(config, client, backend.get().machines(), backend.get().nodes(),
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

    /** What creates and deletes machines, and what updates nodes when node updates are the provider's own. */
    private record Backend(MachineProvider machines, NodeUpdater nodes, Optional<KubernetesClient> ownClient) implements AutoCloseable {

        Backend(MachineProvider machines, NodeUpdater nodes) {
            this(machines, nodes, Optional.empty());
        }

        @Override
        public void close() {
            ownClient.ifPresent(KubernetesClient::close);
        }
    }

    /**
     * The backend of the configured provider, or empty after saying on stderr why there is none.
     * Every provider type is a case of its own: a new type that is not handled here answers "not wired".
     */
    private Optional<Backend> backend(AgentConfig config, KubernetesClient client, ScheduledExecutorService cloud, Fence fence) {
        AgentConfig.Provider provider = config.provider().orElseThrow();
        Optional<PluggedProvider> plugged = plugins.stream().flatMap(p -> p.providers().stream())
                .filter(p -> p.type().equals(provider.type())).findFirst();
        if (plugged.isPresent()) {
            plugged.get().warning().ifPresent(spec.commandLine().getErr()::println);
            spec.commandLine().getErr().flush();
            PluggedProvider.Backend made = plugged.get().factory().create(client, cloud, Clock.systemUTC());
            return Optional.of(new Backend(made.machines(), made.nodes()));
        }
        switch (provider.type()) {
            case AgentConfig.Provider.CLUSTER_API -> {
                AgentConfig.Provider.ClusterApi settings = provider.clusterApi();
                KubernetesClient management = client;
                if (settings.kubeconfigFile().isPresent()) {
                    Path file = settings.kubeconfigFile().get();
                    try {
                        management = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(file)))
                                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("nightshift-fence", new FenceInterceptor(fence)))
                                .build();
                    } catch (IOException | RuntimeException e) {
                        // The file is a secret: its name and what went wrong, never its content.
                        spec.commandLine().getErr().println("provider.clusterApi.kubeconfigFile " + file + " cannot be read as a kubeconfig: "
                                + e.getClass().getSimpleName());
                        return Optional.empty();
                    }
                }
                ClusterApiMachineProvider machines = new ClusterApiMachineProvider(management, new ClusterApiSettings(
                        settings.namespace(), config.cluster().orElseThrow(), settings.infrastructure()), Clock.systemUTC());
                return Optional.of(new Backend(machines, new NoNodeUpdates(), management == client ? Optional.empty() : Optional.of(management)));
            }
            case AgentConfig.Provider.HTTP -> {
                AgentConfig.Provider.Http settings = provider.http();
                if (settings.url().isEmpty() || settings.tokenFile().isEmpty()) {
                    spec.commandLine().getErr().println("provider http needs the machine API's URL (--machine-api-url or provider.http.url)"
                            + " and its token file (--machine-api-token-file or provider.http.tokenFile)");
                    return Optional.empty();
                }
                Path token = settings.tokenFile().get();
                if (!Files.isReadable(token)) {
                    spec.commandLine().getErr().println("the machine API's token file " + token + " cannot be read");
                    return Optional.empty();
                }
                try {
                    settings.caFile().ifPresent(CaFile::certificates);
                } catch (IllegalArgumentException e) {
                    spec.commandLine().getErr().println("provider.http.caFile: " + e.getMessage());
                    return Optional.empty();
                }
                MachineApi api = HttpMachineApiClient.of(new MachineApiEndpoint(settings.url().get(), token, settings.caFile(),
                        settings.timeout()), fence);
                HttpMachineProvider machines = new HttpMachineProvider(api);
                return Optional.of(new Backend(machines, new MachineApiNodeUpdater(api, machines, client)));
            }
            case AgentConfig.Provider.SIMULATED -> {
                // The simulated cloud is the sandbox's: a build without it (the image) has no such provider.
                spec.commandLine().getErr().println("provider simulated comes with the sandbox, which this build of nightshift"
                        + " does not have (nightshift.jar has it; the image does not)");
                return Optional.empty();
            }
            default -> {
                spec.commandLine().getErr().println("provider \"" + provider.type() + "\" is not wired into run");
                return Optional.empty();
            }
        }
    }
}
