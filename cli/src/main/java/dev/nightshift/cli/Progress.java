package dev.nightshift.cli;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * {@code rolling-update}'s progress: one bar per pool. On a terminal the bars are redrawn in place (plain text and two
 * ANSI cursor moves, no library); otherwise (a log, a pipe, CI) each change is one line of its own, and a line that did
 * not change is not printed again.
 */
final class Progress {

    private static final int WIDTH = 20;

    private final PrintWriter out;
    private final boolean terminal;
    private final Map<String, String> lines = new LinkedHashMap<>();
    private int drawn;

    Progress(PrintWriter out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    /** Pool {@code pool} has {@code done} of {@code total} machines at the desired spec; {@code note} says what it does now. */
    synchronized void update(String pool, int done, int total, String note) {
        String line = line(pool, done, total, note);
        if (Objects.equals(lines.put(pool, line), line)) {
            return;
        }
        if (!terminal) {
            out.println(line);
        } else {
            if (drawn > 0) {
                out.print("\033[" + drawn + "A");
            }
            lines.values().forEach(l -> out.print("\r\033[2K" + l + "\n"));
            drawn = lines.size();
        }
        out.flush();
    }

    /** {@code web        [##########----------]  2/4  draining web-3}. */
    static String line(String pool, int done, int total, String note) {
        int filled = total == 0 ? WIDTH : Math.min(WIDTH, done * WIDTH / total);
        return String.format("%-12s [%s%s] %3d/%-3d %s", pool, "#".repeat(filled), "-".repeat(WIDTH - filled), done, total, note)
                .stripTrailing();
    }
}
