package dev.nightshift.cli;

import dev.nightshift.agent.command.ValidSpecs;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.agent.window.MaintenanceCalendar;
import dev.nightshift.agent.window.Window;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.Maintenance;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nightshift windows}: the next maintenance windows of a cluster, after exclusions, so that
 * users can check their cron before they push it. Exit 0, or 2 for an invalid spec or usage.
 */
@Command(name = "windows", mixinStandardHelpOptions = true,
        description = {"Print the next maintenance windows that close after --from.",
                "Exclusions are cut out, overlapping or touching windows merged, in UTC and in the",
                "window's time zone.",
                "A window open at the start of the look-back (32 days before --from, plus the",
                "longest window) shows that start, marked: it opened earlier. One still open at",
                "the horizon (1098 days after --from) has no close. In JSON they carry",
                "\"openedBeforeLookBack\":true, and \"close\":null with \"closesBeyondHorizon\":true.",
                "Exit codes: 0 done, 2 invalid spec or usage."})
public final class WindowsCommand implements Callable<Integer> {

    private static final String BEYOND_HORIZON = "beyond horizon";

    private final Clock clock;

    @Spec
    private CommandSpec spec;

    @Option(names = "--spec", required = true, paramLabel = "DIR", description = "Spec file or directory.")
    private Path specPath;

    @Option(names = "--cluster", paramLabel = "NAME", description = "Needed only when the spec holds several clusters.")
    private String cluster;

    @Option(names = "--from", paramLabel = "TIME", description = "ISO-8601 instant, e.g. 2026-11-21T00:00:00Z (default: now).")
    private String from;

    @Option(names = "--count", defaultValue = "5", paramLabel = "N", description = "How many windows (default ${DEFAULT-VALUE}).")
    private int count;

    @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "text", description = "text or json (default ${DEFAULT-VALUE}).")
    private OutputFormat output;

    public WindowsCommand() {
        this(Clock.systemUTC());
    }

    WindowsCommand(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Integer call() {
        Instant start;
        try {
            // Now to the second: a look-back start counted from it prints without a fraction.
            start = from == null ? clock.instant().truncatedTo(ChronoUnit.SECONDS) : parseInstant(from);
        } catch (DateTimeParseException e) {
            return usage("--from must be an ISO-8601 time such as 2026-11-21T00:00:00Z, got \"" + from + "\"");
        }
        if (count < 1) {
            return usage("--count must be at least 1");
        }
        Optional<SpecSet> loaded = ValidSpecs.load(specPath, spec.commandLine().getErr());
        if (loaded.isEmpty()) {
            return Main.EXIT_USAGE;
        }
        SpecSet specs = loaded.get();
        List<ClusterSpec> clusters = specs.clusters().stream()
                .filter(c -> cluster == null || c.name().equals(cluster)).toList();
        if (clusters.isEmpty()) {
            return usage(cluster == null ? "the spec holds no Cluster" : "no cluster named \"" + cluster + "\"");
        }
        if (clusters.size() > 1) {
            return usage("the spec holds several clusters: name one with --cluster");
        }
        ClusterSpec c = clusters.get(0);
        MaintenanceCalendar calendar = new MaintenanceCalendar(c.maintenance());
        List<Window> windows = calendar.windows(start, count);
        PrintWriter out = spec.commandLine().getOut();
        out.println(output == OutputFormat.json ? json(calendar.alwaysOpen(), windows) : text(c, calendar.alwaysOpen(), windows, start));
        out.flush();
        return 0;
    }

    /** Accepts an instant with Z or an offset. */
    private static Instant parseInstant(String text) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return java.time.OffsetDateTime.parse(text).toInstant();
        }
    }

    private int usage(String message) {
        spec.commandLine().getErr().println(message);
        return Main.EXIT_USAGE;
    }

    static String json(boolean alwaysOpen, List<Window> windows) {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("alwaysOpen", alwaysOpen);
        ArrayNode array = root.putArray("windows");
        for (Window w : windows) {
            ObjectNode o = array.addObject();
            o.put("open", w.open().toString());
            // Null rather than the horizon: a consumer that ignores the flag must not take it for a close.
            o.put("close", w.close().map(Instant::toString).orElse(null));
            o.put("source", w.source());
            // Only when they apply, so that an ordinary window has exactly the three fields.
            if (w.openedBeforeLookBack()) {
                o.put("openedBeforeLookBack", true);
            }
            if (w.closesBeyondHorizon()) {
                o.put("closesBeyondHorizon", true);
            }
        }
        try {
            return mapper.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree of plain values always serialises", e);
        }
    }

    private static String text(ClusterSpec cluster, boolean alwaysOpen, List<Window> windows, Instant from) {
        if (alwaysOpen) {
            return "cluster " + cluster.name() + ": no maintenance window is configured, so Nightshift may disrupt nodes"
                    + " AT ANY TIME" + (cluster.maintenance().map(m -> m.exclusions().isEmpty()).orElse(true)
                    ? "." : " outside the exclusions.");
        }
        DateTimeFormatter utc = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'").withZone(ZoneOffset.UTC);
        StringBuilder b = new StringBuilder(String.format("%-22s %-22s %-30s %s%n", "OPEN (UTC)", "CLOSE (UTC)", "LOCAL", "SOURCE"));
        for (Window w : windows) {
            ZoneId zone = zoneOf(cluster.maintenance().orElseThrow(), w.sources().get(0));
            DateTimeFormatter local = DateTimeFormatter.ofPattern("EEE yyyy-MM-dd HH:mm").withZone(zone);
            // The time alone reads as the same or the next day; a longer window needs its day.
            DateTimeFormatter localEnd = DateTimeFormatter.ofPattern(
                    w.close().filter(c -> Duration.between(w.open(), c).toDays() < 1).isPresent() ? "HH:mm" : "EEE yyyy-MM-dd HH:mm")
                    .withZone(zone);
            b.append(String.format("%-22s %-22s %-30s %s%n", utc.format(w.open()) + (w.openedBeforeLookBack() ? "*" : ""),
                    w.close().map(utc::format).orElse(BEYOND_HORIZON),
                    local.format(w.open()) + "-" + w.close().map(localEnd::format).orElse("...") + " " + zone.getId(), w.source()));
        }
        if (windows.isEmpty()) {
            b.append("no window opens within ").append(MaintenanceCalendar.HORIZON.toDays()).append(" days");
        }
        if (windows.stream().anyMatch(Window::openedBeforeLookBack)) {
            b.append("* already open then, at the start of the look-back (").append(MaintenanceCalendar.LOOKBACK.toDays())
                    .append(" days before --from, plus the longest window): it opened earlier\n");
        }
        if (windows.stream().anyMatch(Window::closesBeyondHorizon)) {
            b.append(BEYOND_HORIZON).append(": still open at ").append(utc.format(from.plus(MaintenanceCalendar.HORIZON)))
                    .append(", ").append(MaintenanceCalendar.HORIZON.toDays()).append(" days after --from: it closes later, if ever\n");
        }
        return b.toString().stripTrailing();
    }

    private static ZoneId zoneOf(Maintenance m, String source) {
        if (source.startsWith("windows[")) {
            int i = Integer.parseInt(source.substring("windows[".length(), source.indexOf(']')));
            return m.windows().get(i).timeZone();
        }
        return m.timeWindow().map(t -> (ZoneId) t.offset()).orElse(ZoneOffset.UTC);
    }
}
