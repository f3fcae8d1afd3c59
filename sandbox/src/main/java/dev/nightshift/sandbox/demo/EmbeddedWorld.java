package dev.nightshift.sandbox.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.IntStream;

import org.eclipse.jgit.api.errors.GitAPIException;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.agent.provider.NoNodeUpdates;
import dev.nightshift.agent.provider.capi.ClusterApiMachineProvider;
import dev.nightshift.agent.provider.capi.ClusterApiSettings;
import dev.nightshift.sandbox.capi.Behaviour;
import dev.nightshift.sandbox.capi.ClusterApiControllers;
import dev.nightshift.sandbox.capi.ClusterApiSeeding;
import dev.nightshift.sandbox.capi.EmbeddedClusterApi;
import dev.nightshift.sandbox.jobs.JobControllers;
import dev.nightshift.agent.nodeupdate.JobSettings;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import dev.nightshift.sandbox.machineapi.Holds;
import dev.nightshift.agent.provider.http.HttpMachineApiClient;
import dev.nightshift.agent.provider.http.HttpMachineProvider;
import dev.nightshift.agent.provider.http.MachineApi;
import dev.nightshift.agent.provider.http.MachineApiEndpoint;
import dev.nightshift.agent.provider.http.MachineApiNodeUpdater;
import dev.nightshift.sandbox.machineapi.MachineApiCloud;
import dev.nightshift.sandbox.machineapi.MachineApiServer;
import dev.nightshift.sandbox.machineapi.MachineLog;
import dev.nightshift.sandbox.machineapi.RequestLog;
import dev.nightshift.agent.provider.http.MachineRequest;
import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.agent.run.Agent;
import dev.nightshift.spec.hash.StampedHash;

/**
 * What {@code nightshift demo} and {@code nightshift sandbox} both start: an embedded Kubernetes
 * API, a simulated cloud behind it, a local Git repository of specs with a clone to push from,
 * something for drains to move, and the real agent polling the repository every {@link #POLL}.
 * The demo then tells its story; the sandbox leaves the pushing to its user.
 *
 * <p>Every world also serves the machine API ({@link #machineApi()}): a second simulated cloud,
 * {@link MachineApiCloud}, whose machines register as nodes of the same API, behind
 * {@link MachineApiServer} on a free port, with its token, machine log and request log in the
 * world's directory ({@value #MACHINE_API_TOKEN}, {@value #MACHINE_LOG}, {@value #MACHINE_API_REQUESTS}).
 * A world may also run without repository or agent ({@link #startWithoutRepository}): an empty
 * cluster for an agent, or a user's tooling, in another process.
 */
public final class EmbeddedWorld implements AutoCloseable {

    /** How often the agent polls the repository. */
    public static final Duration POLL = Duration.ofSeconds(2);

    /** The machine API's bearer token, in the world's directory (owner-only). */
    public static final String MACHINE_API_TOKEN = "machine-api-token";
    /** The machine-API cloud's machine log (JSON lines), in the world's directory. */
    public static final String MACHINE_LOG = "machine-log.jsonl";
    /** Every request the machine API answered (JSON lines), in the world's directory. */
    public static final String MACHINE_API_REQUESTS = "machine-api-requests.jsonl";
    /** The configuration of an agent in another process ({@link #writeAgentConfig}), in the world's directory. */
    public static final String AGENT_CONFIG = "agent.yaml";

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Where to reach the world's parts: printed by the banner, written as JSON by {@code sandbox --info}.
     *
     * @param apiServer  the Kubernetes API's URL
     * @param repository the bare repository the agent polls; null in a world without one
     * @param workingClone the working clone to commit in and push from; null in a world without a repository
     * @param agent      the agent's HTTP base URL ({@code /status}, {@code /metrics}, …); null when no agent runs
     * @param machineApi the machine API's base URL (paths start with {@code /v1})
     * @param machineApiTokenFile the file holding the machine API's bearer token
     * @param agentConfig the configuration file for {@code nightshift run --config} of an agent in another process
     *                    ({@link #writeAgentConfig}); null when none was written
     */
    public record Facts(String apiServer, Path kubeconfig, Path repository, Path workingClone, String agent, String machineApi,
                        Path machineApiTokenFile, Path agentConfig) {

        /** Without an agent configuration file. */
        public Facts(String apiServer, Path kubeconfig, Path repository, Path workingClone, String agent, String machineApi,
                     Path machineApiTokenFile) {
            this(apiServer, kubeconfig, repository, workingClone, agent, machineApi, machineApiTokenFile, null);
        }

        /**
         * Every key always present; {@code repository}, {@code clone}, {@code agent} and {@code agentConfig} null when the
         * world has no such part.
         */
        public String json() {
            ObjectNode o = JSON.createObjectNode();
            o.put("apiServer", apiServer);
            o.put("kubeconfig", kubeconfig.toString());
            o.put("repository", repository == null ? null : repository.toString());
            o.put("clone", workingClone == null ? null : workingClone.toString());
            o.put("agent", agent);
            o.put("machineApi", machineApi);
            o.put("machineApiTokenFile", machineApiTokenFile.toString());
            o.put("agentConfig", agentConfig == null ? null : agentConfig.toString());
            return o.toPrettyString();
        }
    }

    /**
     * How to build the world.
     *
     * @param dir         where the repository, clone, kubeconfig and Git cache go
     * @param gitVersion  what the API server reports as its version ({@code vMAJOR.MINOR.PATCH})
     * @param specFiles   the repository's first commit: path to content
     * @param bastionPool the pools whose machines never register as nodes
     * @param machineApiRegistration what the machine API cloud's nodes carry when they register: exactly the request's
     *                    labels (the contract), or the pool's label too (an adapter that passes it to the kubelet)
     */
    public record Setup(Path dir, String gitVersion, Map<String, byte[]> specFiles, String firstCommit,
                        Predicate<String> bastionPool, SimulatedMachineProvider.Behaviour cloud, Machines machines,
                        Holds machineApiHolds, MachineApiCloud.Registration machineApiRegistration) {

        /** Its machine API cloud's nodes registering with exactly the request's labels. */
        public Setup(Path dir, String gitVersion, Map<String, byte[]> specFiles, String firstCommit,
                     Predicate<String> bastionPool, SimulatedMachineProvider.Behaviour cloud, Machines machines,
                     Holds machineApiHolds) {
            this(dir, gitVersion, specFiles, firstCommit, bastionPool, cloud, machines, machineApiHolds,
                    MachineApiCloud.Registration.REQUEST_LABELS);
        }

        /** Holding no machine API answer. */
        public Setup(Path dir, String gitVersion, Map<String, byte[]> specFiles, String firstCommit,
                     Predicate<String> bastionPool, SimulatedMachineProvider.Behaviour cloud, Machines machines) {
            this(dir, gitVersion, specFiles, firstCommit, bastionPool, cloud, machines, Holds.none());
        }

        /** With the simulated cloud. */
        public Setup(Path dir, String gitVersion, Map<String, byte[]> specFiles, String firstCommit,
                     Predicate<String> bastionPool, SimulatedMachineProvider.Behaviour cloud) {
            this(dir, gitVersion, specFiles, firstCommit, bastionPool, cloud, Machines.SIMULATED);
        }
    }

    /**
     * Where the world's machines come from: the simulated cloud (machines are Node objects), or
     * Cluster API played by the embedded CAPI controllers (MachineDeployments, MachineSets,
     * Machines, then Nodes), which the agent drives with its {@code cluster-api} provider.
     */
    public enum Machines {
        SIMULATED("simulated"), CLUSTER_API("cluster-api"),
        /** The machine-API cloud, driven by the agent's {@code http} provider over real HTTP. */
        HTTP("http");

        private final String providerType;

        Machines(String providerType) {
            this.providerType = providerType;
        }

        /** The provider's name as {@code provider.type} and {@code --provider} spell it. */
        public String providerType() {
            return providerType;
        }

        public static Machines of(String providerType) {
            for (Machines m : values()) {
                if (m.providerType.equals(providerType)) {
                    return m;
                }
            }
            throw new IllegalArgumentException("unknown provider \"" + providerType + "\"; the embedded world has: simulated, cluster-api, http");
        }
    }

    /**
     * How often the agent lists pools whose machine-API machines are changing, with {@link Machines#HTTP}: the
     * world's machines take seconds, not minutes, so the production 30 s would leave the demo idle.
     */
    static final Duration MACHINE_API_POLL = Duration.ofSeconds(2);

    /** Where the Cluster API objects live in the embedded cluster. */
    public static final String CLUSTER_API_NAMESPACE = "default";
    /** Where the agent's node updater Jobs run with {@link Machines#CLUSTER_API} ({@code nodeUpdates.type: job}). */
    public static final String NODE_UPDATES_NAMESPACE = "nightshift-node-updates";
    /** The node updater the agent runs with {@link Machines#CLUSTER_API}: the image and command of docs/node-updates.md's example. */
    static final JobSettings NODE_UPDATER = new JobSettings(NODE_UPDATES_NAMESPACE, "registry.example.com/platform/node-updater:1.4",
            List.of("/bin/update-node"), "nightshift-node-updater", Optional.empty());

    private final Path dir;
    private final EmbeddedKubernetes kube;
    private final Path kubeconfig;
    /** The spec repository; none in a world started {@link #startWithoutRepository without one}. */
    private final Optional<DemoRepository> repo;
    private final MachineApiServer machineApi;
    private final MachineLog machineLog;
    private final RequestLog machineApiRequests;
    private final ScheduledExecutorService cloudThreads;
    private final SimulatedMachineProvider cloud;
    private final DemoWorkloads workloads;
    private final Clock clock;
    private final Machines machines;
    /** The Cluster API controllers, with {@link Machines#CLUSTER_API}. */
    private final Optional<ClusterApiControllers> clusterApi;
    /** What runs the agent's node updater Jobs, with {@link Machines#CLUSTER_API}. */
    private final Optional<JobControllers> jobs;
    private volatile Agent agent;
    private volatile Path agentConfig;

    private EmbeddedWorld(Path dir, EmbeddedKubernetes kube, Path kubeconfig, Optional<DemoRepository> repo, MachineApiParts machineApi,
                          ScheduledExecutorService cloudThreads, SimulatedMachineProvider cloud, Clock clock, Machines machines,
                          Optional<ClusterApiControllers> clusterApi, Optional<JobControllers> jobs) {
        this.machineApi = machineApi.server();
        this.machineLog = machineApi.machineLog();
        this.machineApiRequests = machineApi.requests();
        this.machines = machines;
        this.clusterApi = clusterApi;
        this.jobs = jobs;
        this.dir = dir;
        this.kube = kube;
        this.kubeconfig = kubeconfig;
        this.repo = repo;
        this.cloudThreads = cloudThreads;
        this.cloud = cloud;
        this.workloads = new DemoWorkloads(kube.client());
        this.clock = clock;
    }

    /** The machine API's server and its logs, closed together. */
    private record MachineApiParts(MachineApiServer server, MachineLog machineLog, RequestLog requests) {

        static MachineApiParts start(Path dir, EmbeddedKubernetes kube, ScheduledExecutorService threads, Holds holds,
                                     Predicate<String> bastionPool, MachineApiCloud.Registration registration, Clock clock)
                throws IOException {
            MachineLog machineLog = new MachineLog(Optional.of(dir.resolve(MACHINE_LOG)));
            RequestLog requests = new RequestLog(Optional.of(dir.resolve(MACHINE_API_REQUESTS)));
            try {
                MachineApiCloud cloud = new MachineApiCloud(kube.client(), threads, clock,
                        RandomGeneratorFactory.of("L64X128MixRandom").create(11), MachineApiCloud.Behaviour.sandbox(), machineLog,
                        bastionPool, registration);
                return new MachineApiParts(MachineApiServer.start(cloud, requests, holds, dir.resolve(MACHINE_API_TOKEN), clock),
                        machineLog, requests);
            } catch (IOException | RuntimeException e) {
                machineLog.close();
                requests.close();
                throw e;
            }
        }

        void close() {
            server.close();
            machineLog.close();
            requests.close();
        }
    }

    /**
     * Starts the API server and the machine API in {@code dir}, and nothing else: no repository, no
     * agent (so no {@link #startAgent}), for an agent or a user's tooling in another process.
     */
    public static EmbeddedWorld startWithoutRepository(Path dir, String gitVersion, Holds machineApiHolds, Clock clock) throws IOException {
        return startWithoutRepository(dir, gitVersion, machineApiHolds, MachineApiCloud.Registration.REQUEST_LABELS, clock);
    }

    /** {@link #startWithoutRepository(Path, String, Holds, Clock)}, the machine API's nodes registering as {@code registration} says. */
    public static EmbeddedWorld startWithoutRepository(Path dir, String gitVersion, Holds machineApiHolds,
                                                       MachineApiCloud.Registration registration, Clock clock) throws IOException {
        try {
            return start(new Setup(dir, gitVersion, Map.of(), "", pool -> false, SimulatedMachineProvider.Behaviour.fast(),
                    Machines.HTTP, machineApiHolds, registration), false, clock);
        } catch (GitAPIException e) {
            throw new IllegalStateException("no repository was made, so Git cannot have failed", e);
        }
    }

    /** Starts the API server, the clouds and the repository; the agent comes with {@link #startAgent}, once the cloud is seeded. */
    public static EmbeddedWorld start(Setup setup, Clock clock) throws IOException, GitAPIException {
        return start(setup, true, clock);
    }

    private static EmbeddedWorld start(Setup setup, boolean withRepository, Clock clock) throws IOException, GitAPIException {
        Files.createDirectories(setup.dir());
        ScheduledExecutorService threads = Executors.newScheduledThreadPool(2, r -> {
            Thread t = new Thread(r, "embedded-cloud");
            t.setDaemon(true);
            return t;
        });
        EmbeddedKubernetes kube = EmbeddedKubernetes.start(setup.gitVersion(), 0);
        MachineApiParts machineApi = null;
        try {
            Path kubeconfig = kube.writeKubeconfig(setup.dir().resolve("kubeconfig"));
            machineApi = MachineApiParts.start(setup.dir(), kube, threads, setup.machineApiHolds(), setup.bastionPool(),
                    setup.machineApiRegistration(), clock);
            Optional<DemoRepository> repo = withRepository
                    ? Optional.of(DemoRepository.create(setup.dir(), setup.specFiles(), setup.firstCommit())) : Optional.empty();
            SimulatedMachineProvider cloud = new SimulatedMachineProvider(kube.client(), threads, clock, new Random(7),
                    setup.bastionPool(), setup.cloud());
            Optional<ClusterApiControllers> clusterApi = Optional.empty();
            Optional<JobControllers> jobs = Optional.empty();
            if (setup.machines() == Machines.CLUSTER_API) {
                EmbeddedClusterApi.install(kube);
                ClusterApiControllers controllers = new ClusterApiControllers(kube.client(), CLUSTER_API_NAMESPACE, threads, clock,
                        new Random(7), Behaviour.demo());
                controllers.start();
                clusterApi = Optional.of(controllers);
                // Cluster API has no node updates of its own: kubelet restarts and in-place updates are Jobs on the nodes.
                kube.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NODE_UPDATES_NAMESPACE)
                        .addToLabels("pod-security.kubernetes.io/enforce", "privileged").endMetadata().build()).create();
                JobControllers updaters = new JobControllers(kube.client(), NODE_UPDATES_NAMESPACE, threads, clock,
                        RandomGeneratorFactory.of("L64X128MixRandom").create(7), dev.nightshift.sandbox.jobs.Behaviour.demo());
                updaters.start();
                jobs = Optional.of(updaters);
            }
            return new EmbeddedWorld(setup.dir(), kube, kubeconfig, repo, machineApi, threads, cloud, clock, setup.machines(), clusterApi,
                    jobs);
        } catch (IOException | GitAPIException | RuntimeException e) {
            if (machineApi != null) {
                machineApi.close();
            }
            threads.shutdownNow();
            kube.close();
            throw e;
        }
    }

    /**
     * Puts {@code count} running machines into pool {@code pool}, named {@code pool-1} and on, with
     * the given hashes (none: a cluster as it was before Nightshift); returns their names.
     */
    public List<String> seed(String pool, int count, Optional<StampedHash> rollHash, Optional<StampedHash> kubeletHash) {
        List<String> names = IntStream.rangeClosed(1, count).mapToObj(i -> pool + "-" + i).toList();
        names.forEach(name -> cloud.seed(pool, name, rollHash, kubeletHash));
        return names;
    }

    /**
     * Puts {@code count} running machines into pool {@code pool} of the machine-API cloud, their
     * nodes ({@code pool-1}, {@code pool-2}, …) registered at once with {@code labels} and
     * {@code taints}, {@code annotations} (the hashes, or none) on the machine records; returns the
     * nodes' names.
     */
    public List<String> seedMachineApi(String pool, int count, Map<String, String> labels, List<MachineRequest.Taint> taints,
                                       Map<String, String> annotations) {
        return machineApi.cloud().seed(pool, count, labels, taints, annotations).stream()
                .map(dev.nightshift.agent.provider.http.ApiMachine::nodeName).toList();
    }

    /**
     * Puts a MachineDeployment of {@code count} machines for {@code pool} of Cluster API cluster
     * {@code cluster} into the world (OnDelete, labelled for Nightshift) and waits until every
     * machine has a Ready node; returns the nodes' names. Only with {@link Machines#CLUSTER_API}.
     */
    public List<String> seedMachineDeployment(String cluster, String pool, int count, String kubernetesVersion)
            throws InterruptedException {
        if (clusterApi.isEmpty()) {
            throw new IllegalStateException("this world's machines are not Cluster API's");
        }
        return ClusterApiSeeding.seed(kube.client(), ClusterApiSeeding.PoolSeed.of(cluster, pool, count, kubernetesVersion),
                Duration.ofSeconds(60)).nodes();
    }

    /** Waits until {@code count} Machines of the MachineDeployment have Ready nodes; returns the nodes' names. */
    public List<String> awaitMachineDeployment(String machineDeployment, int count) throws InterruptedException {
        return ClusterApiSeeding.awaitReady(kube.client(), CLUSTER_API_NAMESPACE, machineDeployment, count, Duration.ofSeconds(60))
                .nodes();
    }

    /**
     * Creates every object of a multi-document YAML file (Cluster API objects and their templates,
     * say) in the world, as {@code kubectl create -f} would.
     */
    public void create(java.io.InputStream yaml) {
        for (io.fabric8.kubernetes.api.model.HasMetadata item : kube.client().load(yaml).items()) {
            kube.client().resource(item).create();
        }
    }

    /** Starts the agent on the repository, managing {@code cluster}, its HTTP server on {@code httpPort} (0: any free one). */
    public Agent startAgent(String cluster, int httpPort, Consumer<ReconcileReport> reports) throws Exception {
        return startAgent(cluster, httpPort, reports, java.util.function.UnaryOperator.identity());
    }

    /** The same, with {@code overlay} (an {@code --agent-config} fragment) laid over the world's configuration of its agent. */
    public Agent startAgent(String cluster, int httpPort, Consumer<ReconcileReport> reports,
                            java.util.function.UnaryOperator<AgentConfig> overlay) throws Exception {
        DemoRepository repo = repository();
        AgentConfig config = overlay.apply(AgentConfig.DEFAULTS.with(new AgentConfig.Overrides(Optional.of(repo.url()), Optional.of("main"),
                Optional.of(""), Optional.of(POLL), Optional.of(cluster), Optional.of(httpPort),
                Optional.of(dir.resolve("cache")), Optional.of(false))));
        Agent starting;
        if (machines == Machines.CLUSTER_API) {
            // Cluster API has no node updates of its own: kubelet restarts and in-place updates are privileged Jobs on the nodes.
            starting = new Agent(config.with(new AgentConfig.Provider(AgentConfig.Provider.CLUSTER_API, AgentConfig.Provider.ClusterApi.DEFAULT))
                    .with(AgentConfig.NodeUpdates.job(NODE_UPDATER)), kube.client(),
                    new ClusterApiMachineProvider(kube.client(), new ClusterApiSettings(CLUSTER_API_NAMESPACE, cluster, Map.of()), clock),
                    new NoNodeUpdates(), clock, reports);
        } else if (machines == Machines.HTTP) {
            // The agent's own provider and node updater, over real HTTP to the machine API this world serves.
            AgentConfig.Provider.Http http = new AgentConfig.Provider.Http(Optional.of(java.net.URI.create(machineApi.url())),
                    Optional.of(machineApi.tokenFile()), Optional.empty(), AgentConfig.Provider.Http.DEFAULT_TIMEOUT);
            MachineApi api = HttpMachineApiClient.of(new MachineApiEndpoint(http.url().orElseThrow(), http.tokenFile().orElseThrow(),
                    http.caFile(), http.timeout()));
            HttpMachineProvider provider = new HttpMachineProvider(api, MACHINE_API_POLL);
            starting = new Agent(config.with(new AgentConfig.Provider(AgentConfig.Provider.HTTP, http)), kube.client(), provider,
                    new MachineApiNodeUpdater(api, provider, kube.client()), clock, reports);
        } else {
            starting = new Agent(config, kube.client(), cloud, clock, reports);
        }
        try {
            starting.start();
        } catch (Exception e) {
            starting.close();
            throw e;
        }
        agent = starting;
        return starting;
    }

    /**
     * Writes {@value #AGENT_CONFIG} into the world's directory: the configuration with which {@code nightshift run --config
     * FILE --kubeconfig KUBECONFIG} in another process is this world's agent, as {@link #startAgent} would run it. The
     * repository (polled every {@link #POLL}), {@code cluster}, any free HTTP port, a Git cache in the world's directory
     * and the provider: with {@link Machines#CLUSTER_API} {@code cluster-api} in {@value #CLUSTER_API_NAMESPACE} with node
     * updates by Job in {@value #NODE_UPDATES_NAMESPACE} (run by the world's Job controllers), otherwise {@code http}
     * against this world's machine API and its token file. Returns the file, which {@link #facts()} names from then on.
     */
    public Path writeAgentConfig(String cluster) throws IOException {
        return writeAgentConfig(cluster, Optional.empty(), AgentConfig.Health.NONE);
    }

    /**
     * The same, with an {@code --agent-config} fragment's text after the world's own sections: a fragment holds only
     * sections the world does not write ({@code AgentConfigLoader.FRAGMENT_SECTIONS}), so the two never clash.
     */
    public Path writeAgentConfig(String cluster, Optional<String> fragment, AgentConfig.Health health) throws IOException {
        DemoRepository repository = repository();
        StringBuilder yaml = new StringBuilder();
        yaml.append("# nightshift run --config ").append(dir.resolve(AGENT_CONFIG)).append(" --kubeconfig ").append(kubeconfig).append('\n');
        yaml.append("# The agent of this sandbox's world, in a process of its own (written by nightshift sandbox --no-agent).\n");
        yaml.append("git:\n");
        yaml.append("  url: ").append(quoted(repository.url().toString())).append('\n');
        yaml.append("  ref: main\n");
        yaml.append("  pollInterval: ").append(POLL.toSeconds()).append("s\n");
        yaml.append("cluster: ").append(quoted(cluster)).append('\n');
        yaml.append("http: {port: 0}  # any free port: the agent prints its /status URL\n");
        yaml.append("cacheDir: ").append(quoted(dir.resolve("agent-cache").toString())).append('\n');
        yaml.append("provider:\n");
        if (machines == Machines.CLUSTER_API) {
            yaml.append("  type: cluster-api\n");
            yaml.append("  clusterApi:\n");
            yaml.append("    namespace: ").append(CLUSTER_API_NAMESPACE).append("  # where the MachineDeployments live\n");
            yaml.append("nodeUpdates:  # kubelet restarts and in-place updates: a Job per node, run by the sandbox's Job controller\n");
            yaml.append("  type: job\n");
            yaml.append("  job:\n");
            yaml.append("    namespace: ").append(NODE_UPDATER.namespace()).append('\n');
            yaml.append("    image: ").append(quoted(NODE_UPDATER.image())).append('\n');
            yaml.append("    command: [").append(String.join(", ", NODE_UPDATER.command().stream().map(EmbeddedWorld::quoted).toList()))
                    .append("]\n");
            yaml.append("    serviceAccount: ").append(NODE_UPDATER.serviceAccount()).append('\n');
        } else {
            yaml.append("  type: http\n");
            yaml.append("  http:\n");
            yaml.append("    url: ").append(quoted(machineApi.url())).append('\n');
            yaml.append("    tokenFile: ").append(quoted(machineApi.tokenFile().toString())).append('\n');
        }
        health.prometheusUrl().ifPresent(url -> yaml.append("health:  # the rollout health checks\n  prometheus: {url: ")
                .append(quoted(url.toString())).append("}\n"));
        fragment.ifPresent(text -> yaml.append("# From --agent-config:\n").append(text).append(text.endsWith("\n") ? "" : "\n"));
        Path file = dir.resolve(AGENT_CONFIG);
        Files.writeString(file, yaml.toString(), java.nio.charset.StandardCharsets.UTF_8);
        agentConfig = file;
        return file;
    }

    /** A YAML double-quoted scalar (JSON's string syntax, which YAML reads the same). */
    private static String quoted(String text) {
        try {
            return JSON.writeValueAsString(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a string is always written as JSON", e);
        }
    }

    /** The world's addresses; those of the repository and the agent null when the world has none. */
    public Facts facts() {
        return new Facts(kube.url(), kubeconfig, repo.map(DemoRepository::bare).orElse(null), repo.map(DemoRepository::work).orElse(null),
                agent == null ? null : "http://127.0.0.1:" + agent.httpPort(), machineApi.url(), machineApi.tokenFile(), agentConfig);
    }

    /** The banner both commands print once the agent runs. */
    public void banner(PrintStream out, String title) {
        Facts facts = facts();
        out.println();
        out.println(title);
        out.println("  Kubernetes API   " + facts.apiServer() + "   (kubectl --kubeconfig " + facts.kubeconfig() + " get nodes)");
        machineApiLine(out, facts);
        if (machines == Machines.CLUSTER_API) {
            clusterApiLines(out, facts);
        }
        out.println("  spec repository  " + facts.repository() + "   (the agent polls it every " + POLL.toSeconds() + "s)");
        out.println("  your clone       " + facts.workingClone() + "   (edit, commit, git push: the agent picks it up)");
        out.println("  web view         " + facts.agent() + "/   (open it in a browser: fleet, pools, calendar, spec)");
        out.println("  status           " + facts.agent() + "/status");
        out.println("  metrics          " + facts.agent() + "/metrics   (Prometheus; dashboard and alerts in grafana/)");
        out.println("  health           " + facts.agent() + "/healthz   " + facts.agent() + "/readyz");
        out.println();
    }

    /**
     * The banner of a world whose agent runs elsewhere (or none): the API, the machine API, the
     * Cluster API objects and node update Jobs with {@link Machines#CLUSTER_API}, the repository if
     * there is one, and how to point {@code nightshift run} at it: with {@code --provider http} and
     * flags (and, once {@link #writeAgentConfig} wrote it, with the configuration file), or with
     * Cluster API, with the configuration file.
     */
    public void bannerWithoutAgent(PrintStream out, String title, Optional<String> cluster) {
        Facts facts = facts();
        out.println();
        out.println(title);
        out.println("  Kubernetes API   " + facts.apiServer() + "   (kubectl --kubeconfig " + facts.kubeconfig() + " get nodes)");
        machineApiLine(out, facts);
        if (machines == Machines.CLUSTER_API) {
            clusterApiLines(out, facts);
        }
        if (facts.repository() != null) {
            out.println("  spec repository  " + facts.repository());
            out.println("  your clone       " + facts.workingClone() + "   (edit, commit, git push)");
        }
        out.println("  no agent runs here; point one at it from another shell:");
        String withConfig = "java -jar cli/target/nightshift.jar run --config " + facts.agentConfig() + " --kubeconfig " + facts.kubeconfig();
        if (machines == Machines.CLUSTER_API) {
            out.println("    " + withConfig);
            out.println();
            return;
        }
        out.println("    java -jar cli/target/nightshift.jar run --kubeconfig " + facts.kubeconfig() + " --provider http \\");
        out.println("        --machine-api-url " + facts.machineApi() + " --machine-api-token-file " + facts.machineApiTokenFile() + " \\");
        out.println("        --repo " + (facts.repository() == null ? "URL" : facts.repository().toUri()) + " --cluster "
                + cluster.orElse("NAME") + " --poll-interval 2s --http-port 0");
        if (facts.agentConfig() != null) {
            out.println("  or, the same with the configuration the sandbox wrote:");
            out.println("    " + withConfig);
        }
        out.println();
    }

    private static void clusterApiLines(PrintStream out, Facts facts) {
        out.println("  Cluster API      kubectl --kubeconfig " + facts.kubeconfig() + " get machinedeployments,machinesets,machines");
        out.println("  node updates     kubectl --kubeconfig " + facts.kubeconfig() + " get jobs -n " + NODE_UPDATES_NAMESPACE
                + "   (kubelet restarts and in-place updates, one Job per node)");
    }

    private static void machineApiLine(PrintStream out, Facts facts) {
        out.println("  machine API      " + facts.machineApi() + "/v1   (Authorization: Bearer, token in " + facts.machineApiTokenFile()
                + "; machines in " + facts.machineApiTokenFile().resolveSibling(MACHINE_LOG).getFileName() + ")");
    }

    /** The spec repository; the world must have one. */
    public DemoRepository repository() {
        return repo.orElseThrow(() -> new IllegalStateException("this world was started without a spec repository"));
    }

    /** The machine API this world serves: its URL, token file, and the {@link MachineApiCloud} behind it. */
    public MachineApiServer machineApi() {
        return machineApi;
    }

    /** What happened to the machine-API cloud's machines (also in {@value #MACHINE_LOG}). */
    public MachineLog machineLog() {
        return machineLog;
    }

    /** Every request the machine API answered (also in {@value #MACHINE_API_REQUESTS}). */
    public RequestLog machineApiRequests() {
        return machineApiRequests;
    }

    public DemoWorkloads workloads() {
        return workloads;
    }

    public EmbeddedKubernetes kubernetes() {
        return kube;
    }

    /** The running agent, once {@link #startAgent} returned. */
    public Optional<Agent> agent() {
        return Optional.ofNullable(agent);
    }

    @Override
    public void close() {
        if (agent != null) {
            agent.close();
        }
        workloads.close();
        jobs.ifPresent(JobControllers::close);
        clusterApi.ifPresent(ClusterApiControllers::close);
        machineApi.close();
        machineLog.close();
        machineApiRequests.close();
        cloudThreads.shutdownNow();
        repo.ifPresent(DemoRepository::close);
        kube.close();
    }
}
