package dev.nightshift.sandbox.demo;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.agent.run.Agent;
import dev.nightshift.spec.load.SpecError;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolReport;

/**
 * {@code nightshift demo}: an embedded Kubernetes API with a simulated cloud behind it, a local
 * Git repository holding the specs, and the real agent between them. The demo commits spec
 * changes as a platform team would and the agent rolls the pools.
 */
public final class Demo implements AutoCloseable {

    /** How the demo runs. */
    public record Options(int httpPort, boolean exitWhenDone, Duration timeout, Optional<Path> dir, EmbeddedWorld.Machines machines,
                          java.util.function.UnaryOperator<dev.nightshift.agent.config.AgentConfig> agentConfig) {

        /** The agent configured as the demo's own ({@code --agent-config} lays a fragment over it). */
        public Options(int httpPort, boolean exitWhenDone, Duration timeout, Optional<Path> dir, EmbeddedWorld.Machines machines) {
            this(httpPort, exitWhenDone, timeout, dir, machines, java.util.function.UnaryOperator.identity());
        }

        /** With the simulated cloud. */
        public Options(int httpPort, boolean exitWhenDone, Duration timeout, Optional<Path> dir) {
            this(httpPort, exitWhenDone, timeout, dir, EmbeddedWorld.Machines.SIMULATED);
        }
    }

    /** The Cluster API story's cluster, pool and MachineDeployment: {@code examples/cluster-api/}. */
    static final String CLUSTER_API_CLUSTER = "capi-demo";
    static final String CLUSTER_API_POOL = "md-0";
    static final String CLUSTER_API_MACHINE_DEPLOYMENT = "capi-demo-md-0";
    /** Files of {@code examples/cluster-api/specs}, the Cluster API story's repository. */
    static final List<String> CLUSTER_API_SPECS = List.of("cluster.yaml", "pools/md-0.yaml");

    /** Nodes per pool at the start. */
    static final Map<String, Integer> POOLS = new LinkedHashMap<>(Map.of("bastion", 1, "batch", 4, "cpu-worker", 3, "gpu-worker", 2));
    /** A cloud that never fails: machines register in 3 s, in-place updates take 3 s. */
    public static final SimulatedMachineProvider.Behaviour RELIABLE_CLOUD = new SimulatedMachineProvider.Behaviour(
            Duration.ofSeconds(3), Duration.ofSeconds(3), Duration.ofSeconds(1), 0, 0);

    /** How waiting for every pool to run a commit ended. */
    private enum Ending { CURRENT, FAILED, TIMED_OUT }

    private final Options options;
    private final PrintStream out;
    private final AgentConfig.Health health;
    private final SimulatedMachineProvider.Behaviour cloudBehaviour;
    private final RolloutWatch watch = new RolloutWatch();
    private final Clock clock = Clock.systemUTC();
    private EmbeddedWorld world;
    private DemoRepository repo;
    private volatile Agent agent;
    private DemoConsole console;

    public Demo(Options options, PrintStream out) {
        this(options, out, RELIABLE_CLOUD);
    }

    /** With the rollout health checks asking the Prometheus {@code health} names ({@code --prometheus-url}). */
    public Demo(Options options, PrintStream out, AgentConfig.Health health) {
        this(options, out, RELIABLE_CLOUD, health);
    }

    /**
     * With a cloud of the caller's choice: tests inject failures through it. Not a command-line
     * option: the demo shows the agent at work, and its failure path is proven by the tests.
     */
    Demo(Options options, PrintStream out, SimulatedMachineProvider.Behaviour cloudBehaviour) {
        this(options, out, cloudBehaviour, AgentConfig.Health.NONE);
    }

    private Demo(Options options, PrintStream out, SimulatedMachineProvider.Behaviour cloudBehaviour, AgentConfig.Health health) {
        this.health = health;
        this.options = options;
        this.out = out;
        this.cloudBehaviour = cloudBehaviour;
    }

    /** Runs the demo; the exit code is 0 when the rollout completed. */
    public int run() throws Exception {
        Path dir = options.dir().orElse(Files.createTempDirectory("nightshift-demo-"));
        console = new DemoConsole(out, Instant.now());
        if (options.machines() == EmbeddedWorld.Machines.CLUSTER_API) {
            return clusterApi(dir);
        }
        world = EmbeddedWorld.start(new EmbeddedWorld.Setup(dir, EmbeddedKubernetes.DEFAULT_GIT_VERSION, DemoRepository.bundledDemo(),
                "demo: the cluster as it is today", "bastion"::equals, cloudBehaviour, options.machines()), clock);
        repo = world.repository();
        DemoWorkloads workloads = world.workloads();
        if (options.machines() == EmbeddedWorld.Machines.HTTP) {
            // The machine API's machines, unstamped and their nodes unlabelled: the agent labels and adopts them.
            POOLS.forEach((pool, count) -> world.seedMachineApi(pool, count, Map.of(), List.of(), Map.of()));
        } else {
            POOLS.forEach((pool, count) -> world.seed(pool, count, Optional.empty(), Optional.empty()));
        }
        workloads.daemonSet(nodes("batch", "cpu-worker", "gpu-worker"));
        // A Deployment, so that the bad-image chapter's workloadsAvailable check has something to follow.
        workloads.deployment("cpu-worker", "web", nodes("cpu-worker"), 2);
        workloads.deploy("batch", "jobs", nodes("batch"), 2);
        workloads.startRescheduling();
        agent = world.startAgent("demo", options.httpPort(), console.andThen(watch), c -> options.agentConfig().apply(c).with(health));
        world.banner(out, "Nightshift demo");
        return story();
    }

    /**
     * The story on Cluster API: {@code examples/cluster-api/} as it is, its MachineDeployment and
     * templates created in the embedded cluster, played by the embedded CAPI controllers.
     */
    private int clusterApi(Path dir) throws Exception {
        world = EmbeddedWorld.start(new EmbeddedWorld.Setup(dir, EmbeddedKubernetes.DEFAULT_GIT_VERSION,
                DemoRepository.bundled("cluster-api/specs", CLUSTER_API_SPECS), "demo: the cluster as it is today", pool -> false,
                cloudBehaviour, EmbeddedWorld.Machines.CLUSTER_API), clock);
        repo = world.repository();
        try (InputStream objects = Demo.class.getResourceAsStream("/examples/cluster-api/machinedeployment.yaml")) {
            if (objects == null) {
                throw new IOException("the jar lacks examples/cluster-api/machinedeployment.yaml");
            }
            world.create(objects);
        }
        List<String> nodes = world.awaitMachineDeployment(CLUSTER_API_MACHINE_DEPLOYMENT, 3);
        world.workloads().deploy(CLUSTER_API_POOL, "web", nodes, 2);
        world.workloads().startRescheduling();
        agent = world.startAgent(CLUSTER_API_CLUSTER, options.httpPort(), console.andThen(watch), c -> options.agentConfig().apply(c).with(health));
        world.banner(out, "Nightshift demo on Cluster API");
        String initial = head();
        console.line("MachineDeployment " + CLUSTER_API_MACHINE_DEPLOYMENT + " runs 3 Machines whose nodes Nightshift has never seen:"
                + " they are labelled for pool " + CLUSTER_API_POOL + " and adopted, not rolled");
        Ending adopted = awaitCurrent(initial);
        if (adopted != Ending.CURRENT) {
            return fail("the nodes were not adopted", initial, adopted);
        }
        String bump = commit("kindest-node 1.31.4 -> 1.31.5: a new DevMachineTemplate, one surge Machine at a time",
                Map.of("pools/md-0.yaml", image("1.31.4", "1.31.5")));
        Ending bumped = awaitCurrent(bump);
        if (bumped != Ending.CURRENT) {
            return fail("the image bump did not complete", bump, bumped);
        }
        console.line("every Machine of " + CLUSTER_API_MACHINE_DEPLOYMENT + " runs kindest-node 1.31.5");
        if (options.exitWhenDone()) {
            return 0;
        }
        // Cluster API has no node updates of its own: the kubelets restart through one privileged Job per node.
        if (failed(commit("Kubernetes patch 1.31.5: kubelets restart through one Job per node (kubectl get jobs -n "
                + EmbeddedWorld.NODE_UPDATES_NAMESPACE + "), no node is drained", Map.of("cluster.yaml",
                t -> t.replace("version: \"1.31.4\"", "version: \"1.31.5\""))), "the Kubernetes patch")) {
            return 1;
        }
        for (int round = 1; ; round++) {
            String images = "[\"busybox:1." + (35 + round) + "\"]";
            if (failed(commit("pre-load busybox 1." + (35 + round) + " (providerConfig.infrastructureTemplate): a new template again",
                    Map.of("pools/md-0.yaml", t -> t.contains("preLoadImages:")
                            ? t.replaceAll("preLoadImages: .*", "preLoadImages: " + images)
                            : t.replaceAll("(?m)^( *)(extraMounts:.*)$", "$1$2\n$1preLoadImages: " + images))), "the template change")) {
                return 1;
            }
        }
    }

    private List<String> nodes(String... pools) {
        return List.of(pools).stream().flatMap(p -> IntStream.rangeClosed(1, POOLS.get(p)).mapToObj(i -> p + "-" + i)).toList();
    }

    private int story() throws Exception {
        String initial = head();
        console.line("the cluster runs 10 nodes in 4 pools that Nightshift has never seen: they are adopted, not rolled");
        Ending adopted = awaitCurrent(initial);
        if (adopted != Ending.CURRENT) {
            return fail("the nodes were not adopted", initial, adopted);
        }
        String bump = commit("bump gardenlinux to 1632.0.0 in every pool", Map.of(
                "pools/bastion.yaml", image("1631.0.0", "1632.0.0"), "pools/batch.yaml", image("1631.0.0", "1632.0.0"),
                "pools/cpu-worker.yaml", image("1631.0.0", "1632.0.0"), "pools/gpu-worker.yaml", image("1631.0.0", "1632.0.0")));
        Ending bumped = awaitCurrent(bump);
        if (bumped != Ending.CURRENT) {
            return fail("the image bump did not complete", bump, bumped);
        }
        console.line("every pool runs gardenlinux 1632.0.0");
        if (options.exitWhenDone()) {
            return 0;
        }
        for (int round = 1; ; round++) {
            int cycle = round;
            if (badImage(cycle % 2 == 1 ? "1632.0.0" : "1633.0.0")) {
                return 1;
            }
            String patch = "1.31." + (4 + cycle);
            if (failed(commit("Kubernetes patch " + patch + ": kubelets restart, no node is drained", Map.of("cluster.yaml",
                    t -> t.replaceAll("version: \"1\\.31\\.[0-9]+\"", "version: \"" + patch + "\""))), "the Kubernetes patch")) {
                return 1;
            }
            if (failed(commit("label cpu-worker nodes tier=frontend-" + cycle, Map.of("pools/cpu-worker.yaml",
                    t -> t.replaceAll("labels: \\{.*}", "labels: {team: web, tier: frontend-" + cycle + "}"))), "the label change")) {
                return 1;
            }
            world.workloads().strictBudget("web");
            console.line("the web PodDisruptionBudget now refuses every eviction");
            String from = cycle % 2 == 1 ? "1632.0.0" : "1633.0.0";
            String to = cycle % 2 == 1 ? "1633.0.0" : "1632.0.0";
            if (failed(commit("cpu-worker to gardenlinux " + to + " (drains meet the strict budget; ForceDelete after 3 refusals)",
                    Map.of("pools/cpu-worker.yaml", image(from, to))), "the cpu-worker image change")) {
                return 1;
            }
            world.workloads().relaxedBudget("web");
            String broken = commit("a broken commit: batch maxSurge: lots", Map.of("pools/batch.yaml",
                    t -> t.replace("maxSurge: \"25%\"", "maxSurge: lots")));
            agent.pollNow();
            waitFor(Duration.ofSeconds(10), () -> !agent.specErrors().isEmpty());
            agent.specErrors().forEach(e -> console.line("  rejected " + broken.substring(0, 8) + ": " + e));
            console.line("the last good spec stays in force; nothing was touched");
            if (failed(commit("fix batch maxSurge", Map.of("pools/batch.yaml", t -> t.replace("maxSurge: lots", "maxSurge: \"25%\""))),
                    "the fix of batch maxSurge")) {
                return 1;
            }
        }
    }

    /** The chapter's bad image: it boots, but the web Deployment's pods on it never become available. */
    static final String BAD_IMAGE = "1634.0.0";
    /**
     * What the bad commit adds to cpu-worker: wave 1 (the canary) soaks 10 s, and web must be back within 3 s of an
     * eviction: the check fails well before a second node may start. The halt comes at the 3 s, so the soak costs nothing.
     */
    static final String CHECKED_ROLLOUT = """
              rollout:
                soak: 10s
                healthChecks:
                - name: web-back
                  workloadsAvailable: {within: 3s}
                onFailure: Halt
            """;

    /**
     * The endless part's first chapter: cpu-worker (at {@code current}) gets an image that breaks the web Deployment,
     * with a check that says so. The real agent replaces the canary, web's evicted pods land on it and never become
     * available, the check fails and the pool halts with that one node touched. A halt is this chapter's expected
     * ending, not the demo's: then {@code git revert} (a new commit clears the halt) and the canary is replaced again.
     * True when the demo must end: the halt never came, or the revert did not complete.
     */
    private boolean badImage(String current) throws Exception {
        java.nio.file.Path file = repo.work().resolve("pools/cpu-worker.yaml");
        String before = Files.readString(file);
        String bad = commit("cpu-worker to gardenlinux " + BAD_IMAGE + ", checked: web must be available again within 3s of an eviction"
                + " (rollout.healthChecks workloadsAvailable)", Map.of("pools/cpu-worker.yaml", t -> image(current, BAD_IMAGE).apply(t)
                + CHECKED_ROLLOUT));
        world.workloads().breakOn("web", rollHash("cpu-worker"));
        console.line("gardenlinux " + BAD_IMAGE + " boots, but web's pods never become available on it: the canary will show it");
        waitFor(options.timeout(), () -> halt("cpu-worker").isPresent() || !failures(bad).isEmpty());
        Optional<String> halt = halt("cpu-worker");
        if (halt.isEmpty()) {
            return fail("cpu-worker was not halted by its check", bad, failures(bad).isEmpty() ? Ending.TIMED_OUT : Ending.FAILED) != 0;
        }
        console.line("cpu-worker HALTED: " + halt.get() + "; only the canary was replaced, nothing new starts"
                + " (nightshift resume cpu-worker or a new commit clears it)");
        String revert = commit("git revert " + bad.substring(0, 8) + ": cpu-worker back to gardenlinux " + current
                + " (a new commit: the halt is cleared and the bad canary replaced)", Map.of("pools/cpu-worker.yaml", t -> before));
        if (failed(revert, "the revert of the bad image")) {
            return true;
        }
        console.line("cpu-worker runs gardenlinux " + current + " on every node again; web is fully available");
        return false;
    }

    /** The roll hash the head of the working clone gives {@code pool}: the demo's world reads no Git, it compares stamps. */
    private String rollHash(String pool) {
        return new dev.nightshift.spec.load.SpecLoader().load(repo.work()).specs().resolvedPools("demo").stream()
                .filter(p -> p.name().equals(pool)).map(p -> dev.nightshift.spec.hash.HashScheme.ROLL.compute(p).value())
                .findFirst().orElseThrow();
    }

    /** Why {@code pool} is halted, in the agent's words, while its latest report says it is. */
    private Optional<String> halt(String pool) {
        ReconcileReport r = console.latest();
        if (r == null || r.plan() == null || r.plan().reports().get(pool) == null
                || r.plan().reports().get(pool).phase() != PoolPhase.HALTED) {
            return Optional.empty();
        }
        return Optional.of(r.plan().reports().get(pool).status().halt().map(dev.nightshift.agent.report.RolloutProgressJson::describe)
                .orElse("its checks failed"));
    }

    /**
     * A step of the endless story: one that is slow only delays the next (as before), but one that
     * failed ends the demo, as nothing after it could complete.
     */
    private boolean failed(String commit, String what) throws InterruptedException {
        Ending ending = awaitCurrent(commit);
        if (ending == Ending.FAILED) {
            fail(what + " did not complete", commit, ending);
            return true;
        }
        return false;
    }

    private static UnaryOperator<String> image(String from, String to) {
        return t -> t.replace("version: " + from + "}", "version: " + to + "}");
    }

    private String head() throws Exception {
        return repo.commit("demo: start", Map.of());
    }

    private String commit(String message, Map<String, UnaryOperator<String>> edits) throws Exception {
        String commit = repo.commit(message, edits);
        console.line("git push " + commit.substring(0, 8) + ": " + message);
        agent.pollNow();
        return commit;
    }

    /**
     * Waits until the agent acts on {@code commit} and every pool runs it, or until the agent reports
     * a failure: then at once, not at the timeout, since no failed rollout finishes by itself.
     */
    private Ending awaitCurrent(String commit) throws InterruptedException {
        waitFor(options.timeout(), () -> !failures(commit).isEmpty() || current(commit));
        // A failure counts even if the pools became current meanwhile: the rollout did not go cleanly.
        if (!failures(commit).isEmpty()) {
            return Ending.FAILED;
        }
        return current(commit) ? Ending.CURRENT : Ending.TIMED_OUT;
    }

    private boolean current(String commit) {
        ReconcileReport r = console.latest();
        if (r == null || r.plan() == null || !commit.equals(r.revision())) {
            return false;
        }
        return r.plan().reports().values().stream().allMatch(p -> p.phase() == PoolPhase.CURRENT && p.outdated() == 0);
    }

    /** What the agent reported failing, and {@code commit} itself when it is invalid (the agent never acts on it). */
    private List<RolloutFailure> failures(String commit) {
        List<RolloutFailure> failures = new ArrayList<>(watch.failures());
        // The commit first: its errors are recorded before it is named, so they are its own.
        boolean polled = agent.latestCommit().filter(commit::equals).isPresent();
        List<SpecError> errors = agent.specErrors();
        if (polled && !errors.isEmpty()) {
            failures.add(new RolloutFailure(RolloutFailure.Reason.SPEC_INVALID, "", "commit " + RolloutFailure.shortCommit(commit)
                    + " has invalid specs and is not applied: " + String.join("; ", errors.stream().map(SpecError::toString).toList())));
        }
        return failures;
    }

    /** The demo's own clock-watching: the agent is event-driven; this only paces the story. */
    private static boolean waitFor(Duration timeout, java.util.function.BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(200);
        }
        return condition.getAsBoolean();
    }

    /** Says why {@code commit} did not reach every pool, and where each pool stands; the exit code, 1. */
    private int fail(String what, String commit, Ending ending) {
        ReconcileReport r = console.latest();
        if (ending == Ending.FAILED) {
            List<RolloutFailure> failures = failures(commit);
            console.line("FAILED: " + what + ": " + failures.get(0).message());
            failures.stream().skip(1).forEach(f -> console.line("  also: " + f.message()));
        } else {
            console.line("FAILED: " + what + " within " + options.timeout().toSeconds() + "s (--timeout)");
        }
        if (r != null && r.plan() != null) {
            for (PoolReport p : r.plan().reports().values()) {
                console.line("  " + p.pool() + ": " + p.phase() + ", " + p.outdated() + " outdated, " + p.failed() + " failed");
            }
        }
        return 1;
    }

    /** The agent's HTTP port once it runs (with {@code --http-port 0} it is chosen then). */
    public Optional<Integer> httpPort() {
        Agent running = agent;
        return running == null ? Optional.empty() : Optional.of(running.httpPort());
    }

    public Optional<EmbeddedKubernetes> cluster() {
        return Optional.ofNullable(world).map(EmbeddedWorld::kubernetes);
    }

    /** The world the demo runs in, once started: its machine API, for one. */
    public Optional<EmbeddedWorld> world() {
        return Optional.ofNullable(world);
    }

    @Override
    public void close() {
        if (world != null) {
            world.close();
        }
    }
}
