package dev.nightshift.strategies.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Simulation results recorded once and compared ever after: one line per case, its key, the
 * figures the table of docs/contributing/benchmarks.md shows and a digest of everything else (reason, violations, the whole
 * timeline). A change to the planner or the simulator that moves one event of one timeline changes
 * the line. Recording again ({@code -Dgolden.write=true}) is for changes meant to change results.
 */
final class GoldenResults {

    static final boolean WRITE = Boolean.getBoolean("golden.write");

    private GoldenResults() {
    }

    /** The figures, then a digest of the rest: the line a case is compared by. */
    static String line(String key, SimulationResult r) {
        return key + " completed=" + r.completed() + " makespan=" + r.makespanSeconds() + " lowerBound=" + r.lowerBoundSeconds()
                + " s=" + r.resolvedMaxSurge() + " u=" + r.resolvedMaxUnavailable() + " peakNodes=" + r.peakNodes()
                + " peakUnavailable=" + r.peakUnavailable() + " violations=" + r.violations().size()
                + " events=" + r.timeline().size() + " digest=" + digest(r);
    }

    /** SHA-256 (first 64 bits) of the full result, its figures included, the timeline one event a line. */
    static String digest(SimulationResult r) {
        StringBuilder b = new StringBuilder();
        b.append(r.pool()).append('|').append(r.strategy()).append('|').append(r.nodes()).append('|')
                .append(r.resolvedMaxSurge()).append('|').append(r.resolvedMaxUnavailable()).append('|')
                .append(r.completed()).append('|').append(r.failureReason()).append('|').append(r.makespanSeconds()).append('|')
                .append(r.lowerBoundSeconds()).append('|').append(r.peakNodes()).append('|').append(r.peakUnavailable()).append('\n');
        r.violations().forEach(v -> b.append(v).append('\n'));
        for (TimelineEvent e : r.timeline()) {
            b.append(e.t()).append(' ').append(e.node()).append(' ').append(e.step()).append(' ')
                    .append(e.surgeFor().orElse("-")).append('\n');
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(b.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The recorded lines by key, from {@code src/test/resources/…/sim/<name>}. */
    static Map<String, String> read(String name) {
        Map<String, String> lines = new LinkedHashMap<>();
        try {
            for (String l : Files.readAllLines(path(name))) {
                if (!l.isBlank() && !l.startsWith("#")) {
                    lines.put(l.substring(0, l.indexOf(' ')), l);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return lines;
    }

    static void write(String name, String header, List<String> lines) {
        try {
            Files.writeString(path(name), "# " + header + "\n" + String.join("\n", lines) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Surefire runs in the module's directory. */
    private static Path path(String name) {
        return Path.of("src/test/resources/dev/nightshift/strategies/sim", name);
    }
}
