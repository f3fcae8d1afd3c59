package dev.nightshift.cli;

import dev.nightshift.agent.command.ValidSpecs;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

import dev.nightshift.agent.eta.PoolDurations;
import dev.nightshift.agent.eta.RolloutEta;
import dev.nightshift.agent.kube.ClusterObserver;
import dev.nightshift.agent.provider.Machine;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.agent.run.Agent;
import dev.nightshift.agent.window.MaintenanceCalendar;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.diff.PoolTarget;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.HealthVerdict;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.plan.Plan;
import io.fabric8.kubernetes.client.KubernetesClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nightshift plan}: for a spec and the live cluster, what the agent would do now, per pool:
 * strategy, phase, nodes, next window, the target's reasons, the next steps by node and what blocks
 * them ({@link PlanView}), as a table or as JSON. Reads only; changes nothing.
 */
@Command(name = "plan", mixinStandardHelpOptions = true,
        description = "Show, for a spec and the live cluster, what the agent would do now. Changes nothing.")
public final class PlanCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private KubernetesOptions kubernetes;

    @Option(names = "--spec", required = true, paramLabel = "DIR", description = "Spec file or directory.")
    private Path specPath;

    @Option(names = "--cluster", paramLabel = "NAME", description = "Needed only when the spec holds several clusters.")
    private String cluster;

    @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "text", description = "text or json (default ${DEFAULT-VALUE}).")
    private OutputFormat output;

    /** The plan command sees nodes only: machines that never registered are the provider's to report. */
    private static final MachineProvider NODES_ONLY = new MachineProvider() {
        @Override
        public List<Machine> machines(String pool) {
            return List.of();
        }

        @Override
        public void create(DesiredPool pool, String surgeFor) {
            throw new UnsupportedOperationException("plan changes nothing");
        }

        @Override
        public Deletion delete(DesiredPool pool, String machine, boolean replace) {
            throw new UnsupportedOperationException("plan changes nothing");
        }

        @Override
        public void stamp(String pool, String machine, StampedHash rollHash, StampedHash kubeletHash) {
            throw new UnsupportedOperationException("plan changes nothing");
        }
    };

    @Override
    public Integer call() throws Exception {
        Optional<SpecSet> loaded = ValidSpecs.load(specPath, spec.commandLine().getErr());
        if (loaded.isEmpty()) {
            return Main.EXIT_USAGE;
        }
        List<ClusterSpec> clusters = loaded.get().clusters().stream().filter(c -> cluster == null || c.name().equals(cluster)).toList();
        if (clusters.size() != 1) {
            spec.commandLine().getErr().println(clusters.isEmpty() ? "no such cluster in the spec" : "several clusters: name one with --cluster");
            return Main.EXIT_USAGE;
        }
        ClusterSpec c = clusters.get(0);
        Instant now = Clock.systemUTC().instant();
        WindowState window = new MaintenanceCalendar(c.maintenance()).state(now);
        DesiredCluster offered = DesiredCluster.of(loaded.get(), c.name(), 1);
        Set<String> pools = offered.pools().stream().map(DesiredPool::name).collect(Collectors.toCollection(HashSet::new));
        try (KubernetesClient client = kubernetes.client();
             ClusterObserver observer = new ClusterObserver(client, Agent.NAMESPACE, NODES_ONLY, () -> { })) {
            observer.start();
            // A pool rolled back and offered its refused revision again stays where it was rolled back to: plan what the agent acts on.
            Map<String, HeldPool> held = new HashMap<>();
            for (ResolvedPool p : loaded.get().resolvedPools(c.name())) {
                HeldPool.of(observer.statusRecord(Agent.NAMESPACE, p.name()), c, p).ifPresent(h -> held.put(p.name(), h));
            }
            DesiredCluster desired = offered.withPools(offered.pools().stream()
                    .map(p -> held.containsKey(p.name()) ? DesiredPool.of(held.get(p.name()).actedOn()) : p).toList());
            // The control plane as the agent reads it: with a control-plane node NotReady, no pool starts.
            // Health checks are the agent's to judge (plan queries no Prometheus): planned as passing, as the waves line
            // says, so that a pool with checks shows what its next wave does instead of waiting on checks never asked.
            // A halt the agent recorded still holds the pool.
            Map<String, HealthVerdict> passing = new HashMap<>();
            desired.pools().stream().filter(p -> !p.spec().rollout().healthChecks().isEmpty())
                    .forEach(p -> passing.put(p.name(), HealthVerdict.PASSING));
            ObservedCluster observed = observer.observe(window.maintenanceState(), observer.controlPlaneNodesReady(), pools)
                    .withHealth(passing);
            Plan plan = new RolloutPlanner().plan(desired, observed, now);
            // What is left, pool after pool in role order, with each pool's durations as its record keeps them.
            Map<String, PoolDurations> history = new HashMap<>();
            desired.pools().forEach(p -> history.put(p.name(), observer.recordedDurations(Agent.NAMESPACE, p.name())));
            RolloutEta.Estimate estimate = new RolloutEta().remaining(desired, plan, history, now);
            Map<String, Optional<PoolTarget>> targets = new HashMap<>();
            for (ResolvedPool p : loaded.get().resolvedPools(c.name())) {
                ResolvedPool actedOn = held.containsKey(p.name()) ? held.get(p.name()).actedOn() : p;
                targets.put(p.name(), PlanView.target(observer.statusRecord(Agent.NAMESPACE, p.name()), actedOn));
            }
            List<PlanView.PoolRow> rows = desired.pools().stream().map(p -> PlanView.row(p, plan.pool(p.name()).orElseThrow(), window,
                    targets.getOrDefault(p.name(), Optional.empty()), estimate, Optional.ofNullable(held.get(p.name())))).toList();
            PrintWriter out = spec.commandLine().getOut();
            out.println(output == OutputFormat.json ? PlanView.json(c.name(), window, rows) : PlanView.text(rows));
            out.flush();
        }
        return 0;
    }
}
