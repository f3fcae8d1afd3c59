package dev.nightshift.agent.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

import dev.nightshift.agent.kube.ClusterObserver;
import dev.nightshift.agent.provider.Machine;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.agent.run.Agent;
import dev.nightshift.agent.window.MaintenanceCalendar;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolReport;
import dev.nightshift.strategies.plan.Step;
import io.fabric8.kubernetes.client.KubernetesClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nightshift plan}: for a spec and the live cluster, what the agent would do now, as a table
 * (pool, strategy, action, nodes, next window, reasons). Reads only; changes nothing.
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

    /** The plan command sees nodes only: machines that never registered are the provider's to report. */
    private static final MachineProvider NODES_ONLY = new MachineProvider() {
        @Override
        public List<Machine> machines(String pool) {
            return List.of();
        }

        @Override
        public void create(String pool, String surgeFor, StampedHash rollHash, StampedHash kubeletHash) {
            throw new UnsupportedOperationException("plan changes nothing");
        }

        @Override
        public void delete(String pool, String machine, boolean replace, StampedHash rollHash, StampedHash kubeletHash) {
            throw new UnsupportedOperationException("plan changes nothing");
        }

        @Override
        public void updateInPlace(String machine, StampedHash rollHash, StampedHash kubeletHash) {
            throw new UnsupportedOperationException("plan changes nothing");
        }

        @Override
        public void stamp(String machine, StampedHash rollHash, StampedHash kubeletHash) {
            throw new UnsupportedOperationException("plan changes nothing");
        }

        @Override
        public void restartKubelet(String machine, StampedHash kubeletHash) {
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
        DesiredCluster desired = DesiredCluster.of(loaded.get(), c.name(), 1);
        Set<String> pools = desired.pools().stream().map(DesiredPool::name).collect(Collectors.toCollection(HashSet::new));
        try (KubernetesClient client = kubernetes.client();
             ClusterObserver observer = new ClusterObserver(client, Agent.NAMESPACE, NODES_ONLY, () -> { })) {
            observer.start();
            ObservedCluster observed = observer.observe(
                    new MaintenanceState(window.specRolloutAllowed(), window.selfInitiatedAllowed(), window.exclusion().isPresent()), true, pools);
            Plan plan = new RolloutPlanner().plan(desired, observed, now);
            print(spec.commandLine().getOut(), desired, observed, plan, window);
        }
        return 0;
    }

    private static void print(PrintWriter out, DesiredCluster desired, ObservedCluster observed, Plan plan, WindowState window) {
        String row = "%-12s %-20s %-22s %-22s %-26s %s%n";
        out.printf(row, "POOL", "STRATEGY", "ACTION", "NODES (cur/out/upd)", "NEXT WINDOW", "REASONS");
        String next = window.alwaysOpen() ? "always open" : window.open() ? "open now"
                : window.next().map(w -> w.open().toString()).orElse("none");
        for (DesiredPool pool : desired.pools()) {
            PoolReport r = plan.pools().get(pool.name());
            List<Step> steps = plan.stepsIn(pool.name(), observed);
            out.printf(row, pool.name(), pool.spec().pool().updateStrategy(), r.phase(),
                    r.current() + "/" + r.outdated() + "/" + r.updating(), next, reasons(r, steps));
        }
        out.flush();
    }

    private static String reasons(PoolReport r, List<Step> steps) {
        StringBuilder b = new StringBuilder();
        if (!r.adopted().isEmpty()) {
            b.append("adopt ").append(r.adopted().size()).append(" unstamped node(s); ");
        }
        if (!steps.isEmpty()) {
            b.append("next: ").append(steps.stream().map(s -> s.getClass().getSimpleName() + " " + s.target()).limit(4)
                    .collect(Collectors.joining(", "))).append(steps.size() > 4 ? ", …" : "").append("; ");
        }
        r.blockedDrains().forEach(d -> b.append("drain of ").append(d.node()).append(" blocked by ")
                .append(d.eviction().disruptionBudget()).append("; "));
        if (!r.progressing()) {
            b.append(r.progressReason()).append("; ");
        }
        String text = b.toString();
        return text.isEmpty() ? "-" : text.substring(0, text.length() - 2);
    }
}
