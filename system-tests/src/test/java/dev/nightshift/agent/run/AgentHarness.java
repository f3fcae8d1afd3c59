package dev.nightshift.agent.run;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
import java.util.function.UnaryOperator;
import java.util.random.RandomGeneratorFactory;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.git.GitDaemon;
import dev.nightshift.agent.git.GitWork;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.agent.provider.NodeUpdater;
import dev.nightshift.agent.provider.http.HttpMachineApiClient;
import dev.nightshift.agent.provider.http.HttpMachineProvider;
import dev.nightshift.agent.provider.http.MachineApi;
import dev.nightshift.agent.provider.http.MachineApiEndpoint;
import dev.nightshift.agent.provider.http.MachineApiNodeUpdater;
import dev.nightshift.sandbox.machineapi.Holds;
import dev.nightshift.sandbox.machineapi.MachineApiCloud;
import dev.nightshift.sandbox.machineapi.MachineApiServer;
import dev.nightshift.sandbox.machineapi.MachineLog;
import dev.nightshift.sandbox.machineapi.RequestLog;
import dev.nightshift.agent.provider.capi.ClusterApiMachineProvider;
import dev.nightshift.agent.provider.capi.ClusterApiSettings;
import dev.nightshift.sandbox.capi.Behaviour;
import dev.nightshift.sandbox.capi.ClusterApiControllers;
import dev.nightshift.sandbox.capi.ClusterApiSeeding;
import dev.nightshift.sandbox.capi.ClusterApiSeeding.PoolSeed;
import dev.nightshift.sandbox.capi.EmbeddedClusterApi;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import dev.nightshift.strategies.model.DesiredPool;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * A git daemon serving the specs, a working clone pushed to by the real git binary, the embedded
 * Kubernetes API with a simulated cloud (or the embedded Cluster API, see {@link RolloutBackend}), and the agent
 * between them; restartable like a pod.
 */
final class AgentHarness implements AutoCloseable {

    /** The cloud's default timing: machines register and in-place updates finish after 0.8 s, kubelets restart in 0.3 s. */
    static final SimulatedMachineProvider.Behaviour CLOUD = new SimulatedMachineProvider.Behaviour(Duration.ofMillis(800),
            Duration.ofMillis(800), Duration.ofMillis(300), 0, 0);

    /** The User-Agent of the agent's requests: the request log tells them from the test's and the cloud's by it. */
    static final String AGENT = "nightshift-agent-under-test";

    /** The Kubernetes version the Cluster API pool is seeded at: the specs' cluster version. */
    static final String KUBERNETES_VERSION = "1.31.4";

    /** {@code nodeUpdates: none} (the cluster-api default): never reached; with {@code nodeUpdates.type: job} the agent builds its own updater. */
    private static final NodeUpdater NO_NODE_UPDATES = new NodeUpdater() {
        @Override
        public void updateInPlace(DesiredPool pool, String node) {
            throw new UnsupportedOperationException("no node updates with the cluster-api provider in this test: " + node);
        }

        @Override
        public void restartKubelet(DesiredPool pool, String node) {
            throw new UnsupportedOperationException("no kubelet restarts with the cluster-api provider in this test: " + node);
        }
    };

    final RolloutBackend backend;
    /** The Cluster API controller double; null with the simulated cloud. */
    final ClusterApiControllers capi;
    final GitDaemon daemon;
    final GitWork work;
    final EmbeddedKubernetes kube;
    private final ScheduledExecutorService cloud = Executors.newScheduledThreadPool(2);
    final SimulatedMachineProvider provider;
    /** The machines the agent asked the cloud for; the agent talks to the cloud through it. */
    final MachineRequests machineRequests;
    /** The machine API the agent calls with {@link RolloutBackend#HTTP}; null otherwise. */
    final MachineApiServer machineApi;
    /** What the machine API's cloud did, with {@link RolloutBackend#HTTP}; null otherwise. */
    final MachineLog machineLog;
    /** What the machine API answered, with {@link RolloutBackend#HTTP}: every request and its phase (held, lost answer…). */
    final Optional<RequestLog> machineApiRequests;
    /** The {@code http} provider of the agent running now. */
    private volatile HttpMachineProvider httpProvider;
    private final Path tmp;
    /** The agent's own client, with {@link #AGENT} as its User-Agent; the cloud and the test use {@code kube.client()}. */
    private final KubernetesClient agentClient;
    Agent agent;

    AgentHarness(Path tmp, String cluster, String pool, int nodes) throws Exception {
        this(tmp, cluster, pool, nodes, EmbeddedKubernetes.DEFAULT_GIT_VERSION);
    }

    AgentHarness(Path tmp, String cluster, String pool, int nodes, String apiServerVersion) throws Exception {
        this(tmp, cluster, pool, nodes, apiServerVersion, CLOUD);
    }

    /** With the simulated cloud's own timing: how long machines take to register, in-place updates to finish. */
    AgentHarness(Path tmp, String cluster, String pool, int nodes, SimulatedMachineProvider.Behaviour behaviour) throws Exception {
        this(tmp, cluster, pool, nodes, EmbeddedKubernetes.DEFAULT_GIT_VERSION, behaviour);
    }

    AgentHarness(Path tmp, String cluster, String pool, int nodes, String apiServerVersion,
                 SimulatedMachineProvider.Behaviour behaviour) throws Exception {
        this(tmp, cluster, pool, nodes, apiServerVersion, behaviour, RolloutBackend.SIMULATED, Behaviour.fast());
    }

    /**
     * With the pool's machines from {@code backend}, a new machine becoming a Ready node {@code machineDelay} after it
     * is asked for. With {@link RolloutBackend#CLUSTER_API}, the embedded Cluster API (its CRDs and the controller
     * double) holds an OnDelete MachineDeployment of {@code nodes} replicas for the pool in the CAPI cluster
     * {@code cluster}, and its Nodes come unlabelled; the simulated cloud is then not used.
     */
    AgentHarness(Path tmp, String cluster, String pool, int nodes, RolloutBackend backend, Duration machineDelay) throws Exception {
        this(tmp, cluster, pool, nodes, EmbeddedKubernetes.DEFAULT_GIT_VERSION, new SimulatedMachineProvider.Behaviour(machineDelay,
                machineDelay, Duration.ofMillis(300), 0, 0), backend, new Behaviour(machineDelay, Duration.ofMillis(200),
                Duration.ofSeconds(3), Duration.ofMillis(200), Duration.ofSeconds(2), 0, 0));
    }

    /**
     * With {@code backend}'s machines on the simulated cloud's timing and faults: with {@link RolloutBackend#HTTP} a
     * machine that never registers is one the machine API reports {@code failed}, and an in-place failure fails the
     * machine's update.
     */
    AgentHarness(Path tmp, String cluster, String pool, int nodes, RolloutBackend backend, SimulatedMachineProvider.Behaviour cloud)
            throws Exception {
        this(tmp, cluster, pool, nodes, EmbeddedKubernetes.DEFAULT_GIT_VERSION, cloud, backend, Behaviour.fast());
    }

    /**
     * With {@code backend}'s machines on these behaviours (the simulated cloud's, which the machine API's cloud also
     * follows, and the Cluster API double's), and the machine API's answers held or lost as {@code holds} says.
     */
    AgentHarness(Path tmp, String cluster, String pool, int nodes, RolloutBackend backend, SimulatedMachineProvider.Behaviour cloud,
                 Behaviour clusterApi, Holds holds) throws Exception {
        this(tmp, cluster, pool, nodes, EmbeddedKubernetes.DEFAULT_GIT_VERSION, cloud, backend, clusterApi, holds);
    }

    private AgentHarness(Path tmp, String cluster, String pool, int nodes, String apiServerVersion,
                         SimulatedMachineProvider.Behaviour behaviour, RolloutBackend backend, Behaviour clusterApi) throws Exception {
        this(tmp, cluster, pool, nodes, apiServerVersion, behaviour, backend, clusterApi, Holds.none());
    }

    private AgentHarness(Path tmp, String cluster, String pool, int nodes, String apiServerVersion,
                         SimulatedMachineProvider.Behaviour behaviour, RolloutBackend backend, Behaviour clusterApi, Holds holds)
            throws Exception {
        this.tmp = tmp;
        this.backend = backend;
        Path served = Files.createDirectories(tmp.resolve("served"));
        daemon = new GitDaemon(served);
        work = GitWork.create(served, "specs.git", daemon.url("specs.git"), tmp.resolve("work"));
        kube = EmbeddedKubernetes.start(apiServerVersion);
        agentClient = new KubernetesClientBuilder().withConfig(new ConfigBuilder(kube.config()).withUserAgent(AGENT).build()).build();
        // Seeded: a failure rate below 1 fails the same machines in every run.
        provider = new SimulatedMachineProvider(kube.client(), cloud, Clock.systemUTC(), new Random(3), p -> false, behaviour);
        machineRequests = backend == RolloutBackend.HTTP ? new MachineRequests(() -> httpProvider, Clock.systemUTC())
                : new MachineRequests(provider, Clock.systemUTC());
        MachineApiServer api = null;
        MachineLog log = null;
        RequestLog requests = null;
        capi = switch (backend) {
            case SIMULATED -> {
                for (int i = 1; i <= nodes; i++) {
                    provider.seed(pool, pool + "-" + i, Optional.empty(), Optional.empty());
                }
                yield null;
            }
            case CLUSTER_API -> {
                EmbeddedClusterApi.install(kube);
                // Seeded: the same events give the same Machine and Node names in every run.
                ClusterApiControllers controllers = new ClusterApiControllers(kube.client(), EmbeddedKubernetes.NAMESPACE, cloud,
                        Clock.systemUTC(), RandomGeneratorFactory.of("L64X128MixRandom").create(42), clusterApi);
                controllers.start();
                ClusterApiSeeding.seed(kube.client(), PoolSeed.of(cluster, pool, nodes, KUBERNETES_VERSION), Duration.ofSeconds(60));
                yield controllers;
            }
            case HTTP -> {
                log = new MachineLog(Optional.empty());
                // Seeded: the same events give the same node names in every run.
                MachineApiCloud machines = new MachineApiCloud(kube.client(), cloud, Clock.systemUTC(),
                        RandomGeneratorFactory.of("L64X128MixRandom").create(42), new MachineApiCloud.Behaviour(
                                behaviour.createDelay(), Duration.ofMillis(200), behaviour.inPlaceDelay(), behaviour.restartDelay(),
                                behaviour.neverRegisters(), behaviour.inPlaceFailure()), log);
                requests = new RequestLog(Optional.empty());
                api = MachineApiServer.start(machines, requests, holds, tmp.resolve("machine-api-token"),
                        Clock.systemUTC());
                // Running before Nightshift: unstamped, their nodes without the pool label.
                machines.seed(pool, nodes, Map.of(), Map.of());
                yield null;
            }
        };
        machineApi = api;
        machineLog = log;
        machineApiRequests = Optional.ofNullable(requests);
    }

    private static final AgentConfig.Overrides DRY_RUN = new AgentConfig.Overrides(Optional.empty(), Optional.empty(),
            Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.of(true));

    /** Starts an agent; a second call after {@link #stopAgent()} is a restarted agent with no memory. */
    void startAgent(String cluster) throws Exception {
        startAgent(cluster, false);
    }

    void startAgent(String cluster, boolean dryRun) throws Exception {
        startAgent(cluster, config -> config.with(dryRun ? DRY_RUN : AgentConfig.Overrides.NONE));
    }

    /** With the test's configuration changed by {@code adjust} (node updates off, say). */
    void startAgent(String cluster, UnaryOperator<AgentConfig> adjust) throws Exception {
        AgentConfig config = adjust.apply(TestAgentConfig.of(daemon.url("specs.git"), cluster, Files.createTempDirectory(tmp, "cache")));
        agent = switch (backend) {
            case SIMULATED -> new Agent(config, agentClient, machineRequests, provider, Clock.systemUTC(), r -> { });
            // A new provider each time: a restarted agent has no memory but what it wrote to the cluster.
            // Node updates as the test configured them (nodeUpdates.type: job), else the provider's default: none.
            case CLUSTER_API -> new Agent(config.with(new AgentConfig.Provider(AgentConfig.Provider.CLUSTER_API)), agentClient,
                    new ClusterApiMachineProvider(agentClient, new ClusterApiSettings(EmbeddedKubernetes.NAMESPACE, cluster, Map.of()),
                            Clock.systemUTC()), NO_NODE_UPDATES, Clock.systemUTC(), r -> { });
            case HTTP -> {
                // A new provider and client each time, over real HTTP: a restarted agent knows only what it lists.
                MachineApi api = HttpMachineApiClient.of(new MachineApiEndpoint(URI.create(machineApi.url()), machineApi.tokenFile(),
                        Optional.empty(), Duration.ofSeconds(10)));
                httpProvider = new HttpMachineProvider(api, Duration.ofSeconds(1));
                yield new Agent(config.with(new AgentConfig.Provider(AgentConfig.Provider.HTTP)), agentClient, machineRequests,
                        new MachineApiNodeUpdater(api, httpProvider, agentClient), Clock.systemUTC(), r -> { });
            }
        };
        agent.start();
    }

    void stopAgent() {
        agent.close();
    }

    /** Writes {@code cluster.yaml} and the pool's file and pushes them as one commit; returns the commit. */
    String push(String message, String cluster, ScenarioSpecs.Pool pool) throws IOException, InterruptedException {
        work.write("cluster.yaml", cluster);
        return push(message, pool);
    }

    /** Writes the pool's file ({@code pools/<name>.yaml}) and pushes it; returns the commit. */
    String push(String message, ScenarioSpecs.Pool pool) throws IOException, InterruptedException {
        work.write(pool.file(), pool.yaml());
        return work.commitAndPush(message);
    }

    /**
     * The start most scenarios share: {@code cluster} and {@code pool} pushed as the first commit, the agent started on
     * cluster {@code e2e} (the cluster of {@link ScenarioSpecs}), and its adoption of the pool's {@code nodes} nodes
     * awaited, so that later writes are the test's doing. Returns the first commit.
     */
    String startAndAdopt(String cluster, ScenarioSpecs.Pool pool, int nodes) throws Exception {
        String initial = push("initial", cluster, pool);
        startAgent("e2e");
        awaitAdopted(pool.name(), nodes);
        return initial;
    }

    List<Node> nodes(String pool) {
        return kube.client().nodes().withLabel(NodeMarks.POOL, pool).list().getItems();
    }

    /**
     * Waits until the agent adopted the pool: every node stamped and its labels propagated (the adoption's last write).
     * Fails at once, naming the errors, when the harness's agent refused the pushed specs: a test's spec mistake (a
     * duplicate key, limits a strategy does not allow) otherwise shows only as an adoption that never comes. (An agent
     * run elsewhere, as a process, is not asked.)
     */
    void awaitAdopted(String pool, int nodes) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60))
                .failFast("the agent refused the specs", () -> org.assertj.core.api.Assertions.assertThat(
                        agent == null ? List.of() : agent.specErrors()).as("errors of the pushed specs").isEmpty())
                .until(() -> {
            List<Node> current = nodes(pool);
            return current.size() == nodes && current.stream().noneMatch(n -> annotation(n, NodeMarks.ROLL_HASH).isEmpty()
                    || annotation(n, NodeMarks.MANAGED_LABELS).isEmpty());
        });
    }

    /**
     * Waits until the agent has written its record of the pool, the last thing it writes after
     * adopting. Tests that cut the API connections wait for it: the mock server, writing a watch
     * event to a socket it is closing, stalls its only event loop for 30 s.
     */
    void awaitPoolRecord(String pool) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> kube.client().configMaps()
                .inNamespace(Agent.NAMESPACE).withName(PoolStatusRecords.name(pool)).get() != null);
    }

    /** The body of {@code GET path} on the agent's HTTP port, e.g. {@code /status} or {@code /metrics}. */
    String http(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + agent.httpPort() + path)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    /** Reconciles the agent finished without an error, from its {@code /metrics}. */
    double reconciles() throws IOException, InterruptedException {
        return new Scrape(http("/metrics")).valueOrZero("nightshift_reconcile_duration_seconds_count", java.util.Map.of("result", "ok"));
    }

    /**
     * Has the agent reconcile {@code times} more times although nothing is to be done: another client touches an
     * annotation of {@code node}, which the agent watches, and each time the reconcile it causes is awaited.
     */
    void idleThroughReconciles(String node, int times) throws IOException, InterruptedException {
        double before = reconciles();
        for (int i = 1; i <= times; i++) {
            String touch = Integer.toString(i);
            kube.client().nodes().withName(node).edit(n -> {
                n.getMetadata().getAnnotations().put("example.com/touched", touch);
                return n;
            });
            double expected = before + i;
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> reconciles() >= expected);
        }
    }

    /** The hash of the spec the node was made or last rolled for; empty on a node not adopted yet. */
    static String rollHash(Node n) {
        return annotation(n, NodeMarks.ROLL_HASH);
    }

    static String annotation(Node n, String key) {
        return n.getMetadata().getAnnotations() == null ? "" : n.getMetadata().getAnnotations().getOrDefault(key, "");
    }

    @Override
    public void close() {
        if (agent != null) {
            agent.close();
        }
        if (capi != null) {
            capi.close();
        }
        if (machineApi != null) {
            machineApi.close();
        }
        cloud.shutdownNow();
        agentClient.close();
        kube.close();
        daemon.close();
    }
}
