package dev.nightshift.agent.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

import dev.nightshift.agent.sandbox.Sandbox;
import dev.nightshift.agent.sandbox.demo.EmbeddedWorld;
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
                "Runs until Ctrl-C. An invalid spec is listed (file:line) and exits 2 before anything starts."})
public final class SandboxCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--spec", required = true, paramLabel = "DIR", description = "The spec directory: its files make the repository.")
    private Path specDir;

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
            description = "Write apiServer, kubeconfig, repository, clone and agent (base URL) as JSON to FILE once running.")
    private Path info;

    @Option(names = "--provider", defaultValue = "simulated", paramLabel = "NAME",
            description = "Where the machines come from (default ${DEFAULT-VALUE}): simulated, or cluster-api (a MachineDeployment"
                    + " per pool, played by embedded Cluster API controllers; its nodes are always adopted).")
    private String provider;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        EmbeddedWorld.Machines machines;
        try {
            machines = EmbeddedWorld.Machines.of(provider);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return Main.EXIT_USAGE;
        }
        if (podsPerNode < 0) {
            err.println("--pods-per-node must not be negative, got " + podsPerNode);
            return Main.EXIT_USAGE;
        }
        Optional<SpecSet> specs = ValidSpecs.load(specDir, err);
        if (specs.isEmpty()) {
            return Main.EXIT_USAGE;
        }
        Optional<String> managed = clusterToManage(specs.get(), err);
        if (managed.isEmpty()) {
            return Main.EXIT_USAGE;
        }
        try (StopSignal stop = new StopSignal(Duration.ofSeconds(30));
             Sandbox sandbox = new Sandbox(new Sandbox.Options(specDir, managed.get(), Optional.ofNullable(dir), httpPort, podsPerNode,
                     unstamped, Optional.ofNullable(info), machines), specs.get(), System.out, Clock.systemUTC())) {
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
