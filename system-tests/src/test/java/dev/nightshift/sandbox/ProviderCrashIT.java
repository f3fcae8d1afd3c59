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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.strategies.model.DesiredPool;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * Issue 24's cases 1 and 2 end to end through the jar, with the agent killed with SIGKILL mid-rollout: the world is
 * {@code nightshift sandbox --no-agent} in one process, the agent {@code nightshift run} in another, an image bump is
 * pushed with {@code git} over application pods on every node under a PodDisruptionBudget ({@code --pods-per-node 1}),
 * the agent is killed once at a moment the world saw (never a timed sleep) and started again.
 * <ol>
 *   <li>Cluster API ({@code --provider cluster-api}, the agent from the configuration file the sandbox wrote): a pool of
 *       8, {@code maxSurge: 25%}, {@code maxUnavailable: 25%} (2 and 2), killed the instant a Machine first starts to
 *       leave (the MachineDeployment's replicas lowered, or a Machine deleted), as the test's watch of the Machines and
 *       MachineDeployments sees it. Before the fix, lowering and raising the replicas in one reconcile left 9 replicas, 9
 *       Machines, one marked {@code delete-machine}, and Cluster API with nothing to do.</li>
 *   <li>The {@code http} provider against a cloud that puts {@code nightshift.dev/pool} on every node it registers
 *       ({@code --machine-api-pool-label}): a pool of 6, {@code maxSurge: 3}, {@code maxUnavailable: 2}, killed while the
 *       machine API holds back its answer to the third create (the last surge machine made, the agent never told), the
 *       new agent started from the configuration file on the first one's Git cache. Before the fix the surge machines'
 *       nodes were adopted, the partnership lost, and the pool stuck at 9 machines.</li>
 * </ol>
 * Judged from the world's records, never from the agent: the API server's objects as the test's watches saw every
 * change (nodes; Machines and MachineDeployments), and the machine API's machine and request logs. The rollout ends
 * within {@link #ROLLOUT} of the push with exactly the spec's count of machines and nodes, all at the new roll hash, none
 * cordoned; on the way never more than count + maxSurge machines (Machine objects until gone; machine-API machines not
 * being deleted), never fewer than count − maxUnavailable nodes Ready and not cordoned, no node cordoned or its drain
 * started twice ({@link CrashJudge}; with the machine API also one machine per idempotency key and one replacement per
 * replaced machine).
 */
class ProviderCrashIT {

    private static final String CLUSTER = "issue24";
    private static final String OLD_IMAGE = "1631.0.0";
    private static final String NEW_IMAGE = "1632.0.0";
    /** From the push to the end of the rollout, kill and restart included: generous, so that only a stall fails. */
    private static final Duration ROLLOUT = Duration.ofSeconds(240);
    /** How long the machine API holds back the answer to the create the agent is killed at: longer than a new agent takes. */
    private static final Duration HOLD = Duration.ofSeconds(15);

    @TempDir
    Path tmp;

    private final List<AgentProcess> agents = new ArrayList<>();
    private SandboxProcess sandbox;
    private KubernetesClient client;
    private ClusterWatch nodes;
    private ClusterApiWatch clusterApi;
    private RolledOutPool world;

    @AfterEach
    void stopEverything() {
        // Whatever failed: no agent or sandbox process outlives the test.
        agents.forEach(AgentProcess::close);
        if (clusterApi != null) {
            clusterApi.close();
        }
        if (nodes != null) {
            nodes.close();
        }
        if (client != null) {
            client.close();
        }
        if (sandbox != null) {
            sandbox.close();
        }
    }

    @Test
    void clusterApiPoolOfEightAtTwentyFivePercentEndsAtEightMachinesWithTheAgentKilledAsTheFirstMachineStartsToLeave()
            throws Exception {
        Instant started = Instant.now();
        CrashJudge.PoolLimits limits = new CrashJudge.PoolLimits("workers", 8, 2, 2);
        String md = CLUSTER + "-" + limits.pool();
        Path spec = writeSpec(tmp.resolve("spec-old"), limits.pool(), 8, "\"25%\"", "\"25%\"", OLD_IMAGE);
        String oldHash = rollHash(spec, limits.pool());
        String newHash = rollHash(writeSpec(tmp.resolve("spec-new"), limits.pool(), 8, "\"25%\"", "\"25%\"", NEW_IMAGE), limits.pool());

        sandbox = SandboxProcess.start(tmp.resolve("run"), spec, "--no-agent", "--provider", "cluster-api", "--pods-per-node", "1");
        assertThat(sandbox.output()).as("the banner's command for the agent").contains("run --config " + sandbox.info().agentConfig()
                + " --kubeconfig " + sandbox.info().kubeconfig()).doesNotContain("--provider http");
        watch();
        clusterApi = new ClusterApiWatch(client, "default", Clock.systemUTC());
        AgentProcess first = startAgent(() -> AgentProcess.startWithConfig(sandbox.info(), screen()));
        await("the agent labels the 8 Machines' nodes with the pool and stamps them (adopted)").atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200)).failFast("the agent exited", first::endedByItself)
                .until(() -> world.allAt(limits.pool(), 8, oldHash));
        AtomicReference<String> leaving = new AtomicReference<>();
        clusterApi.whenAMachineStartsToLeave(what -> {
            first.sigkill();
            leaving.set(what);
        });

        Instant pushed = push(limits.pool());
        awaitOrReport("a Machine starts to leave", () -> leaving.get() != null, first, limits, Optional.empty());
        first.kill();
        String kill = "SIGKILL to agent " + first.pid() + " " + Duration.between(pushed, Instant.now()).toMillis()
                + " ms after the push, as " + leaving.get();
        AgentProcess second = startAgent(() -> AgentProcess.startWithConfig(sandbox.info(), screen()));

        awaitRolledOut(pushed, second, limits, Optional.empty(), kill, () -> world.assertClusterApi(limits, md, newHash));
        Duration rollout = Duration.between(pushed, Instant.now());
        second.kill();

        List<String> violations = new ArrayList<>();
        ClusterApiWatch.Peak peak = clusterApi.peak(md);
        if (peak.machines() > limits.count() + limits.maxSurge()) {
            violations.add(md + " had " + peak.machines() + " Machines (at most " + (limits.count() + limits.maxSurge())
                    + ") after watched event " + peak.at() + ": " + peak.names());
        }
        // Not vacuous: the watches saw the surge and the drains they judge.
        assertThat(peak.machines()).as("the most Machines at once: the surge was seen").isGreaterThan(limits.count());
        assertThat(nodes.drainOrder()).as("the nodes whose drain the watch saw start").hasSizeGreaterThanOrEqualTo(limits.count());
        CrashJudge judge = new CrashJudge(List.of(limits));
        violations.addAll(judge.nodesDrainedTwice(nodes.events()));
        violations.addAll(judge.availableBelowLimit(nodes.events(), clusterApi.nodesOfMachines(md, limits.pool())));
        assertThat(violations).as(report(kill, violations, Optional.empty())).isEmpty();
        System.out.printf("ProviderCrashIT cluster-api: %s; rollout %d s after the push, %d s in all%n", kill, rollout.toSeconds(),
                Duration.between(started, Instant.now()).toSeconds());
    }

    @Test
    void poolLabellingAdapterPoolOfSixWithSurgeThreeEndsAtSixMachinesWithTheAgentKilledAtTheThirdCreate() throws Exception {
        Instant started = Instant.now();
        CrashJudge.PoolLimits limits = new CrashJudge.PoolLimits("web", 6, 3, 2);
        Path spec = writeSpec(tmp.resolve("spec-old"), limits.pool(), 6, "3", "2", OLD_IMAGE);
        String newHash = rollHash(writeSpec(tmp.resolve("spec-new"), limits.pool(), 6, "3", "2", NEW_IMAGE), limits.pool());

        sandbox = SandboxProcess.start(tmp.resolve("run"), spec, "--no-agent", "--machine-api-pool-label", "--pods-per-node", "1",
                "--machine-api-hold", "create:3:" + HOLD.toSeconds());
        MachineApiLogs logs = new MachineApiLogs(sandbox.info().kubeconfig().getParent());
        assertThat(sandbox.output()).as("the banner's commands for the agent").contains("--provider http",
                "run --config " + sandbox.info().agentConfig() + " --kubeconfig " + sandbox.info().kubeconfig());
        watch();
        // The first agent as the banner's first command says (flags), its Git cache where the configuration file puts it.
        Path cache = sandbox.info().kubeconfig().resolveSibling("agent-cache");
        AgentProcess first = startAgent(() -> AgentProcess.start(sandbox.info(), CLUSTER, cache, screen()));
        String initial = sandbox.git("rev-parse", "HEAD").strip();
        await("the agent accepts the first commit for the pool, whose 6 nodes the cloud labelled").atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200)).failFast("the agent exited", first::endedByItself)
                .until(() -> world.nodes(limits.pool()).size() == 6 && initial.equals(world.acceptedCommit(limits.pool())));

        Instant pushed = push(limits.pool());
        awaitOrReport("the third create done by the cloud, its answer held", () -> logs.requests().stream().anyMatch(
                r -> "createMachine".equals(r.operation()) && r.ordinal() == 3 && "held".equals(r.phase())), first, limits,
                Optional.of(logs));
        first.kill();
        String made = logs.requests().stream().filter(r -> "createMachine".equals(r.operation()) && r.ordinal() == 3)
                .map(MachineApiLogs.Request::machine).filter(m -> m != null).findFirst().orElse("?");
        String kill = "SIGKILL to agent " + first.pid() + " " + Duration.between(pushed, Instant.now()).toMillis()
                + " ms after the push, the third create (machine " + made + ") done and its answer held";
        AgentProcess second = startAgent(() -> AgentProcess.startWithConfig(sandbox.info(), screen()));

        awaitRolledOut(pushed, second, limits, Optional.of(logs), kill, () -> world.assertMachineApi(limits, newHash));
        Duration rollout = Duration.between(pushed, Instant.now());
        second.kill();

        List<String> violations = new CrashJudge(List.of(limits)).violations(logs.requests(), logs.machines(), nodes.events());
        assertThat(violations).as(report(kill, violations, Optional.of(logs))).isEmpty();
        // Not vacuous: the logs and the watch hold the surge and the drains they judge.
        assertThat(logs.machines()).as("machines the cloud created").filteredOn(m -> m.event().equals("created"))
                .hasSizeGreaterThanOrEqualTo(limits.count());
        assertThat(nodes.drainOrder()).as("the nodes whose drain the watch saw start").hasSizeGreaterThanOrEqualTo(limits.count());
        System.out.printf("ProviderCrashIT http, pool-labelling cloud: %s; rollout %d s after the push, %d s in all%n", kill,
                rollout.toSeconds(), Duration.between(started, Instant.now()).toSeconds());
    }

    // ---- the run --------------------------------------------------------------------------------------------------

    private interface Start {
        AgentProcess start() throws IOException;
    }

    private interface Check {
        void check() throws Exception;
    }

    private AgentProcess startAgent(Start start) throws IOException {
        AgentProcess agent = start.start();
        agents.add(agent);
        return agent;
    }

    private Path screen() {
        return tmp.resolve("agent-" + (agents.size() + 1) + ".out");
    }

    /** A client of the sandbox's API server, and the test's watch of its nodes (and pods). */
    private void watch() throws IOException {
        client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(
                Files.readString(sandbox.info().kubeconfig(), StandardCharsets.UTF_8))).build();
        nodes = new ClusterWatch(client, Clock.systemUTC());
        world = new RolledOutPool(client, sandbox);
    }

    /** Bumps the pool's image in the sandbox's clone and pushes it with {@code git}; returns when. */
    private Instant push(String pool) throws IOException, InterruptedException {
        Path file = sandbox.info().workingClone().resolve("pools/" + pool + ".yaml");
        Files.writeString(file, Files.readString(file, StandardCharsets.UTF_8).replace(OLD_IMAGE, NEW_IMAGE), StandardCharsets.UTF_8);
        sandbox.commitAndPush(pool + " to gardenlinux " + NEW_IMAGE);
        return Instant.now();
    }

    private void awaitOrReport(String moment, java.util.concurrent.Callable<Boolean> reached, AgentProcess agent,
                               CrashJudge.PoolLimits limits, Optional<MachineApiLogs> logs) {
        try {
            await(moment).atMost(ROLLOUT).pollInterval(Duration.ofMillis(50)).failFast("the agent exited by itself", agent::endedByItself)
                    .until(reached);
        } catch (RuntimeException timedOutOrExited) {
            throw new AssertionError(timedOutOrExited.getMessage() + "\n" + report("no kill yet (" + limits + ")", List.of(), logs),
                    timedOutOrExited);
        }
    }

    /** Waits for the end state within {@link #ROLLOUT} of the push; on a stall, says what the world looks like. */
    private void awaitRolledOut(Instant pushed, AgentProcess agent, CrashJudge.PoolLimits limits, Optional<MachineApiLogs> logs,
                                String kill, Check end) {
        Duration left = ROLLOUT.minus(Duration.between(pushed, Instant.now()));
        try {
            await("the rollout ends at " + limits.count() + " machines at the new hash, within " + ROLLOUT.toSeconds() + " s of the push")
                    .atMost(left.isNegative() ? Duration.ofSeconds(1) : left).pollInterval(Duration.ofMillis(500))
                    .failFast("the agent exited by itself", agent::endedByItself).untilAsserted(end::check);
        } catch (RuntimeException | AssertionError stalled) {
            throw new AssertionError(stalled.getMessage() + "\n" + report(kill, List.of(), logs), stalled);
        }
    }

    // ---- what the world holds -------------------------------------------------------------------------------------

    /** The kill, the violations, and the tails of what the world recorded and the processes printed, for a failure message. */
    private String report(String kill, List<String> violations, Optional<MachineApiLogs> logs) {
        StringBuilder r = new StringBuilder(kill).append('\n');
        violations.forEach(v -> r.append("VIOLATION ").append(v).append('\n'));
        if (clusterApi != null) {
            r.append("--- Machines and MachineDeployments watched (tail)\n").append(clusterApi.tail(40)).append('\n');
        }
        logs.ifPresent(l -> r.append("--- machine-api-requests.jsonl (tail)\n").append(l.tail(MachineApiLogs.REQUESTS, 25))
                .append("\n--- machine-log.jsonl (tail)\n").append(l.tail(MachineApiLogs.MACHINES, 25)).append('\n'));
        CrashOutputs.appendTails(r, nodes, agents, sandbox);
        return r.toString();
    }

    // ---- the specs ------------------------------------------------------------------------------------------------

    /** The cluster (window always open) and one pool of {@code count} at {@code image}, with the limits as written. */
    private static Path writeSpec(Path dir, String pool, int count, String maxSurge, String maxUnavailable, String image)
            throws IOException {
        return CrashSpecs.onePool(dir, CLUSTER, pool, count, maxSurge, maxUnavailable, image, "1631.0.0", "1632.0.0");
    }

    private static String rollHash(Path spec, String pool) {
        LoadResult loaded = new SpecLoader().load(spec);
        assertThat(loaded.errors()).as("the test's spec %s", spec).isEmpty();
        Map<String, String> hashes = loaded.specs().resolvedPools(CLUSTER).stream().map(DesiredPool::of)
                .collect(Collectors.toMap(DesiredPool::name, p -> p.rollHash().value()));
        return hashes.get(pool);
    }
}
