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
 *
 * <p>Touching windows can merge into stretches that began long ago or never end (hourly windows an
 * hour long are always open). The search is bounded both ways, and a window that reaches a bound is
 * marked rather than cut there: one still open at the start of the look-back says it opened before
 * it, one still open at the end of the horizon has no close.
 */
public final class MaintenanceCalendar {

    /**
     * How far ahead windows are searched: a calendar excluded for longer reports no next window, and
     * a window still open this long after the instant asked reports no close.
     */
    public static final Duration HORIZON = Duration.ofDays(3 * 366);
    /**
     * How far back, beyond the longest window's duration, the opening of a window open at the
     * instant asked is searched: one window always shows its real opening, and so does a stretch of
     * touching windows that began at most this long before. One that began earlier is reported as
     * opening at the start of the look-back, marked as having opened before it.
     */
    public static final Duration LOOKBACK = Duration.ofDays(32);

    /**
     * The first step of the look-back and of the search ahead; each following step doubles. Most
     * instants are outside a window or in a short one, and windows every few seconds must not cost
     * days of windows.
     */
    private static final Duration FIRST_STEP = Duration.ofHours(1);

    /** How far back {@link #lastClose} looks: a monthly window is still found. */
    static final Duration PAST = Duration.ofDays(32);

    private final Optional<Maintenance> maintenance;
    private final List<CronSource> crons;
    /** {@link #LOOKBACK} plus the longest window. */
    private final Duration lookBack;

    public MaintenanceCalendar(Optional<Maintenance> maintenance) {
        this.maintenance = maintenance;
        this.crons = new ArrayList<>();
        Duration longest = Duration.ZERO;
        if (maintenance.isPresent()) {
            Maintenance m = maintenance.get();
            for (int i = 0; i < m.windows().size(); i++) {
                Maintenance.CronWindow w = m.windows().get(i);
                crons.add(new CronSource("windows[" + i + "]", expression(w), w.duration()));
                longest = max(longest, w.duration());
            }
            if (m.timeWindow().isPresent()) {
                longest = max(longest, length(m.timeWindow().get()));
            }
        }
        this.lookBack = LOOKBACK.plus(longest);
    }

    private record CronSource(String name, CronExpression cron, Duration duration) {
    }

    /** A window as computed, before its bounds are checked against the look-back and the horizon. */
    private record Span(Instant open, Instant close, List<String> sources) {
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

    /** A daily window whose end is not after its begin wraps midnight; begin = end is a whole day. */
    private static Duration length(Maintenance.DailyWindow daily) {
        Duration d = Duration.between(daily.begin(), daily.end());
        return daily.end().isAfter(daily.begin()) ? d : d.plusDays(1);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
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
        return merge(cut(rawWindows(now.minus(PAST), now))).stream().map(Span::close).filter(c -> !c.isAfter(now))
                .max(Comparator.naturalOrder());
    }

    /**
     * The windows and exclusions over {@code span} from {@code from}, at most {@code max} windows
     * (then {@link Upcoming#truncated()}). Windows are asked for by count, doubled until the last
     * one listed opens after the span: a daily calendar costs two rounds, one every few minutes stops at {@code max}.
     */
    public Upcoming upcoming(Instant from, Duration span, int max) {
        Instant until = from.plus(span);
        List<Maintenance.Exclusion> exclusions = maintenance.map(m -> m.exclusions().stream()
                .filter(e -> e.end().isAfter(from) && e.start().isBefore(until))
                .sorted(Comparator.comparing(Maintenance.Exclusion::start)).toList()).orElse(List.of());
        if (alwaysOpen()) {
            return new Upcoming(from, until, List.of(), exclusions, false);
        }
        int count = Math.min(16, max + 1);
        while (true) {
            List<Window> windows = windows(from, count);
            boolean pastSpan = !windows.isEmpty() && !windows.get(windows.size() - 1).open().isBefore(until);
            if (pastSpan || windows.size() < count || count > max) {
                List<Window> within = windows.stream().filter(w -> w.open().isBefore(until)).toList();
                return new Upcoming(from, until, within.stream().limit(max).toList(), exclusions, within.size() > max);
            }
            count = Math.min(count * 2, max + 1);
        }
    }

    /**
     * The next {@code count} windows that close after {@code from}, exclusions cut out, merged where
     * they overlap or touch, sorted, opening within the {@link #HORIZON}; one already open at
     * {@code from} comes first with its real opening time, or marked as opened before the look-back.
     * The last one has no close when it is still open at the horizon. Empty when the calendar is
     * always open.
     */
    public List<Window> windows(Instant from, int count) {
        if (alwaysOpen() || count <= 0) {
            return List.of();
        }
        LookBack back = lookBack(from);
        Instant horizon = from.plus(HORIZON);
        List<Span> raw = new ArrayList<>(back.raw());
        List<Span> merged;
        Instant cursor = from;
        Duration step = FIRST_STEP;
        // Windows ahead are generated step by step, each step's once, until enough merged windows
        // are settled: the last one is settled once no window still to generate can open before
        // it closes.
        while (true) {
            Instant until = min(cursor.plus(step), horizon);
            Instant stepStart = cursor;
            rawWindows(cursor, until).stream().filter(w -> !w.open().isBefore(stepStart)).forEach(raw::add);
            merged = merge(cut(raw));
            merged.removeIf(w -> !w.close().isAfter(from));
            boolean settled = merged.size() > count || (merged.size() == count && merged.get(count - 1).close().isBefore(until));
            if (settled || !until.isBefore(horizon)) {
                break;
            }
            cursor = until;
            step = step.multipliedBy(2);
        }
        // A window open at or before the look-back's start may have opened any time earlier, and
        // one open at the horizon may close any time later (windows opening after it are not
        // generated): neither bound is a real opening or closing.
        return merged.stream().filter(w -> w.open().isBefore(horizon)).limit(count).map(w -> new Window(
                w.open().isAfter(back.start()) ? w.open() : back.start(), !w.open().isAfter(back.start()),
                w.close().isBefore(horizon) ? Optional.of(w.close()) : Optional.empty(), w.sources())).toList();
    }

    /** Every raw window that closes after {@code start} and opens before the instant looked back from. */
    private record LookBack(Instant start, List<Span> raw) {
    }

    /**
     * Looks back from {@code from} until the merged window that reaches it, if any, is seen opening
     * after the look-back's start, or the look-back is as long as it may be. A window that closes at
     * or before the start cannot touch one that opens after it, so that opening is real.
     */
    private LookBack lookBack(Instant from) {
        Instant limit = from.minus(lookBack);
        for (Duration step = FIRST_STEP; ; step = step.multipliedBy(2)) {
            Instant start = step.compareTo(lookBack) < 0 ? from.minus(step) : limit;
            List<Span> raw = rawWindows(start, from);
            List<Span> merged = merge(cut(raw));
            // Sorted and disjoint: only the last can reach from (or touch one that opens at from).
            Span last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
            if (last == null || last.close().isBefore(from) || last.open().isAfter(start) || start.equals(limit)) {
                return new LookBack(start, raw);
            }
        }
    }

    /** Every window of every source that closes after {@code from} and opens before {@code until}. */
    private List<Span> rawWindows(Instant from, Instant until) {
        List<Span> raw = new ArrayList<>();
        Maintenance m = maintenance.orElseThrow();
        m.timeWindow().ifPresent(daily -> {
            LocalDate day = OffsetDateTime.ofInstant(from, daily.offset()).toLocalDate().minusDays(1);
            while (true) {
                Instant open = day.atTime(daily.begin()).atOffset(daily.offset()).toInstant();
                if (!open.isBefore(until)) {
                    break;
                }
                Instant close = open.plus(length(daily));
                if (close.isAfter(from)) {
                    raw.add(new Span(open, close, List.of("timeWindow")));
                }
                day = day.plusDays(1);
            }
        });
        for (CronSource source : crons) {
            // Quartz's next fire strictly after (from - duration) is the first window still open at from.
            Date fire = source.cron().getNextValidTimeAfter(Date.from(from.minus(source.duration())));
            while (fire != null && fire.toInstant().isBefore(until)) {
                Instant open = fire.toInstant();
                raw.add(new Span(open, open.plus(source.duration()), List.of(source.name())));
                fire = source.cron().getNextValidTimeAfter(fire);
            }
        }
        raw.sort(Comparator.comparing(Span::open).thenComparing(Span::close));
        return raw;
    }

    /** Removes the excluded spans [start, end) from every window. */
    private List<Span> cut(List<Span> windows) {
        List<Maintenance.Exclusion> exclusions = maintenance.map(Maintenance::exclusions).orElse(List.of());
        List<Span> result = windows;
        for (Maintenance.Exclusion e : exclusions) {
            List<Span> next = new ArrayList<>();
            for (Span w : result) {
                if (!e.start().isBefore(w.close()) || !e.end().isAfter(w.open())) {
                    next.add(w);
                    continue;
                }
                if (e.start().isAfter(w.open())) {
                    next.add(new Span(w.open(), e.start(), w.sources()));
                }
                if (e.end().isBefore(w.close())) {
                    next.add(new Span(e.end(), w.close(), w.sources()));
                }
            }
            result = next;
        }
        return result;
    }

    /** Joins windows that overlap or touch; the sources of each part are kept, in order. */
    private static List<Span> merge(List<Span> windows) {
        List<Span> out = new ArrayList<>();
        List<Span> byOpen = new ArrayList<>(windows);
        byOpen.sort(Comparator.comparing(Span::open).thenComparing(Span::close));
        for (Span w : byOpen) {
            if (!out.isEmpty() && !w.open().isAfter(out.get(out.size() - 1).close())) {
                Span last = out.remove(out.size() - 1);
                LinkedHashSet<String> sources = new LinkedHashSet<>(last.sources());
                sources.addAll(w.sources());
                Instant close = w.close().isAfter(last.close()) ? w.close() : last.close();
                out.add(new Span(last.open(), close, new ArrayList<>(sources)));
            } else {
                out.add(w);
            }
        }
        return out;
    }
}
