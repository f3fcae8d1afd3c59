package dev.nightshift.sandbox.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.strategies.plan.PoolReport;

/** The terminal of the demo and the sandbox: each step as it happens, and a progress bar per pool when one moves. */
public final class DemoConsole implements Consumer<ReconcileReport> {

    private final PrintStream out;
    private final Instant start;
    private final Map<String, String> lastBars = new TreeMap<>();
    private volatile ReconcileReport latest;

    public DemoConsole(PrintStream out, Instant start) {
        this.out = out;
        this.start = start;
    }

    @Override
    public synchronized void accept(ReconcileReport report) {
        latest = report;
        for (StepExecutor.Outcome o : report.outcomes()) {
            if (!o.summary().startsWith("draining") || !o.summary().endsWith(": 0 pod(s) evicted")) {
                line(o.summary());
            }
        }
        report.error().ifPresent(e -> line("reconcile failed: " + e));
        if (report.plan() == null) {
            return;
        }
        for (PoolReport p : new TreeMap<>(report.plan().reports()).values()) {
            String bar = bar(p);
            if (!bar.equals(lastBars.put(p.pool(), bar))) {
                out.println("           " + bar);
            }
        }
    }

    ReconcileReport latest() {
        return latest;
    }

    synchronized void line(String text) {
        Duration t = Duration.between(start, Instant.now());
        out.printf("[%3d.%ds] %s%n", t.toSeconds(), t.toMillisPart() / 100, text);
    }

    private static String bar(PoolReport p) {
        int width = 20;
        int total = Math.max(1, p.current() + p.outdated());
        int done = (int) Math.round(width * (double) p.current() / total);
        return String.format("%-11s [%s%s] %d/%d current  %s%s", p.pool(), "#".repeat(done), ".".repeat(width - done),
                p.current(), p.current() + p.outdated(), p.phase(), p.blockedDrains().isEmpty() ? ""
                        : "  drain blocked by " + p.blockedDrains().get(0).eviction().disruptionBudget());
    }
}
