package dev.nightshift.cli;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.nightshift.agent.reconcile.NodeStates;
import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolReport;

/**
 * Reads each reconcile's report of a {@code rolling-update --yes}: draws the progress, and decides when the run is over —
 * done when every selected pool is current with nothing under way; failed when a pool is FAILED, when a pool waits for
 * the cluster to validate longer than {@code --validation-timeout} (with {@code --fail-on-validate-error}), or a node's
 * drain takes longer than {@code --drain-timeout} (with {@code --fail-on-drain-error}). With {@code =false} it warns once
 * per wait and node, and the run goes on as kops' does: the reconcile itself goes past the timeout ({@code HandRun}: the
 * pool's batch starts, the node goes with its pods).
 */
final class RunWatch {

    /** The end of a run: empty failure when every selected pool is current. */
    record Verdict(Optional<String> failure) {
    }

    private final List<String> pools;
    private final RollingUpdateCommand.Timing timing;
    private final boolean failOnValidate;
    private final boolean failOnDrain;
    private final Progress progress;
    private final Clock clock;
    private final CompletableFuture<Verdict> result = new CompletableFuture<>();
    private final Map<String, Instant> validatingSince = new HashMap<>();
    private final Map<String, Instant> drainingSince = new HashMap<>();
    private final java.util.Set<String> warned = new java.util.HashSet<>();
    private final java.io.PrintWriter err;

    RunWatch(List<String> pools, RollingUpdateCommand.Timing timing, boolean failOnValidate, boolean failOnDrain, Progress progress,
             Clock clock, java.io.PrintWriter err) {
        this.err = err;
        this.pools = List.copyOf(pools);
        this.timing = timing;
        this.failOnValidate = failOnValidate;
        this.failOnDrain = failOnDrain;
        this.progress = progress;
        this.clock = clock;
    }

    CompletableFuture<Verdict> result() {
        return result;
    }

    /** One reconcile's report (on the reconcile loop's thread). */
    synchronized void report(ReconcileReport report) {
        if (result.isDone()) {
            return;
        }
        if (report.plan() == null) {
            // A failed pass is tried again shortly, as in the agent.
            return;
        }
        Instant now = clock.instant();
        boolean allCurrent = true;
        for (String pool : pools) {
            PoolReport p = report.plan().reports().get(pool);
            if (p == null) {
                allCurrent = false;
                continue;
            }
            List<NodeStates.NodeState> nodes = report.nodeStates().getOrDefault(pool, List.of());
            progress.update(pool, p.current(), p.count(), note(p, nodes));
            if (p.phase() == PoolPhase.FAILED) {
                result.complete(new Verdict(Optional.of("pool " + pool + " FAILED: a node failed and needs a decision (see nightshift plan)")));
                return;
            }
            boolean current = p.phase() == PoolPhase.CURRENT && p.outdated() == 0 && p.updating() == 0;
            allCurrent &= current;
            if (p.phase() == PoolPhase.WAITING_FOR_VALIDATION) {
                Instant since = validatingSince.computeIfAbsent(pool, k -> now);
                if (Duration.between(since, now).compareTo(timing.validationTimeout()) > 0
                        && stop("validate:" + pool + "@" + since, failOnValidate, "pool " + pool + ": the cluster did not validate within "
                        + timing.validationTimeout().toSeconds() + "s (--validation-timeout)")) {
                    return;
                }
            } else {
                validatingSince.remove(pool);
            }
            for (NodeStates.NodeState n : nodes) {
                if (n.state() == NodeStates.State.DRAINING) {
                    Instant since = drainingSince.computeIfAbsent(n.node(), k -> now);
                    if (Duration.between(since, now).compareTo(timing.drainTimeout()) > 0
                            && stop("drain:" + n.node(), failOnDrain, "pool " + pool + ": the drain of " + n.node() + " took longer than "
                            + timing.drainTimeout().toSeconds() + "s (--drain-timeout)")) {
                        return;
                    }
                } else {
                    drainingSince.remove(n.node());
                }
            }
        }
        if (allCurrent) {
            result.complete(new Verdict(Optional.empty()));
        }
    }

    /** Fails the run, or warns once and goes on; true when the run is over. */
    private boolean stop(String key, boolean fail, String why) {
        if (fail) {
            result.complete(new Verdict(Optional.of(why + "; stopping (--fail-on-" + (key.startsWith("drain") ? "drain" : "validate")
                    + "-error)")));
            return true;
        }
        if (warned.add(key)) {
            err.println(why + (key.startsWith("drain") ? "; going on without it: the node goes with its pods (--fail-on-drain-error=false)"
                    : "; going on: the batch starts anyway (--fail-on-validate-error=false)"));
            err.flush();
        }
        return false;
    }

    private static String note(PoolReport p, List<NodeStates.NodeState> nodes) {
        return nodes.stream().filter(n -> n.state() == NodeStates.State.DRAINING).findFirst().map(n -> "draining " + n.node())
                .orElse(p.phase().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '));
    }
}
