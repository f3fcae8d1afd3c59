package dev.nightshift.agent.window;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;

import dev.nightshift.spec.model.Maintenance;

/**
 * A calendar's answers kept until the next instant they can change (a window opening or closing,
 * an exclusion starting or ending): computing them walks windows, up to years of them when
 * windows touch, and the reconcile loop asks on every reconcile.
 */
public final class CachedCalendar {

    /** Answers are computed again at least this often, whatever the calendar says. */
    private static final Duration LONGEST = Duration.ofMinutes(10);
    /** The span {@link #upcoming} covers: the web view's two weeks. */
    public static final Duration UPCOMING = Duration.ofDays(14);
    /** At most this many windows in {@link #upcoming}: a timeline cannot draw more (windows every few minutes). */
    public static final int UPCOMING_WINDOWS = 500;

    private final Optional<Maintenance> maintenance;
    private final MaintenanceCalendar calendar;
    private WindowState state;
    private Optional<Instant> lastClose;
    private Upcoming upcoming;
    private Instant from;
    private Instant until;

    public CachedCalendar(Optional<Maintenance> maintenance) {
        this.maintenance = maintenance;
        this.calendar = new MaintenanceCalendar(maintenance);
    }

    public Optional<Maintenance> maintenance() {
        return maintenance;
    }

    /** {@link MaintenanceCalendar#state}. */
    public synchronized WindowState state(Instant now) {
        refresh(now);
        return state;
    }

    /** {@link MaintenanceCalendar#lastClose}: it moves only when a window closes, which ends the cached span. */
    public synchronized Optional<Instant> lastClose(Instant now) {
        refresh(now);
        if (lastClose == null) {
            lastClose = calendar.lastClose(now);
        }
        return lastClose;
    }

    /**
     * {@link MaintenanceCalendar#upcoming} over {@link #UPCOMING}, at most {@link #UPCOMING_WINDOWS} windows: kept until the
     * state changes (a window closing drops out) or for 10 minutes (a window entering at the far end is shown that late).
     */
    public synchronized Upcoming upcoming(Instant now) {
        refresh(now);
        if (upcoming == null) {
            upcoming = calendar.upcoming(from, UPCOMING, UPCOMING_WINDOWS);
        }
        return upcoming;
    }

    private void refresh(Instant now) {
        if (state != null && !now.isBefore(from) && now.isBefore(until)) {
            return;
        }
        state = calendar.state(now);
        lastClose = null;
        upcoming = null;
        from = now;
        until = Stream.of(state.nextChange(), calendar.nextExclusionBoundary(now), Optional.of(now.plus(LONGEST)))
                .flatMap(Optional::stream).min(Instant::compareTo).orElseThrow();
    }
}
