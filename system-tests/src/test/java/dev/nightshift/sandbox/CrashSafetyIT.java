package dev.nightshift.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.strategies.model.DesiredPool;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * Crash safety, for real: {@code nightshift sandbox --no-agent} and {@code nightshift run
 * --provider http} from the built jar as two processes, the agent killed with SIGKILL at moments
 * a seeded generator picks, each seen in the sandbox's request log or by the test's watch of the
 * cluster (never a timed sleep), and started again each time, through an image bump of two pools
 * of three nodes: {@code surge} (maxSurge 1, maxUnavailable 0: surge machines created, old ones
 * deleted) and {@code swap} (maxSurge 0, maxUnavailable 1: machines replaced in one call), one
 * application pod per node under a budget per pool. The moments:
 * <ul>
 *   <li>the Nth create (1–3) done by the cloud, its answer held back for {@link #HOLD}, so the agent
 *       dies not knowing its machine exists and the next agent starts while the answer is still out;</li>
 *   <li>the Mth replace (1–3), likewise;</li>
 *   <li>the Kth node (1–6) to begin draining, seen when its {@code drain-started-at} appears.</li>
 * </ul>
 * Judged by {@link CrashJudge} from the sandbox's machine log and request log and the node events
 * watched: the rollout completes, no node drained twice, no key or replacement made two machines,
 * never more than count + maxSurge machines, never fewer than count − maxUnavailable available nodes.
 */
class CrashSafetyIT {

    private static final String CLUSTER = "crash";
    private static final String OLD_IMAGE = "1631.0.0";
    private static final String NEW_IMAGE = "1632.0.0";
    private static final List<CrashJudge.PoolLimits> POOLS = List.of(new CrashJudge.PoolLimits("surge", 3, 1, 0),
            new CrashJudge.PoolLimits("swap", 3, 0, 1));
    /** How long a held create or replace answer stays out: longer than a new agent takes to start and act. */
    private static final Duration HOLD = Duration.ofSeconds(15);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A moment of the rollout at which the agent is killed. */
    private sealed interface Moment {

        boolean reached(List<MachineApiLogs.Request> requests, List<String> drainOrder);

        /** Nth request of an operation, done by the cloud, its answer held. */
        record Held(String operation, int ordinal) implements Moment {
            @Override
            public boolean reached(List<MachineApiLogs.Request> requests, List<String> drainOrder) {
                return requests.stream().anyMatch(r -> operation.equals(r.operation()) && r.ordinal() == ordinal && "held".equals(r.phase()));
            }

            @Override
            public String toString() {
                return operation + " #" + ordinal + " held";
            }
        }

        /** The Kth node to begin draining (in either pool). */
        record Draining(int k) implements Moment {
            @Override
            public boolean reached(List<MachineApiLogs.Request> requests, List<String> drainOrder) {
                return drainOrder.size() >= k;
            }

            @Override
            public String toString() {
                return "drain of node #" + k;
            }
        }
    }

    /** An agent killed: at which moments, when (since the push), and what was going on. */
    private record Kill(List<Moment> moments, long agentPid, Duration sincePush, String detail) {
        @Override
        public String toString() {
            return "SIGKILL to agent " + agentPid + " at " + moments + ", " + sincePush.toMillis() + " ms after the push (" + detail + ")";
        }
    }

    @TempDir
    Path tmp;

    private final List<AgentProcess> agents = new ArrayList<>();
    private SandboxProcess sandbox;
    private KubernetesClient client;
    private ClusterWatch watch;

    @AfterEach
    void stopEverything() {
        // Whatever failed: no agent or sandbox process outlives the test.
        agents.forEach(AgentProcess::close);
        if (watch != null) {
            watch.close();
        }
        if (client != null) {
            client.close();
        }
        if (sandbox != null) {
            sandbox.close();
        }
    }

    /**
     * The suite's seed, 1 (about a minute and a half on the 2-core CI machine; seeds 2 and 3 went when
     * ProviderCrashModelIT's seeded SIGKILLs came, which cover the http provider's held and lost answers too); more on demand with
     * {@code -Dnightshift.crash.seeds=N} (seeds 1 to N), the command in docs/contributing/testing.md.
     */
    static java.util.stream.LongStream seeds() {
        return java.util.stream.LongStream.rangeClosed(1, Long.getLong("nightshift.crash.seeds", 1));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void anAgentKilledAtSeededMomentsOfARolloutFinishesItWithoutHarm(long seed) throws Exception {
        Instant started = Instant.now();
        RandomGenerator random = new Random(seed);
        int create = 1 + random.nextInt(3);
        int replace = 1 + random.nextInt(3);
        int drain = 1 + random.nextInt(6);
        List<Moment> moments = List.of(new Moment.Held("createMachine", create), new Moment.Held("replaceMachine", replace),
                new Moment.Draining(drain));
        Path oldSpec = writeSpec(tmp.resolve("spec-old"), OLD_IMAGE);
        Map<String, String> oldHashes = rollHashes(oldSpec);
        Map<String, String> newHashes = rollHashes(writeSpec(tmp.resolve("spec-new"), NEW_IMAGE));

        // And an answer lost with the agent alive, so that it sends the same create and the same replace again (issue 24
        // item 6: without it, random idempotency keys went unseen). Derived from the draws, which stay as they were.
        int lostCreate = create % 3 + 1;
        int lostReplace = replace % 3 + 1;
        sandbox = SandboxProcess.start(tmp.resolve("run"), oldSpec, "--no-agent", "--pods-per-node", "1", "--machine-api-hold",
                "create:" + create + ":" + HOLD.toSeconds() + ",replace:" + replace + ":" + HOLD.toSeconds()
                        + ",create:" + lostCreate + ":lost,replace:" + lostReplace + ":lost");
        MachineApiLogs logs = new MachineApiLogs(sandbox.info().kubeconfig().getParent());
        client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(
                Files.readString(sandbox.info().kubeconfig(), StandardCharsets.UTF_8))).build();
        watch = new ClusterWatch(client, Clock.systemUTC());
        Path cache = tmp.resolve("agent-cache");
        AgentProcess agent = startAgent(cache);
        AtomicReference<AgentProcess> current = new AtomicReference<>(agent);
        AtomicReference<String> drainKill = new AtomicReference<>();
        watch.whenDraining(drain, node -> {
            current.get().sigkill();
            List<String> pods = watch.podsOn(node);
            drainKill.set(node + " draining, " + (pods.isEmpty() ? "its pods already gone" : "application pods still on it: " + pods));
        });
        await("the agent labels the seeded nodes with their pool and the machines' hashes").atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200)).failFast("the agent exited", () -> !agents.get(0).alive())
                .until(() -> atHashes(oldHashes));

        for (String pool : oldHashes.keySet()) {
            Path file = sandbox.info().workingClone().resolve("pools/" + pool + ".yaml");
            Files.writeString(file, Files.readString(file, StandardCharsets.UTF_8).replace(OLD_IMAGE, NEW_IMAGE), StandardCharsets.UTF_8);
        }
        sandbox.commitAndPush("both pools to gardenlinux " + NEW_IMAGE);
        Instant pushed = Instant.now();

        List<Kill> kills = new ArrayList<>();
        List<Moment> pending = new ArrayList<>(moments);
        while (!pending.isEmpty()) {
            AgentProcess running = agent;
            List<Moment> reached;
            try {
                reached = await("one of " + pending).atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(50))
                        .failFast("the agent exited by itself", running::endedByItself)
                        .until(() -> reachedOf(pending, logs), r -> !r.isEmpty());
            } catch (RuntimeException timedOutOrExited) {
                throw new AssertionError(timedOutOrExited.getMessage() + "\n" + report(seed, moments, kills, List.of(), logs),
                        timedOutOrExited);
            }
            String detail = detail(reached, logs.requests(), drainKill.get());
            running.kill();
            kills.add(new Kill(reached, running.pid(), Duration.between(pushed, Instant.now()), detail));
            pending.removeAll(reached);
            agent = startAgent(cache);
            current.set(agent);
        }

        AgentProcess last = agent;
        try {
            await("the rollout completes").atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500))
                    .failFast("the agent exited by itself", last::endedByItself)
                    .until(() -> atHashes(newHashes) && machinesPerPool().equals(Map.of("surge", 3, "swap", 3)));
        } catch (RuntimeException timedOutOrExited) {
            // The verdict on what happened so far says more than "stuck".
            List<String> violations = new CrashJudge(POOLS).violations(logs.requests(), logs.machines(), watch.events());
            throw new AssertionError(timedOutOrExited.getMessage() + "\n" + report(seed, moments, kills, violations, logs),
                    timedOutOrExited);
        }
        Duration rollout = Duration.between(pushed, Instant.now());
        last.kill();

        List<String> violations = new CrashJudge(POOLS).violations(logs.requests(), logs.machines(), watch.events());
        assertThat(violations).as(report(seed, moments, kills, violations, logs)).isEmpty();
        assertThat(kills).as("every moment had its kill").flatExtracting(Kill::moments).containsExactlyInAnyOrderElementsOf(moments);
        List<MachineApiLogs.Request> requests = logs.requests();
        List<MachineApiLogs.Request> lost = requests.stream().filter(r -> "lost-answer".equals(r.phase())).toList();
        assertThat(lost).as("a create's and a replace's answers were lost").extracting(MachineApiLogs.Request::operation)
                .containsExactlyInAnyOrder("createMachine", "replaceMachine");
        assertThat(lost).as("the agent sent a request again, with its key, after its answer was lost (%s)", requests)
                .anyMatch(l -> requests.stream().anyMatch(r -> r.sequence() > l.sequence() && !"lost-answer".equals(r.phase())
                        && r.status() != 503 && l.idempotencyKey() != null && l.idempotencyKey().equals(r.idempotencyKey())));
        assertThat(logs.machines()).as("the three swap machines replaced, one by one")
                .filteredOn(m -> m.event().equals("replaced")).extracting(MachineApiLogs.MachineEvent::pool).containsOnly("swap").hasSize(3);
        System.out.printf("CrashSafetyIT seed %d: %s; rollout %d s after the push, %d s in all%n  %s%n", seed, moments,
                rollout.toSeconds(), Duration.between(started, Instant.now()).toSeconds(),
                kills.stream().map(Kill::toString).collect(Collectors.joining("\n  ")));
    }

    private AgentProcess startAgent(Path cache) throws IOException {
        AgentProcess agent = AgentProcess.start(sandbox.info(), CLUSTER, cache, tmp.resolve("agent-" + (agents.size() + 1) + ".out"));
        agents.add(agent);
        return agent;
    }

    /** The pending moments reached now (all of them share one kill). */
    private List<Moment> reachedOf(List<Moment> pending, MachineApiLogs logs) {
        List<MachineApiLogs.Request> requests = logs.requests();
        List<String> drainOrder = watch.drainOrder();
        return pending.stream().filter(m -> m.reached(requests, drainOrder)).toList();
    }

    /** What the cluster looked like at a kill: the machine a held request made; for a drain, whether its pods were still on the node. */
    private static String detail(List<Moment> reached, List<MachineApiLogs.Request> requests, String drainKill) {
        List<String> details = new ArrayList<>();
        for (Moment m : reached) {
            if (m instanceof Moment.Draining) {
                details.add(drainKill);
            } else if (m instanceof Moment.Held h) {
                requests.stream().filter(r -> h.operation().equals(r.operation()) && r.ordinal() == h.ordinal() && "held".equals(r.phase()))
                        .findFirst().ifPresent(r -> details.add(r.method() + " " + r.path() + " made " + r.machine() + ", answer held"));
            }
        }
        return String.join("; ", details);
    }

    /** Every node of the cluster in a pool (its label) at that pool's roll hash, 3 per pool, none cordoned or draining. */
    private boolean atHashes(Map<String, String> hashes) {
        List<Node> nodes = client.nodes().list().getItems();
        Map<String, Integer> perPool = new HashMap<>();
        for (Node node : nodes) {
            Map<String, String> labels = Optional.ofNullable(node.getMetadata().getLabels()).orElse(Map.of());
            Map<String, String> annotations = Optional.ofNullable(node.getMetadata().getAnnotations()).orElse(Map.of());
            String pool = labels.get(NodeMarks.POOL);
            if (pool == null || !hashes.get(pool).equals(annotations.get(NodeMarks.ROLL_HASH))
                    || Boolean.TRUE.equals(node.getSpec().getUnschedulable()) || annotations.containsKey(NodeMarks.DRAIN_STARTED_AT)) {
                return false;
            }
            perPool.merge(pool, 1, Integer::sum);
        }
        return perPool.equals(Map.of("surge", 3, "swap", 3));
    }

    /** Per pool, the machines the machine API lists that are not being deleted. */
    private Map<String, Integer> machinesPerPool() throws IOException, InterruptedException {
        Map<String, Integer> counts = new HashMap<>();
        for (CrashJudge.PoolLimits pool : POOLS) {
            var answer = sandbox.machineApi("GET", "/v1/pools/" + pool.pool() + "/machines", null);
            assertThat(answer.statusCode()).as("listing pool %s: %s", pool.pool(), answer.body()).isEqualTo(200);
            JsonNode machines = JSON.readTree(answer.body()).path("machines");
            counts.put(pool.pool(), (int) StreamSupport.stream(machines.spliterator(), false)
                    .filter(m -> !"deleting".equals(m.path("state").asText())).count());
        }
        return counts;
    }

    /** The seed, the moments and the kills, the violations, and the tails of every log, for a failure message. */
    private String report(long seed, List<Moment> moments, List<Kill> kills, List<String> violations, MachineApiLogs logs) {
        StringBuilder r = new StringBuilder("seed ").append(seed).append(", kill moments ").append(moments).append('\n');
        kills.forEach(k -> r.append("  ").append(k).append('\n'));
        violations.forEach(v -> r.append("VIOLATION ").append(v).append('\n'));
        r.append("--- machine-api-requests.jsonl (tail)\n").append(logs.tail(MachineApiLogs.REQUESTS, 25));
        r.append("\n--- machine-log.jsonl (tail)\n").append(logs.tail(MachineApiLogs.MACHINES, 25));
        List<NodeEvent> events = watch.events();
        r.append("\n--- node events watched (tail)\n").append(events.subList(Math.max(0, events.size() - 25), events.size()).stream()
                .map(NodeEvent::line).collect(Collectors.joining("\n")));
        if (!agents.isEmpty()) {
            try {
                r.append("\n--- the last agent's output (tail)\n").append(agents.get(agents.size() - 1).tail(30));
                r.append("\n--- the sandbox's output (tail)\n").append(tailOf(sandbox.output(), 20));
            } catch (IOException e) {
                r.append("\n(cannot read an output: ").append(e.getMessage()).append(')');
            }
        }
        return r.toString();
    }

    private static String tailOf(String text, int n) {
        List<String> lines = text.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    }

    /** The cluster (window always open) and the two pools at {@code image}. */
    private static Path writeSpec(Path dir, String image) throws IOException {
        CrashSpecs.cluster(dir, CLUSTER, "1631.0.0", "1632.0.0");
        for (CrashJudge.PoolLimits pool : POOLS) {
            Files.writeString(dir.resolve("pools/" + pool.pool() + ".yaml"), """
                    apiVersion: nightshift.dev/v1alpha1
                    kind: WorkerPool
                    metadata: {name: %s, cluster: crash}
                    spec:
                      minimum: %d
                      maximum: 6
                      maxSurge: %d
                      maxUnavailable: %d
                      interval: 0s
                      machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                      machineControllerManager: {maxEvictRetries: 3, creationTimeout: 60s}
                    """.formatted(pool.pool(), pool.count(), pool.maxSurge(), pool.maxUnavailable(), image), StandardCharsets.UTF_8);
        }
        return dir;
    }

    private static Map<String, String> rollHashes(Path spec) {
        LoadResult loaded = new SpecLoader().load(spec);
        assertThat(loaded.errors()).as("the test's spec %s", spec).isEmpty();
        Map<String, String> hashes = new HashMap<>();
        loaded.specs().resolvedPools(CLUSTER).stream().map(DesiredPool::of).forEach(p -> hashes.put(p.name(), p.rollHash().value()));
        return hashes;
    }
}
