package dev.nightshift.cli;

import dev.nightshift.agent.command.ValidSpecs;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.sim.Faults;
import dev.nightshift.strategies.sim.FleetSimulation;
import dev.nightshift.strategies.sim.FleetSimulator;
import dev.nightshift.strategies.sim.SimulationResult;
import dev.nightshift.strategies.sim.SimulationSetup;
import dev.nightshift.strategies.sim.Simulator;
import dev.nightshift.strategies.sim.TimelineEvent;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nightshift simulate}: updates a simulated pool of N outdated nodes with the pool's strategy
 * and the real planner, on a virtual clock. Exit 0 when every node ends current, 1 when the update
 * cannot finish, 2 for an invalid spec or usage.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = {"Simulate updating a pool of N outdated nodes with its update strategy.",
                "Exit codes: 0 every node current, 1 the update cannot finish, 2 invalid spec or usage."})
public final class SimulateCommand implements Callable<Integer> {

    public static final int EXIT_UNFINISHED = 1;

    @Spec
    private CommandSpec spec;

    @Option(names = "--spec", required = true, paramLabel = "DIR", description = "Spec file or directory.")
    private Path specPath;

    @Option(names = "--pool", paramLabel = "NAME", description = "The pool to update (required without --fleet).")
    private String pool;

    @Option(names = "--cluster", paramLabel = "NAME", description = "The pool's cluster, when several clusters have a pool of that name.")
    private String cluster;

    @Option(names = "--nodes", paramLabel = "N", description = "Outdated nodes at the start (minimum/maximum are not applied; required without --fleet).")
    private Integer nodes;

    @Option(names = "--fleet", description = "Simulate every pool of the cluster together: turns, roles, after and the cluster's budget.")
    private boolean fleet;

    @Option(names = "--nodes-per-pool", paramLabel = "N", description = "With --fleet: outdated nodes of every pool (default: each pool's minimum, at least 1).")
    private Integer nodesPerPool;

    @Option(names = "--create-seconds", defaultValue = "120", paramLabel = "C",
            description = "From CREATE until the new node is Ready; also an in-place update's duration (default ${DEFAULT-VALUE}).")
    private double createSeconds;

    @Option(names = "--drain-seconds", defaultValue = "30", paramLabel = "D", description = "To drain one node (default ${DEFAULT-VALUE}).")
    private double drainSeconds;

    @Option(names = "--seed", defaultValue = "1", paramLabel = "S", description = "Seed for the fault and jitter draws (default ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--jitter", defaultValue = "0", paramLabel = "P", description = "Creation takes up to this share longer, drawn per machine.")
    private double jitter;

    @Option(names = "--fail-create", defaultValue = "0", paramLabel = "P", description = "Probability that a new machine never registers.")
    private double failCreate;

    @Option(names = "--never-ready", defaultValue = "0", paramLabel = "P", description = "Probability that a new node never becomes Ready.")
    private double neverReady;

    @Option(names = "--pdb-blocked", defaultValue = "0", paramLabel = "P", description = "Probability that a drain meets a budget that refuses every eviction.")
    private double pdbBlocked;

    @Option(names = "--fail-in-place", defaultValue = "0", paramLabel = "P", description = "Probability that an in-place update fails.")
    private double failInPlace;

    @Option(names = "--crash", defaultValue = "0", paramLabel = "P", description = "Probability that the agent crashes part-way through a plan.")
    private double crash;

    @Option(names = "--unhealthy", defaultValue = "0", paramLabel = "P",
            description = "Probability that a node falls ill (DiskPressure) at a random time; repaired after healthTimeout.")
    private double unhealthy;

    @Option(names = "--fail-health", defaultValue = "0", paramLabel = "P",
            description = "Probability that a wave fails the pool's rollout health checks (drawn once per wave; pools with checks only).")
    private double failHealth;

    @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "text", description = "text or json (default ${DEFAULT-VALUE}).")
    private OutputFormat output;

    @Override
    public Integer call() {
        if (fleet) {
            return fleet();
        }
        if (pool == null || nodes == null) {
            return usage("--pool and --nodes are required (or --fleet)");
        }
        if (nodesPerPool != null) {
            return usage("--nodes-per-pool goes with --fleet");
        }
        if (nodes < 1 || createSeconds < 0 || drainSeconds < 0) {
            return usage("--nodes must be at least 1 and the durations not negative");
        }
        Optional<SpecSet> loaded = ValidSpecs.load(specPath, spec.commandLine().getErr());
        if (loaded.isEmpty()) {
            return Main.EXIT_USAGE;
        }
        SpecSet specs = loaded.get();
        List<WorkerPoolSpec> matches = specs.pools().stream()
                .filter(p -> p.name().equals(pool) && (cluster == null || p.cluster().equals(cluster))).toList();
        if (matches.isEmpty()) {
            return usage("no pool named \"" + pool + "\"" + (cluster == null ? "" : " in cluster \"" + cluster + "\""));
        }
        if (matches.size() > 1) {
            return usage("pool \"" + pool + "\" exists in several clusters: name one with --cluster");
        }
        DesiredCluster desired = DesiredCluster.of(specs, matches.get(0).cluster(), 1);
        SimulationSetup setup = new SimulationSetup(desired, pool, nodes, seconds(createSeconds), seconds(drainSeconds),
                Duration.ofSeconds(10), seed, new Faults(jitter, failCreate, neverReady, pdbBlocked, failInPlace, crash, unhealthy, failHealth),
                Duration.ofDays(30));
        SimulationResult result = new Simulator(new RolloutPlanner()).run(setup);
        PrintWriter out = spec.commandLine().getOut();
        out.println(output == OutputFormat.json ? json(result) : text(result));
        out.flush();
        return result.completed() ? 0 : EXIT_UNFINISHED;
    }

    /** {@code --fleet}: every pool of one cluster, with the real planner and guard; no faults. */
    private int fleet() {
        if (pool != null || nodes != null) {
            return usage("--fleet simulates every pool: give --nodes-per-pool, not --pool or --nodes");
        }
        if (jitter != 0 || failCreate != 0 || neverReady != 0 || pdbBlocked != 0 || failInPlace != 0 || crash != 0 || unhealthy != 0
                || failHealth != 0) {
            return usage("--fleet simulates without faults or jitter");
        }
        if ((nodesPerPool != null && nodesPerPool < 1) || createSeconds < 0 || drainSeconds < 0) {
            return usage("--nodes-per-pool must be at least 1 and the durations not negative");
        }
        Optional<SpecSet> loaded = ValidSpecs.load(specPath, spec.commandLine().getErr());
        if (loaded.isEmpty()) {
            return Main.EXIT_USAGE;
        }
        SpecSet specs = loaded.get();
        List<String> clusters = specs.clusters().stream().map(c -> c.name())
                .filter(c -> cluster == null || c.equals(cluster)).toList();
        if (clusters.size() != 1) {
            return usage(clusters.isEmpty() ? "no cluster" + (cluster == null ? "" : " named \"" + cluster + "\"")
                    : "the spec has several clusters: name one with --cluster");
        }
        DesiredCluster desired = DesiredCluster.of(specs, clusters.get(0), 1);
        java.util.Map<String, Integer> perPool = new java.util.HashMap<>();
        if (nodesPerPool != null) {
            desired.pools().forEach(p -> perPool.put(p.name(), nodesPerPool));
        }
        FleetSimulation result = new FleetSimulator(new RolloutPlanner()).run(new FleetSimulation.Setup(desired, perPool,
                seconds(createSeconds), seconds(drainSeconds), Duration.ofDays(365)));
        PrintWriter out = spec.commandLine().getOut();
        out.println(output == OutputFormat.json ? fleetJson(clusters.get(0), desired, result) : fleetText(clusters.get(0), desired, result));
        out.flush();
        return result.completed() ? 0 : EXIT_UNFINISHED;
    }

    static String fleetJson(String clusterName, DesiredCluster desired, FleetSimulation r) {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("cluster", clusterName);
        root.put("nodes", r.pools().stream().mapToInt(FleetSimulation.PoolSpan::nodes).sum());
        root.put("concurrency", desired.cluster().concurrency().pools());
        if (r.maxUnavailableNodes() < 0) {
            root.putNull("maxUnavailableNodes");
        } else {
            root.put("maxUnavailableNodes", r.maxUnavailableNodes());
        }
        root.put("completed", r.completed());
        if (!r.completed()) {
            root.put("reason", r.failureReason());
        }
        root.put("makespanSeconds", r.makespanSeconds());
        root.put("lowerBoundSeconds", r.lowerBoundSeconds());
        root.put("peakUnavailableCluster", r.peakUnavailableCluster());
        ArrayNode violations = root.putArray("violations");
        r.violations().forEach(violations::add);
        ArrayNode pools = root.putArray("pools");
        for (FleetSimulation.PoolSpan p : r.pools()) {
            ObjectNode o = pools.addObject();
            o.put("pool", p.pool());
            o.put("role", p.role());
            o.put("nodes", p.nodes());
            o.put("startSeconds", p.startSeconds());
            o.put("endSeconds", p.endSeconds());
            o.put("lowerBoundSeconds", p.lowerBoundSeconds());
        }
        try {
            return mapper.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree of plain values always serialises", e);
        }
    }

    private static String fleetText(String clusterName, DesiredCluster desired, FleetSimulation r) {
        StringBuilder b = new StringBuilder();
        b.append(String.format("cluster %s, %d pools, %d nodes, %d pool(s) at once, maxUnavailableNodes %s%n", clusterName,
                r.pools().size(), r.pools().stream().mapToInt(FleetSimulation.PoolSpan::nodes).sum(), desired.cluster().concurrency().pools(),
                r.maxUnavailableNodes() < 0 ? "none" : Integer.toString(r.maxUnavailableNodes())));
        for (FleetSimulation.PoolSpan p : r.pools()) {
            b.append(String.format("  %-24s %-13s %5d nodes  %10.1fs .. %10.1fs  (alone >= %.1fs)%n", p.pool(), p.role(), p.nodes(),
                    p.startSeconds(), p.endSeconds(), p.lowerBoundSeconds()));
        }
        b.append(String.format("%s after %.1fs (lower bound %.1fs, ratio %.3f); peak %d nodes unavailable in the cluster%n",
                r.completed() ? "completed" : "NOT completed", r.makespanSeconds(), r.lowerBoundSeconds(),
                r.lowerBoundSeconds() == 0 ? 1.0 : r.makespanSeconds() / r.lowerBoundSeconds(), r.peakUnavailableCluster()));
        if (!r.completed()) {
            b.append("reason: ").append(r.failureReason()).append(System.lineSeparator());
        }
        r.violations().forEach(v -> b.append("VIOLATION: ").append(v).append(System.lineSeparator()));
        return b.toString().stripTrailing();
    }

    private static Duration seconds(double s) {
        return Duration.ofMillis(Math.round(s * 1000));
    }

    private int usage(String message) {
        spec.commandLine().getErr().println(message);
        return Main.EXIT_USAGE;
    }

    static String json(SimulationResult r) {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("pool", r.pool());
        root.put("strategy", r.strategy());
        root.put("nodes", r.nodes());
        root.put("resolvedMaxSurge", r.resolvedMaxSurge());
        root.put("resolvedMaxUnavailable", r.resolvedMaxUnavailable());
        root.put("completed", r.completed());
        if (!r.completed()) {
            root.put("reason", r.failureReason());
        }
        root.put("makespanSeconds", r.makespanSeconds());
        root.put("lowerBoundSeconds", r.lowerBoundSeconds());
        root.put("peakNodes", r.peakNodes());
        root.put("peakUnavailable", r.peakUnavailable());
        ArrayNode violations = root.putArray("violations");
        r.violations().forEach(violations::add);
        ArrayNode timeline = root.putArray("timeline");
        for (TimelineEvent e : r.timeline()) {
            ObjectNode o = timeline.addObject();
            o.put("t", e.t());
            o.put("node", e.node());
            o.put("step", e.step());
            e.surgeFor().ifPresent(s -> o.put("surgeFor", s));
        }
        try {
            return mapper.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree of plain values always serialises", e);
        }
    }

    private static String text(SimulationResult r) {
        StringBuilder b = new StringBuilder();
        b.append(String.format("pool %s (%s), %d nodes, maxSurge %d, maxUnavailable %d%n", r.pool(), r.strategy(), r.nodes(),
                r.resolvedMaxSurge(), r.resolvedMaxUnavailable()));
        for (TimelineEvent e : r.timeline()) {
            b.append(String.format("%10.1fs  %-16s %s%s%n", e.t(), e.step(), e.node(), e.surgeFor().map(s -> " (for " + s + ")").orElse("")));
        }
        b.append(String.format("%s after %.1fs (lower bound %.1fs, ratio %.3f); peak %d nodes, %d unavailable%n",
                r.completed() ? "completed" : "NOT completed", r.makespanSeconds(), r.lowerBoundSeconds(),
                r.lowerBoundSeconds() == 0 ? 1.0 : r.makespanSeconds() / r.lowerBoundSeconds(), r.peakNodes(), r.peakUnavailable()));
        if (!r.completed()) {
            b.append("reason: ").append(r.failureReason()).append(System.lineSeparator());
        }
        r.violations().forEach(v -> b.append("VIOLATION: ").append(v).append(System.lineSeparator()));
        return b.toString().stripTrailing();
    }
}
