package dev.nightshift.agent.provider.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.git.GitDaemon;
import dev.nightshift.agent.git.GitWork;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.run.Agent;
import dev.nightshift.agent.run.TestAgentConfig;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.machineapi.Holds;
import dev.nightshift.sandbox.machineapi.MachineApiCloud;
import dev.nightshift.sandbox.machineapi.MachineApiServer;
import dev.nightshift.sandbox.machineapi.MachineLog;
import dev.nightshift.sandbox.machineapi.RequestLog;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Issue 24, case 2: the {@code http} provider against an adapter that labels every node it registers with the pool
 * ({@code nightshift.dev/pool}, as one that passes the pool to the kubelet's {@code --node-labels}), besides exactly the
 * request's labels and taints and no annotations. A pool of 6, {@code maxSurge: 3}, {@code maxUnavailable: 2}, rolled to
 * a new image: the surge machines' nodes arrive already labelled, and their machine records (hashes, {@code surge-for})
 * must be what the agent reads, so that their partners are drained and removed. The rollout ends with exactly 6
 * machines, all at the new hash, and never more than 9 machines at once; with or without the agent restarted while
 * the surge machines are up. The nodes carry no hashes of their own here (the agent's settle write skips a node
 * already in its pool): what the agent makes of them is judged from its {@code /status}.
 */
class PoolLabellingAdapterIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CLUSTER_NAME = "e2e";
    private static final String POOL = "web";
    private static final int NODES = 6;
    private static final int SURGE = 3;
    private static final Duration ROLLOUT = Duration.ofSeconds(120);

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
            """;

    private static String pool(String version) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: e2e}
                spec:
                  minimum: %d
                  maximum: %d
                  maxSurge: %d
                  maxUnavailable: 2
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(NODES, NODES + SURGE, SURGE, version);
    }

    @TempDir
    Path tmp;

    private GitDaemon daemon;
    private GitWork work;
    private EmbeddedKubernetes kube;
    private KubernetesClient agentClient;
    private final ScheduledExecutorService threads = Executors.newScheduledThreadPool(2);
    private MachineLog machineLog;
    private MachineApiCloud cloud;
    private MachineApiServer server;
    private Agent agent;

    @BeforeEach
    void world() throws Exception {
        Path served = Files.createDirectories(tmp.resolve("served"));
        daemon = new GitDaemon(served);
        work = GitWork.create(served, "specs.git", daemon.url("specs.git"), tmp.resolve("work"));
        kube = EmbeddedKubernetes.start(EmbeddedKubernetes.DEFAULT_GIT_VERSION);
        agentClient = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(kube.config()).build();
        machineLog = new MachineLog(Optional.empty());
        // Seeded: the same events give the same node names in every run.
        cloud = new MachineApiCloud(kube.client(), threads, Clock.systemUTC(), RandomGeneratorFactory.of("L64X128MixRandom").create(42),
                new MachineApiCloud.Behaviour(Duration.ofMillis(400), Duration.ofMillis(200), Duration.ofMillis(400),
                        Duration.ofMillis(300), 0, 0),
                machineLog, pool -> false, MachineApiCloud.Registration.WITH_POOL_LABEL);
        server = MachineApiServer.start(cloud, new RequestLog(Optional.empty()), Holds.none(), tmp.resolve("machine-api-token"),
                Clock.systemUTC());
        // Running before Nightshift: unstamped machines, their nodes labelled with the pool by the adapter.
        cloud.seed(POOL, NODES, Map.of(), Map.of());
    }

    @AfterEach
    void close() {
        if (agent != null) {
            agent.close();
        }
        if (server != null) {
            server.close();
        }
        threads.shutdownNow();
        if (agentClient != null) {
            agentClient.close();
        }
        if (kube != null) {
            kube.close();
        }
        if (daemon != null) {
            daemon.close();
        }
    }

    @Test
    void anImageBumpWithSurgeFinishesWhenTheAdapterLabelsNodesWithThePool() throws Exception {
        String oldHash = adopted();

        push(pool("1632.0.0"), "image bump");

        assertRolledOut(oldHash);
    }

    @Test
    void aRestartedAgentFinishesTheRolloutTheFirstOneSurgedFor() throws Exception {
        String oldHash = adopted();

        push(pool("1632.0.0"), "image bump");
        // The three surge machines asked for and their nodes registered (labelled by the adapter): a new agent takes over.
        await("the surge machines' nodes").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(() -> cloud.list(POOL).stream().filter(m -> m.annotations().containsKey(NodeMarks.SURGE_FOR)
                        && m.state() == MachineState.RUNNING).count() == SURGE);
        agent.close();
        agent = null;
        startAgent();

        assertRolledOut(oldHash);
    }

    /** The pool pushed at 1631.0.0 and its seeded nodes adopted by the agent; returns the hash they were stamped with. */
    private String adopted() throws Exception {
        work.write("cluster.yaml", CLUSTER);
        work.write("pools/web.yaml", pool("1631.0.0"));
        work.commitAndPush("initial");
        startAgent();
        await("adoption").atMost(Duration.ofSeconds(60)).until(() -> {
            List<Node> nodes = nodes();
            return nodes.size() == NODES && nodes.stream().noneMatch(n -> annotation(n, NodeMarks.ROLL_HASH).isEmpty()
                    || annotation(n, NodeMarks.MANAGED_LABELS).isEmpty());
        });
        Set<String> hashes = nodes().stream().map(n -> annotation(n, NodeMarks.ROLL_HASH)).collect(Collectors.toSet());
        assertThat(hashes).hasSize(1);
        return hashes.iterator().next();
    }

    private void startAgent() throws Exception {
        AgentConfig config = TestAgentConfig.of(daemon.url("specs.git"), CLUSTER_NAME, Files.createTempDirectory(tmp, "cache"))
                .with(new AgentConfig.Provider(AgentConfig.Provider.HTTP));
        // A new provider and client each time, over real HTTP: a restarted agent knows only what it lists.
        MachineApi api = HttpMachineApiClient.of(new MachineApiEndpoint(URI.create(server.url()), server.tokenFile(), Optional.empty(),
                Duration.ofSeconds(10)));
        HttpMachineProvider provider = new HttpMachineProvider(api, Duration.ofSeconds(1));
        agent = new Agent(config, agentClient, provider, new MachineApiNodeUpdater(api, provider, agentClient), Clock.systemUTC(),
                r -> { });
        agent.start();
    }

    private void push(String poolSpec, String message) throws Exception {
        work.write("pools/web.yaml", poolSpec);
        work.commitAndPush(message);
        agent.pollNow();
    }

    /**
     * Waits for the end: exactly {@value #NODES} machines, running, at one new roll hash, each with its node at that hash
     * and none of the old nodes left; and never more than {@value #NODES} + {@value #SURGE} machines on the way.
     */
    private void assertRolledOut(String oldHash) {
        try {
            await("the rollout's end").atMost(ROLLOUT).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                List<ApiMachine> machines = cloud.list(POOL);
                assertThat(machines).as("the pool's machines").hasSize(NODES)
                        .allMatch(m -> m.state() == MachineState.RUNNING, "running");
                Set<String> hashes = machines.stream().map(m -> m.annotations().getOrDefault(NodeMarks.ROLL_HASH, ""))
                        .collect(Collectors.toSet());
                assertThat(hashes).as("the machines' roll hashes").hasSize(1).doesNotContain(oldHash, "");
                assertThat(nodes().stream().map(n -> n.getMetadata().getName())).as("the pool's nodes: the machines' nodes")
                        .containsExactlyInAnyOrderElementsOf(machines.stream().map(ApiMachine::nodeName).toList());
                // What the agent reads of them: every node current (its machine's hashes), none outdated, the rollout over.
                JsonNode pool = JSON.readTree(agent.status()).path("pools").get(0);
                assertThat(pool.path("nodes").asInt()).as("nodes in /status").isEqualTo(NODES);
                assertThat(pool.path("current").asInt()).as("current in /status").isEqualTo(NODES);
                assertThat(pool.path("outdated").asInt()).as("outdated in /status").isZero();
                assertThat(pool.path("adopted")).as("adopted in /status").isEmpty();
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "\nthe machines: " + cloud.list(POOL) + "\nthe agent's /status: "
                    + (agent == null ? "no agent" : agent.status()), e);
        }
        assertThat(mostMachinesAtOnce()).as("the most machines the pool had at once").isLessThanOrEqualTo(NODES + SURGE);
    }

    /**
     * From the cloud's log, as {@code RolloutInvariants} counts them: the pool's machines seeded or created and not being
     * deleted. A replace is one operation: its replacement's {@code CREATED} line takes the old machine out.
     */
    private int mostMachinesAtOnce() {
        Set<String> alive = new HashSet<>();
        int most = 0;
        for (MachineLog.Entry e : machineLog.entries()) {
            if (!POOL.equals(e.pool())) {
                continue;
            }
            switch (e.event()) {
                case SEEDED -> alive.add(e.machine());
                case CREATED -> {
                    alive.add(e.machine());
                    if (e.replaces() != null) {
                        alive.remove(e.replaces());
                    }
                }
                case DELETING, REPLACED, GONE -> alive.remove(e.machine());
                default -> {
                }
            }
            most = Math.max(most, alive.size());
        }
        return most;
    }

    private List<Node> nodes() {
        return kube.client().nodes().withLabel(NodeMarks.POOL, POOL).list().getItems();
    }

    private static String annotation(Node n, String key) {
        return n.getMetadata().getAnnotations() == null ? "" : n.getMetadata().getAnnotations().getOrDefault(key, "");
    }
}
