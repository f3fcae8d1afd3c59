package dev.nightshift.cli;

import java.io.PrintWriter;
import java.util.List;

import dev.nightshift.agent.eta.PoolEta;
import dev.nightshift.spec.diff.PoolDecision;
import dev.nightshift.spec.diff.Reason;

/** The human form of {@code nightshift diff}: one row per pool, one line per reason; then the ETA, one line per pool. */
final class DiffTable {

    private DiffTable() {
    }

    static void print(DiffReview review, PrintWriter out) {
        if (!review.errors().isEmpty()) {
            out.println("The specs are invalid; nothing was compared:");
            for (SideError e : review.errors()) {
                out.println("  " + e.side() + ": " + e.error());
            }
            return;
        }
        review.revisions().ifPresent(r -> out.println("Compared " + r.from()
                + r.mergeBaseWith().map(b -> " (merge-base with " + b + ")").orElse("") + " with " + r.to() + "."));
        List<DiffReview.PoolReview> pools = review.pools();
        int clusterWidth = Math.max(7, pools.stream().mapToInt(p -> p.decision().cluster().length()).max().orElse(0));
        int poolWidth = Math.max(4, pools.stream().mapToInt(p -> p.decision().pool().length()).max().orElse(0));
        int nodesWidth = Math.max(5, pools.stream().mapToInt(p -> nodes(p.impact()).length()).max().orElse(0));
        String row = "%-" + clusterWidth + "s  %-" + poolWidth + "s  %-15s  %-" + nodesWidth + "s  %s%n";
        out.printf(row, "CLUSTER", "POOL", "ACTION", "NODES", "REASONS");
        for (DiffReview.PoolReview p : pools) {
            PoolDecision d = p.decision();
            List<Reason> reasons = d.reasons();
            out.printf(row, d.cluster(), d.pool(), d.action(), nodes(p.impact()), reasons.isEmpty() ? "-" : describe(reasons.get(0)));
            for (int i = 1; i < reasons.size(); i++) {
                out.printf(row, "", "", "", "", describe(reasons.get(i)));
            }
        }
        if (pools.stream().anyMatch(p -> p.impact().source() == PoolImpact.Source.SPEC && p.impact().kind() != PoolImpact.Kind.NONE)) {
            out.println("Node counts are the spec's minimum–maximum: give --kubeconfig to count the nodes in the cluster.");
        }
        printEta(review, out);
    }

    /** One line per pool in the order they roll, then the pools left out and why; with --output json, the assumptions too. */
    private static void printEta(DiffReview review, PrintWriter out) {
        List<DiffReview.PoolReview> estimated = review.estimatedInRollOrder();
        List<DiffReview.PoolReview> leftOut = review.pools().stream().filter(p -> p.eta().leftOut().isPresent()).toList();
        if (estimated.isEmpty() && leftOut.isEmpty()) {
            return;
        }
        out.println("ETA (" + rolls(estimated, leftOut) + "; assumptions in --output json):");
        for (DiffReview.PoolReview p : estimated) {
            PoolEta e = p.eta().eta().orElseThrow();
            out.println("  " + review.name(p) + ": " + e.text(p.eta().zone())
                    + (e.windows().isEmpty() ? "" : e.completesAt().map(t -> "; done by " + t).orElse("")));
            // In a fleet, when each pool's turn comes; one at a time, the assumptions say it.
            if (p.eta().fleet()) {
                e.startText(p.eta().zone()).ifPresent(t -> out.println("    " + t));
            }
        }
        for (DiffReview.PoolReview p : leftOut) {
            out.println("  " + review.name(p) + ": not estimated: " + p.eta().leftOut().orElseThrow());
        }
    }

    /** How the pools take turns, for the ETA's heading: as their clusters' estimates say, the first pool's. */
    static String rolls(List<DiffReview.PoolReview> estimated, List<DiffReview.PoolReview> leftOut) {
        return estimated.stream().findFirst().or(() -> leftOut.stream().findFirst()).map(p -> p.eta().rolls())
                .orElse(dev.nightshift.agent.eta.RolloutEta.ONE_AT_A_TIME);
    }

    /** {@code 3/4 replaced} (of the pool's nodes in the cluster), {@code 2–6 replaced} (the spec's range), or {@code -}. */
    private static String nodes(PoolImpact impact) {
        if (impact.kind() == PoolImpact.Kind.NONE) {
            return "-";
        }
        String count = impact.poolNodes().map(total -> impact.nodes() + "/" + total).orElse(impact.count());
        return count + " " + impact.kind().words();
    }

    private static String describe(Reason r) {
        return "[" + r.effect().jsonName() + "] " + r;
    }
}
