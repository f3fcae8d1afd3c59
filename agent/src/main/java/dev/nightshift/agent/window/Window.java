package dev.nightshift.agent.window;

import java.time.Instant;
import java.util.List;

/**
 * A span of time in which maintenance may happen: [open, close).
 *
 * @param sources where it comes from ({@code timeWindow}, {@code windows[0]}); several when
 *                overlapping or touching windows were merged
 */
public record Window(Instant open, Instant close, List<String> sources) {

    public Window {
        if (!close.isAfter(open)) {
            throw new IllegalArgumentException("a window must close after it opens: " + open + " .. " + close);
        }
        sources = List.copyOf(sources);
    }

    public boolean contains(Instant t) {
        return !t.isBefore(open) && t.isBefore(close);
    }

    public String source() {
        return String.join("+", sources);
    }
}
