package dev.nightshift.sandbox.cli;

import dev.nightshift.agent.command.ExitCodes;
import dev.nightshift.agent.config.AgentConfigLoader;
import dev.nightshift.agent.run.StopSignal;
import dev.nightshift.agent.command.ValidSpecs;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

import dev.nightshift.sandbox.Sandbox;
import dev.nightshift.sandbox.demo.EmbeddedWorld;
import dev.nightshift.sandbox.machineapi.Holds;
import dev.nightshift.sandbox.machineapi.MachineApiCloud;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.SpecSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nightshift sandbox}: the demo's world with the user's specs, and no story. */
@Command(name = "sandbox", mixinStandardHelpOptions = true,
        description = {"Start the demo's world with your own specs, and no story.",
                "An embedded Kubernetes API, a simulated cloud with every pool at its minimum",
                "(stamped with the spec's hashes, or not with --unstamped), a local Git repository",
                "of the spec's files with a clone to push from, and the agent polling it every 2s.",
                "It also serves the machine API (provider http) from a simulated cloud: URL and token file in the banner.",
                "With --no-agent no agent starts, for one in another process: the pools'",
                "machines are the machine API's (nightshift run --provider http), or with",
                "--provider cluster-api MachineDeployments played by embedded Cluster API",
                "controllers (nightshift run --config DIR/agent.yaml, which the sandbox writes).",
                "Without --spec as well, the cluster starts empty.",
                "Runs until Ctrl-C. An invalid spec is listed (file:line) and exits 2 before anything starts."})
public final class SandboxCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--spec", paramLabel = "DIR",
            description = "The spec directory: its files make the repository (required unless --no-agent).")
    private Path specDir;

    @Option(names = "--no-agent", description = "Start no agent: the pools' machines (none without --spec) come from the machine API's"
            + " cloud, for an agent in another process (nightshift run --provider http --machine-api-url URL), or with --provider"
            + " cluster-api are MachineDeployments (nightshift run --config DIR/agent.yaml).")
    private boolean noAgent;

    @Option(names = "--machine-api-pool-label", description = "The machine API's cloud registers every node with the pool's label"
            + " nightshift.dev/pool too, besides the labels asked for, as an adapter that passes the pool to the kubelet's"
            + " --node-labels does (the seeded nodes as well). With --provider http or --no-agent, not --provider cluster-api.")
    private boolean machineApiPoolLabel;

    /**
     * A test hook for crash tests, hidden from --help: hold back the machine API's answers to
     * chosen requests after their work is done, e.g. {@code create:2,replace:1} (the 2nd create
     * and the 1st replace, 60 s each; {@code OP:N:SECONDS} for another time), logged as
     * {@code "phase": "held"} in {@code machine-api-requests.jsonl}, so that a test in another
     * process can kill the agent while its answer is outstanding. See {@link Holds}.
     */
    @Option(names = "--machine-api-hold", hidden = true, paramLabel = "OP:N[:SECONDS],...")
    private String machineApiHold;

    /**
     * For the scale benchmark, hidden from --help: N pods on every node put straight into the API's store (a cluster of
     * 100,000 pods cannot be made through the mock's POSTs in reasonable time), see {@code BulkWorkloads}.
     */
    @Option(names = "--bulk-pods-per-node", hidden = true, defaultValue = "0", paramLabel = "N")
    private int bulkPodsPerNode;

    /** For the scale benchmark, hidden from --help: every request the Kubernetes API answers, as JSON lines in FILE. */
    @Option(names = "--kubernetes-request-log", hidden = true, paramLabel = "FILE")
    private Path kubernetesRequestLog;

    @Option(names = "--cluster", paramLabel = "NAME", description = "The Cluster to manage (default: the spec's only one).")
    private String cluster;

    @Option(names = "--dir", paramLabel = "DIR", description = "Where to keep the repository, clone and kubeconfig (default: a new temporary directory).")
    private Path dir;

    @Option(names = "--http-port", defaultValue = "9400", paramLabel = "PORT",
            description = "The agent's HTTP port (default ${DEFAULT-VALUE}; 0 for any free port).")
    private int httpPort;

    @Option(names = "--pods-per-node", defaultValue = "0", paramLabel = "N",
            description = "Application pods on every node, under a PodDisruptionBudget per pool (default ${DEFAULT-VALUE}).")
    private int podsPerNode;

    @Option(names = "--unstamped", description = "Seed the nodes without Nightshift's hashes, to watch them adopted.")
    private boolean unstamped;

    @Option(names = "--info", paramLabel = "FILE",
            description = "Write apiServer, kubeconfig, repository, clone, agent (base URL), machineApi (base URL),"
                    + " machineApiTokenFile and agentConfig as JSON to FILE once running (repository and clone null without --spec,"
                    + " agent null with --no-agent, agentConfig null but with --no-agent and --spec).")
    private Path info;

    @Option(names = "--agent-config", paramLabel = "FILE",
            description = "An agent-configuration fragment laid over the sandbox's own: its notifications, validation, webhook"
                    + " and dryRun sections (the rest is the sandbox's). With --no-agent it is added to the agent.yaml written.")
    private Path agentConfig;

    @picocli.CommandLine.Mixin
    private HealthOptions healthOptions = new HealthOptions();

    @Option(names = "--provider", paramLabel = "NAME",
            description = "Where the machines come from (default simulated; with --no-agent, http): simulated, cluster-api (a"
                    + " MachineDeployment per pool, played by embedded Cluster API controllers; its nodes are always adopted), or"
                    + " http (the machine API this sandbox serves, which the agent calls over HTTP with its http provider). With"
                    + " --no-agent, http or cluster-api: what the agent in another process runs.")
    private String provider;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        EmbeddedWorld.Machines machines;
        try {
            machines = provider != null ? EmbeddedWorld.Machines.of(provider)
                    : noAgent ? EmbeddedWorld.Machines.HTTP : EmbeddedWorld.Machines.SIMULATED;
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return ExitCodes.USAGE;
        }
        if (bulkPodsPerNode < 0 || (bulkPodsPerNode > 0 && (podsPerNode > 0 || !noAgent || machines == EmbeddedWorld.Machines.CLUSTER_API))) {
            err.println("--bulk-pods-per-node N (N >= 0) goes with --no-agent, without --pods-per-node or --provider cluster-api");
            return ExitCodes.USAGE;
        }
        if (podsPerNode < 0) {
            err.println("--pods-per-node must not be negative, got " + podsPerNode);
            return ExitCodes.USAGE;
        }
        if (noAgent && machines == EmbeddedWorld.Machines.SIMULATED) {
            err.println("--provider simulated needs the sandbox's agent (its machines are Node objects the agent makes); with --no-agent"
                    + " the pools' machines are the machine API's (--provider http, the default) or MachineDeployments (--provider"
                    + " cluster-api)");
            return ExitCodes.USAGE;
        }
        if (specDir == null && !noAgent) {
            err.println("--spec is required: the agent needs specs to act on (only --no-agent starts without them)");
            return ExitCodes.USAGE;
        }
        if (specDir == null && machines == EmbeddedWorld.Machines.CLUSTER_API) {
            err.println("--provider cluster-api makes a MachineDeployment of each of the spec's pools: it needs --spec");
            return ExitCodes.USAGE;
        }
        if (machineApiPoolLabel && machines != EmbeddedWorld.Machines.HTTP) {
            err.println("--machine-api-pool-label concerns the nodes of the machine API's machines: it goes with --provider http or"
                    + " --no-agent, not with --provider " + machines.providerType());
            return ExitCodes.USAGE;
        }
        if (specDir == null && (cluster != null || unstamped || podsPerNode > 0)) {
            err.println("--cluster, --unstamped and --pods-per-node concern the spec's pools: they need --spec");
            return ExitCodes.USAGE;
        }
        Holds holds;
        try {
            holds = Holds.parse(machineApiHold);
        } catch (IllegalArgumentException e) {
            err.println("--machine-api-hold: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        Optional<AgentConfigLoader.Fragment> fragment = Optional.empty();
        if (agentConfig != null) {
            fragment = Optional.of(new AgentConfigLoader().fragment(agentConfig));
            if (!fragment.get().errors().isEmpty()) {
                fragment.get().errors().forEach(err::println);
                return ExitCodes.USAGE;
            }
        }
        Optional<SpecSet> specs = Optional.empty();
        Optional<String> managed = Optional.empty();
        if (specDir != null) {
            specs = ValidSpecs.load(specDir, err);
            if (specs.isEmpty()) {
                return ExitCodes.USAGE;
            }
            managed = clusterToManage(specs.get(), err);
            if (managed.isEmpty()) {
                return ExitCodes.USAGE;
            }
        }
        try (StopSignal stop = new StopSignal(Duration.ofSeconds(30));
             Sandbox sandbox = new Sandbox(new Sandbox.Options(Optional.ofNullable(specDir), managed, Optional.ofNullable(dir), httpPort,
                     podsPerNode, unstamped, Optional.ofNullable(info), machines, !noAgent, holds,
                     new Sandbox.Scale(bulkPodsPerNode, Optional.ofNullable(kubernetesRequestLog)),
                     machineApiPoolLabel ? MachineApiCloud.Registration.WITH_POOL_LABEL : MachineApiCloud.Registration.REQUEST_LABELS,
                     fragment),
                     specs, System.out,
                     Clock.systemUTC(), healthOptions.health())) {
            stop.install();
            sandbox.start();
            stop.await();
            return 0;
        }
    }

    /** The named Cluster, or the spec's only one; otherwise says which there are. */
    private Optional<String> clusterToManage(SpecSet specs, PrintWriter err) {
        List<String> names = specs.clusters().stream().map(ClusterSpec::name).toList();
        if (cluster != null) {
            if (names.contains(cluster)) {
                return Optional.of(cluster);
            }
            err.println("the spec has no Cluster \"" + cluster + "\"; it has: " + String.join(", ", names));
            return Optional.empty();
        }
        if (names.size() == 1) {
            return Optional.of(names.get(0));
        }
        err.println(names.isEmpty() ? "the spec has no Cluster" : "the spec has several Clusters (" + String.join(", ", names)
                + "): name one with --cluster");
        return Optional.empty();
    }
}
