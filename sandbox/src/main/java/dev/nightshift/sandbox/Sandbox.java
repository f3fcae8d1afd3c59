package dev.nightshift.sandbox;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.sandbox.demo.BulkWorkloads;
import dev.nightshift.sandbox.demo.Demo;
import dev.nightshift.sandbox.demo.DemoConsole;
import dev.nightshift.sandbox.demo.DemoRepository;
import dev.nightshift.sandbox.demo.EmbeddedWorld;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.machineapi.Holds;
import dev.nightshift.sandbox.machineapi.MachineApiCloud;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.provider.http.MachineRequest;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.KubernetesVersion;
import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.strategies.model.DesiredPool;

/**
 * {@code nightshift sandbox}: the demo's world with the user's specs and no story. Every pool
 * starts with its {@code minimum} machines, stamped with the spec's current hashes (or unstamped,
 * for adoption to be watched); the rest is up to the user's {@code git push}. The world always
 * serves the machine API too.
 *
 * <p>Without an agent ({@code --no-agent}) the pools' machines are the machine-API cloud's,
 * for an agent with {@code --provider http} (or a user's tooling) in another process, or, with
 * {@link EmbeddedWorld.Machines#CLUSTER_API}, MachineDeployments played by the embedded Cluster API
 * controllers, for an agent with {@code --provider cluster-api}; either way the sandbox writes the
 * agent's configuration file ({@value EmbeddedWorld#AGENT_CONFIG}). Without a spec as well, the
 * cluster starts empty: the Kubernetes API and the machine API only.
 */
public final class Sandbox implements AutoCloseable {

    /**
     * How the sandbox starts.
     *
     * @param spec        the spec directory (or file) whose files make the repository's first commit
     * @param cluster     the Cluster of the spec the agent manages
     * @param dir         where the repository, clone, kubeconfig and Git cache go (empty: a new temporary directory)
     * @param podsPerNode application pods on each node of a pool that has nodes, under a PodDisruptionBudget per pool
     * @param unstamped   seed the nodes without hashes, as a cluster Nightshift has never seen
     * @param info        where to write the world's addresses as JSON
     * @param machines    where the pools' machines are: with an agent, its provider; without one, the machine API's cloud
     *                    ({@link EmbeddedWorld.Machines#HTTP}) or Cluster API ({@link EmbeddedWorld.Machines#CLUSTER_API})
     * @param scale       the scale benchmark's hooks (none by default)
     * @param machineApiRegistration what the machine API's nodes carry when they register: exactly the request's labels,
     *                    or the pool's label too ({@link MachineApiCloud.Registration#WITH_POOL_LABEL}), only where the
     *                    pools' machines are the machine API's
     */
    public record Options(Optional<Path> spec, Optional<String> cluster, Optional<Path> dir, int httpPort, int podsPerNode,
                          boolean unstamped, Optional<Path> info, EmbeddedWorld.Machines machines, boolean agent, Holds machineApiHolds,
                          Scale scale, MachineApiCloud.Registration machineApiRegistration,
                          Optional<dev.nightshift.agent.config.AgentConfigLoader.Fragment> agentConfig) {

        /** Without an agent-configuration fragment. */
        public Options(Optional<Path> spec, Optional<String> cluster, Optional<Path> dir, int httpPort, int podsPerNode,
                       boolean unstamped, Optional<Path> info, EmbeddedWorld.Machines machines, boolean agent, Holds machineApiHolds,
                       Scale scale, MachineApiCloud.Registration machineApiRegistration) {
            this(spec, cluster, dir, httpPort, podsPerNode, unstamped, info, machines, agent, machineApiHolds, scale,
                    machineApiRegistration, Optional.empty());
        }

        public Options {
            if (podsPerNode < 0) {
                throw new IllegalArgumentException("podsPerNode must not be negative");
            }
            if (podsPerNode > 0 && scale.podsPerNode() > 0) {
                throw new IllegalArgumentException("pods come either through the API with a scheduler, or straight into the store");
            }
            if (spec.isPresent() != cluster.isPresent()) {
                throw new IllegalArgumentException("a spec comes with the Cluster to manage, and no Cluster without a spec");
            }
            if (agent && spec.isEmpty()) {
                throw new IllegalArgumentException("the agent needs a spec");
            }
            if (!agent && machines == EmbeddedWorld.Machines.SIMULATED) {
                throw new IllegalArgumentException("the simulated cloud's machines are made by the sandbox's agent: without one, the"
                        + " pools' machines are the machine API's or Cluster API's");
            }
            if (!agent && machines == EmbeddedWorld.Machines.CLUSTER_API && spec.isEmpty()) {
                throw new IllegalArgumentException("Cluster API's MachineDeployments are seeded from the spec's pools: there is no spec");
            }
            if (machineApiRegistration == MachineApiCloud.Registration.WITH_POOL_LABEL && machines != EmbeddedWorld.Machines.HTTP) {
                throw new IllegalArgumentException("the machine API's nodes carry the pool label only where the pools' machines are"
                        + " the machine API's, not " + machines.providerType() + "'s");
            }
        }

        /** Its machine API's nodes registering with exactly the request's labels. */
        public Options(Optional<Path> spec, Optional<String> cluster, Optional<Path> dir, int httpPort, int podsPerNode,
                       boolean unstamped, Optional<Path> info, EmbeddedWorld.Machines machines, boolean agent, Holds machineApiHolds,
                       Scale scale) {
            this(spec, cluster, dir, httpPort, podsPerNode, unstamped, info, machines, agent, machineApiHolds, scale,
                    MachineApiCloud.Registration.REQUEST_LABELS);
        }

        /** With an agent, holding no machine API answer. */
        public Options(Path spec, String cluster, Optional<Path> dir, int httpPort, int podsPerNode, boolean unstamped,
                       Optional<Path> info, EmbeddedWorld.Machines machines) {
            this(Optional.of(spec), Optional.of(cluster), dir, httpPort, podsPerNode, unstamped, info, machines, true, Holds.none(),
                    Scale.NONE);
        }

        /** With the simulated cloud. */
        public Options(Path spec, String cluster, Optional<Path> dir, int httpPort, int podsPerNode, boolean unstamped,
                       Optional<Path> info) {
            this(spec, cluster, dir, httpPort, podsPerNode, unstamped, info, EmbeddedWorld.Machines.SIMULATED);
        }
    }

    /**
     * Hooks for the scale benchmark (hidden options of {@code sandbox}).
     *
     * @param podsPerNode pods on every node of a pool put straight into the store ({@link BulkWorkloads}), 0 for none
     * @param requestLog  where the Kubernetes API also writes every request it answers, as JSON lines
     */
    public record Scale(int podsPerNode, Optional<Path> requestLog) {

        public static final Scale NONE = new Scale(0, Optional.empty());

        public Scale {
            if (podsPerNode < 0) {
                throw new IllegalArgumentException("podsPerNode must not be negative");
            }
        }
    }

    private final Options options;
    private final Optional<SpecSet> specs;
    private final PrintStream out;
    private final Clock clock;
    private final AgentConfig.Health health;
    private EmbeddedWorld world;

    /** {@code specs}: the valid specs loaded from {@code options.spec()}, holding {@code options.cluster()}; none without a spec. */
    public Sandbox(Options options, Optional<SpecSet> specs, PrintStream out, Clock clock) {
        this(options, specs, out, clock, AgentConfig.Health.NONE);
    }

    /** @param health the Prometheus the rollout health checks ask ({@code --prometheus-url}), for its agent or the one it configures */
    public Sandbox(Options options, Optional<SpecSet> specs, PrintStream out, Clock clock, AgentConfig.Health health) {
        this.health = health;
        if (specs.isPresent() != options.spec().isPresent()) {
            throw new IllegalArgumentException("specs are loaded from the spec, and only from it");
        }
        this.options = options;
        this.specs = specs;
        this.out = out;
        this.clock = clock;
    }

    /** Starts the world, seeds it, starts the agent, prints the banner and writes the info file; returns the addresses. */
    /** The {@code --agent-config} fragment laid over the sandbox's own configuration; none: as it is. */
    /** {@code overlay}, then the health checks' Prometheus ({@code --prometheus-url}) on top. */
    private java.util.function.UnaryOperator<AgentConfig> withHealth(java.util.function.UnaryOperator<AgentConfig> overlay) {
        return c -> overlay.apply(c).with(health);
    }

    private java.util.function.UnaryOperator<dev.nightshift.agent.config.AgentConfig> overlay() {
        return options.agentConfig().flatMap(dev.nightshift.agent.config.AgentConfigLoader.Fragment::overlay)
                .orElse(java.util.function.UnaryOperator.identity());
    }

    public EmbeddedWorld.Facts start() throws Exception {
        if (specs.isEmpty()) {
            return startEmpty();
        }
        Path specDir = options.spec().orElseThrow();
        ClusterSpec cluster = specs.get().cluster(options.cluster().orElseThrow()).orElseThrow(
                () -> new IllegalArgumentException("the spec has no Cluster " + options.cluster().orElseThrow()));
        List<DesiredPool> pools = specs.get().resolvedPools(cluster.name()).stream().map(DesiredPool::of).toList();
        // A bastion's machines never register as nodes; the role decides, as it does for the planner.
        Set<String> bastions = pools.stream().filter(p -> p.spec().pool().role() == PoolRole.BASTION)
                .map(DesiredPool::name).collect(Collectors.toSet());
        Path dir = options.dir().orElse(Files.createTempDirectory("nightshift-sandbox-"));
        world = EmbeddedWorld.start(new EmbeddedWorld.Setup(dir, "v" + apiServerVersion(cluster, pools),
                DemoRepository.filesOf(specDir), "sandbox: the specs of " + specDir.toAbsolutePath().normalize(),
                bastions::contains, Demo.RELIABLE_CLOUD, options.machines(), options.machineApiHolds(),
                options.machineApiRegistration()), clock);
        options.scale().requestLog().ifPresent(world.kubernetes()::writeRequestsTo);
        boolean clusterApi = options.machines() == EmbeddedWorld.Machines.CLUSTER_API;
        if (clusterApi && !bastions.isEmpty()) {
            throw new IllegalArgumentException("with --provider cluster-api every pool is a MachineDeployment whose machines become"
                    + " nodes; bastion pools (" + String.join(", ", bastions) + ") have no place in it");
        }
        if (!options.agent()) {
            return startWithoutAgent(cluster, pools, bastions);
        }
        if (options.machines() == EmbeddedWorld.Machines.HTTP) {
            seedMachineApi(pools, bastions);
            world.startAgent(cluster.name(), options.httpPort(), new DemoConsole(out, clock.instant()), withHealth(overlay()));
            world.banner(out, "Nightshift sandbox: cluster " + cluster.name() + " from " + specDir);
            return announced();
        }
        for (DesiredPool pool : pools) {
            // Cluster API's machines come without Nightshift's marks: they are labelled and adopted.
            List<String> nodes = clusterApi ? seedMachineDeployment(cluster, pool)
                    : world.seed(pool.name(), pool.spec().pool().minimum(),
                            options.unstamped() ? Optional.empty() : Optional.of(pool.rollHash()),
                            options.unstamped() ? Optional.empty() : Optional.of(pool.kubeletHash()));
            deployPods(pool, nodes, bastions);
        }
        if (options.podsPerNode() > 0) {
            world.workloads().startRescheduling();
        }
        world.startAgent(cluster.name(), options.httpPort(), new DemoConsole(out, clock.instant()), withHealth(overlay()));
        world.banner(out, "Nightshift sandbox: cluster " + cluster.name() + " from " + specDir);
        return announced();
    }

    /**
     * No agent: every pool (but bastions, whose machines never register, which the machine-API
     * cloud does not play) gets its {@code minimum} machines from the machine-API cloud, their
     * nodes registered with the pool's spec labels and taints but not {@link DesiredPool#POOL_LABEL}
     * (the agent labels the nodes of its machines once they register; unless the cloud labels them
     * itself, {@link MachineApiCloud.Registration#WITH_POOL_LABEL}), the hashes on the machine
     * records unless unstamped. With Cluster API, every pool is instead a MachineDeployment of
     * {@code minimum} Machines, as with the agent. Then the agent's configuration file is written,
     * for {@code nightshift run --config} in another process.
     */
    private EmbeddedWorld.Facts startWithoutAgent(ClusterSpec cluster, List<DesiredPool> pools, Set<String> bastions)
            throws Exception {
        boolean clusterApi = options.machines() == EmbeddedWorld.Machines.CLUSTER_API;
        if (clusterApi) {
            for (DesiredPool pool : pools) {
                deployPods(pool, seedMachineDeployment(cluster, pool), bastions);
            }
            if (options.podsPerNode() > 0) {
                world.workloads().startRescheduling();
            }
        } else {
            seedMachineApi(pools, bastions);
        }
        world.writeAgentConfig(cluster.name(), options.agentConfig().map(dev.nightshift.agent.config.AgentConfigLoader.Fragment::text), health);
        world.bannerWithoutAgent(out, "Nightshift sandbox without an agent: cluster " + cluster.name() + " from "
                + options.spec().orElseThrow() + (clusterApi ? " on Cluster API" : ""), Optional.of(cluster.name()));
        return announced();
    }

    /** The pool as a MachineDeployment of its {@code minimum} Machines, once every one has a Ready node; returns the nodes. */
    private List<String> seedMachineDeployment(ClusterSpec cluster, DesiredPool pool) throws InterruptedException {
        return world.seedMachineDeployment(cluster.name(), pool.name(), pool.spec().pool().minimum(), pool.spec().fullVersion());
    }

    /** {@code --pods-per-node} application pods on each of the pool's nodes, under the pool's budget. */
    private void deployPods(DesiredPool pool, List<String> nodes, Set<String> bastions) {
        if (options.podsPerNode() > 0 && !bastions.contains(pool.name()) && !nodes.isEmpty()) {
            world.workloads().deploy(pool.name(), pool.name(), nodes, options.podsPerNode());
        }
    }

    /**
     * Every pool gets its {@code minimum} machines from the machine-API cloud: nodes registered with the pool's spec
     * labels and taints but not the pool label, the hashes on the machine records unless unstamped; a bastion's
     * machines run and never register.
     */
    private void seedMachineApi(List<DesiredPool> pools, Set<String> bastions) {
        Map<String, List<String>> bulk = new java.util.LinkedHashMap<>();
        for (DesiredPool pool : pools) {
            Map<String, String> hashes = options.unstamped() ? Map.of() : NodeMarks.hashes(pool.rollHash(), pool.kubeletHash());
            List<MachineRequest.Taint> taints = pool.spec().pool().taints().stream()
                    .map(t -> new MachineRequest.Taint(t.key(), t.value(), t.effect().name())).toList();
            List<String> nodes = world.seedMachineApi(pool.name(), pool.spec().pool().minimum(), pool.spec().pool().labels(), taints,
                    hashes);
            if (options.podsPerNode() > 0 && !bastions.contains(pool.name()) && !nodes.isEmpty()) {
                world.workloads().deploy(pool.name(), pool.name(), nodes, options.podsPerNode());
            }
            if (options.scale().podsPerNode() > 0 && !bastions.contains(pool.name()) && !nodes.isEmpty()) {
                bulk.put(pool.name(), nodes);
            }
        }
        // After every node: the nodes register through the API, whose store is slower the more it holds.
        bulk.forEach((pool, nodes) -> new BulkWorkloads(world.kubernetes()).deploy(pool, nodes, options.scale().podsPerNode()));
        if (options.podsPerNode() > 0) {
            world.workloads().startRescheduling();
        }
    }

    /** No spec, no agent: the Kubernetes API and the machine API, empty. */
    private EmbeddedWorld.Facts startEmpty() throws java.io.IOException {
        Path dir = options.dir().orElse(Files.createTempDirectory("nightshift-sandbox-"));
        world = EmbeddedWorld.startWithoutRepository(dir, EmbeddedKubernetes.DEFAULT_GIT_VERSION, options.machineApiHolds(),
                options.machineApiRegistration(), clock);
        world.bannerWithoutAgent(out, "Nightshift sandbox without an agent: an empty cluster (no spec repository)", Optional.empty());
        return announced();
    }

    /** Flushes the banner and writes the info file. */
    private EmbeddedWorld.Facts announced() throws java.io.IOException {
        out.flush();
        EmbeddedWorld.Facts facts = world.facts();
        if (options.info().isPresent()) {
            writeAtomically(options.info().get(), facts.json());
        }
        return facts;
    }

    /**
     * The newest Kubernetes version the spec asks for: the API server is as new as the spec, so
     * the agent's version guard holds nothing at the start (a later minor bump is held, as on a
     * cluster whose control plane was not upgraded first).
     */
    private static KubernetesVersion apiServerVersion(ClusterSpec cluster, List<DesiredPool> pools) {
        return pools.stream().map(p -> p.spec().kubernetesVersion())
                .max(Comparator.naturalOrder()).filter(v -> v.compareTo(cluster.kubernetesVersion()) > 0)
                .orElse(cluster.kubernetesVersion());
    }

    /** Whoever waits for the file reads it whole or not at all. */
    private static void writeAtomically(Path file, String text) throws java.io.IOException {
        Path absolute = file.toAbsolutePath();
        Files.createDirectories(absolute.getParent());
        Path partial = absolute.resolveSibling(absolute.getFileName() + ".partial");
        Files.writeString(partial, text, StandardCharsets.UTF_8);
        Files.move(partial, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Override
    public void close() {
        if (world != null) {
            world.close();
        }
    }
}
