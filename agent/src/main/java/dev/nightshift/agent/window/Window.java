package dev.nightshift.agent.window;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A span of time in which maintenance may happen: [open, close). Windows that touch merge, and a
 * merged window may stretch further back or ahead than the calendar looks: its bounds then say so
 * instead of showing where the search stopped as if it were an opening or a closing.
 *
 * @param open                 when it opened; when {@code openedBeforeLookBack}, the start of the
 *                             calendar's look-back, at which it was already open
 * @param openedBeforeLookBack it was already open at the start of the look-back
 *                             ({@link MaintenanceCalendar#LOOKBACK}): it opened earlier, when is not searched
 * @param close                when it closes; empty when it is still open at the end of the horizon
 *                             ({@link MaintenanceCalendar#HORIZON}): it closes later, if ever
 * @param sources              where it comes from ({@code timeWindow}, {@code windows[0]}); several when
 *                             overlapping or touching windows were merged
 */
public record Window(Instant open, boolean openedBeforeLookBack, Optional<Instant> close, List<String> sources) {

    public Window {
        close.ifPresent(c -> {
            if (!c.isAfter(open)) {
                throw new IllegalArgumentException("a window must close after it opens: " + open + " .. " + c);
            }
        });
        sources = List.copyOf(sources);
    }

    /** A window whose opening and closing are both known. */
    public Window(Instant open, Instant close, List<String> sources) {
        this(open, false, Optional.of(close), sources);
    }

    public boolean closesBeyondHorizon() {
        return close.isEmpty();
    }

    public boolean contains(Instant t) {
        return !t.isBefore(open) && close.map(t::isBefore).orElse(true);
    }

    public String source() {
        return String.join("+", sources);
    }
}
