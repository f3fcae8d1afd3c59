package dev.nightshift.agent.window;

import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.TimeZone;

import org.quartz.CronExpression;

import dev.nightshift.spec.model.Maintenance;

/**
 * When maintenance may happen, computed from a cluster's {@code maintenance} spec: Gardener's daily
 * window, Quartz cron windows in their time zones, minus exclusions, overlapping or touching windows
 * merged. Pure: every answer depends only on the spec and the instant asked about.
 *
 * <p>Cron windows follow Quartz across daylight-saving changes: a start time that does not exist on
 * the spring-forward day (02:30 in Europe/Berlin) does not fire that day, and a start time that
 * exists twice on the fall-back day fires once, at its second occurrence (standard time: 02:30 CET,
 * 01:30Z). Durations are real elapsed time. Daily {@code timeWindow}s use a fixed UTC offset and so
 * never shift.
 */
public final class MaintenanceCalendar {

    /** How far ahead windows are searched; a calendar excluded for longer reports no next window. */
    public static final Duration HORIZON = Duration.ofDays(3 * 366);
    /** How far back windows are generated, so that one open at the asked instant shows its real opening. */
    static final Duration LOOKBACK = Duration.ofDays(2);

    /** How far back {@link #lastClose} looks: a monthly window is still found. */
    static final Duration PAST = Duration.ofDays(32);

    private final Optional<Maintenance> maintenance;
    private final List<CronSource> crons;

    public MaintenanceCalendar(Optional<Maintenance> maintenance) {
        this.maintenance = maintenance;
        this.crons = new ArrayList<>();
        maintenance.ifPresent(m -> {
            for (int i = 0; i < m.windows().size(); i++) {
                Maintenance.CronWindow w = m.windows().get(i);
                crons.add(new CronSource("windows[" + i + "]", expression(w), w.duration()));
            }
        });
    }

    private record CronSource(String name, CronExpression cron, Duration duration) {
    }

    private static CronExpression expression(Maintenance.CronWindow w) {
        try {
            CronExpression cron = new CronExpression(w.schedule());
            cron.setTimeZone(TimeZone.getTimeZone(w.timeZone()));
            return cron;
        } catch (ParseException e) {
            throw new IllegalArgumentException("schedule was validated when the spec was loaded: " + w.schedule(), e);
        }
    }

    /** No window configured: maintenance may happen at any time (exclusions still block). */
    public boolean alwaysOpen() {
        return maintenance.map(m -> m.timeWindow().isEmpty() && m.windows().isEmpty()).orElse(true);
    }

    public boolean confineSpecUpdateRollout() {
        return maintenance.map(Maintenance::confineSpecUpdateRollout).orElse(true);
    }

    public WindowState state(Instant now) {
        Optional<Maintenance.Exclusion> exclusion = exclusionAt(now);
        if (alwaysOpen()) {
            return new WindowState(true, exclusion.isEmpty(), exclusion, Optional.empty(), Optional.empty(),
                    confineSpecUpdateRollout());
        }
        List<Window> upcoming = windows(now, 2);
        Optional<Window> current = upcoming.stream().filter(w -> w.contains(now)).findFirst();
        Optional<Window> next = upcoming.stream().filter(w -> w.open().isAfter(now)).findFirst();
        return new WindowState(false, current.isPresent(), exclusion, current, next, confineSpecUpdateRollout());
    }

    /** The next instant after {@code now} at which an exclusion starts or ends. */
    public Optional<Instant> nextExclusionBoundary(Instant now) {
        return maintenance.flatMap(m -> m.exclusions().stream().flatMap(e -> java.util.stream.Stream.of(e.start(), e.end()))
                .filter(t -> t.isAfter(now)).min(Comparator.naturalOrder()));
    }

    private Optional<Maintenance.Exclusion> exclusionAt(Instant now) {
        return maintenance.flatMap(m -> m.exclusions().stream()
                .filter(e -> !now.isBefore(e.start()) && now.isBefore(e.end())).findFirst());
    }

    /**
     * When the latest window that has ended closed, at most {@link #PAST} ago, exclusions cut out;
     * empty when always open. Nodes still outdated from a change made before it missed that window.
     */
    public Optional<Instant> lastClose(Instant now) {
        if (alwaysOpen()) {
            return Optional.empty();
        }
        return merge(cut(rawWindows(now.minus(PAST), now))).stream().map(Window::close).filter(c -> !c.isAfter(now))
                .max(Comparator.naturalOrder());
    }

    /**
     * The next {@code count} windows that close after {@code from}, exclusions cut out, merged where
     * they overlap or touch, sorted; one already open at {@code from} comes first with its real
     * opening time. Empty when the calendar is always open.
     */
    public List<Window> windows(Instant from, int count) {
        if (alwaysOpen() || count <= 0) {
            return List.of();
        }
        Instant horizon = from.plus(HORIZON);
        List<Window> merged = new ArrayList<>();
        Instant cursor = from;
        Duration chunk = Duration.ofDays(8);
        // Generate raw windows chunk by chunk until enough merged windows are settled: the last one
        // is settled once no raw window can open before it closes.
        while (cursor.isBefore(horizon)) {
            Instant until = cursor.plus(chunk);
            List<Window> raw = rawWindows(from.minus(LOOKBACK), until);
            merged = merge(cut(raw));
            merged.removeIf(w -> !w.close().isAfter(from));
            if (merged.size() > count || (merged.size() == count && merged.get(count - 1).close().isBefore(until))) {
                break;
            }
            cursor = until;
            chunk = chunk.multipliedBy(2);
        }
        return merged.size() > count ? List.copyOf(merged.subList(0, count)) : List.copyOf(merged);
    }

    /** Every window of every source that closes after {@code from} and opens before {@code until}. */
    private List<Window> rawWindows(Instant from, Instant until) {
        List<Window> raw = new ArrayList<>();
        Maintenance m = maintenance.orElseThrow();
        m.timeWindow().ifPresent(daily -> {
            LocalDate day = OffsetDateTime.ofInstant(from, daily.offset()).toLocalDate().minusDays(1);
            while (true) {
                Instant open = day.atTime(daily.begin()).atOffset(daily.offset()).toInstant();
                if (!open.isBefore(until)) {
                    break;
                }
                LocalDate endDay = daily.end().isAfter(daily.begin()) ? day : day.plusDays(1);
                Instant close = endDay.atTime(daily.end()).atOffset(daily.offset()).toInstant();
                if (close.isAfter(from)) {
                    raw.add(new Window(open, close, List.of("timeWindow")));
                }
                day = day.plusDays(1);
            }
        });
        for (CronSource source : crons) {
            // Quartz's next fire strictly after (from - duration) is the first window still open at from.
            Date fire = source.cron().getNextValidTimeAfter(Date.from(from.minus(source.duration())));
            while (fire != null && fire.toInstant().isBefore(until)) {
                Instant open = fire.toInstant();
                raw.add(new Window(open, open.plus(source.duration()), List.of(source.name())));
                fire = source.cron().getNextValidTimeAfter(fire);
            }
        }
        raw.sort(Comparator.comparing(Window::open).thenComparing(Window::close));
        return raw;
    }

    /** Removes the excluded spans [start, end) from every window. */
    private List<Window> cut(List<Window> windows) {
        List<Maintenance.Exclusion> exclusions = maintenance.map(Maintenance::exclusions).orElse(List.of());
        List<Window> result = windows;
        for (Maintenance.Exclusion e : exclusions) {
            List<Window> next = new ArrayList<>();
            for (Window w : result) {
                if (!e.start().isBefore(w.close()) || !e.end().isAfter(w.open())) {
                    next.add(w);
                    continue;
                }
                if (e.start().isAfter(w.open())) {
                    next.add(new Window(w.open(), e.start(), w.sources()));
                }
                if (e.end().isBefore(w.close())) {
                    next.add(new Window(e.end(), w.close(), w.sources()));
                }
            }
            result = next;
        }
        return result;
    }

    /** Joins windows that overlap or touch; the sources of each part are kept, in order. */
    private static List<Window> merge(List<Window> sorted) {
        List<Window> out = new ArrayList<>();
        List<Window> byOpen = new ArrayList<>(sorted);
        byOpen.sort(Comparator.comparing(Window::open).thenComparing(Window::close));
        for (Window w : byOpen) {
            if (!out.isEmpty() && !w.open().isAfter(out.get(out.size() - 1).close())) {
                Window last = out.remove(out.size() - 1);
                LinkedHashSet<String> sources = new LinkedHashSet<>(last.sources());
                sources.addAll(w.sources());
                Instant close = w.close().isAfter(last.close()) ? w.close() : last.close();
                out.add(new Window(last.open(), close, new ArrayList<>(sources)));
            } else {
                out.add(w);
            }
        }
        return out;
    }
}
