package dev.nightshift.agent.cli;

import java.io.PrintWriter;
import java.util.List;

import dev.nightshift.spec.diff.DiffReport;
import dev.nightshift.spec.diff.PoolDecision;
import dev.nightshift.spec.diff.Reason;

/** The human form of {@code nightshift diff}: one row per pool, one line per reason. */
final class DiffTable {

    private DiffTable() {
    }

    static void print(DiffReport report, List<SideError> errors, PrintWriter out) {
        if (!errors.isEmpty()) {
            out.println("The specs are invalid; nothing was compared:");
            for (SideError e : errors) {
                out.println("  " + e.side() + ": " + e.error());
            }
            return;
        }
        int clusterWidth = Math.max(7, report.pools().stream().mapToInt(d -> d.cluster().length()).max().orElse(0));
        int poolWidth = Math.max(4, report.pools().stream().mapToInt(d -> d.pool().length()).max().orElse(0));
        String row = "%-" + clusterWidth + "s  %-" + poolWidth + "s  %-15s  %s%n";
        out.printf(row, "CLUSTER", "POOL", "ACTION", "REASONS");
        for (PoolDecision d : report.pools()) {
            List<Reason> reasons = d.reasons();
            out.printf(row, d.cluster(), d.pool(), d.action(), reasons.isEmpty() ? "-" : describe(reasons.get(0)));
            for (int i = 1; i < reasons.size(); i++) {
                out.printf(row, "", "", "", describe(reasons.get(i)));
            }
        }
    }

    private static String describe(Reason r) {
        return "[" + r.effect().jsonName() + "] " + r;
    }
}
