package dev.nightshift.agent.window;

import java.time.Instant;
import java.util.List;

import dev.nightshift.spec.model.Maintenance;

/**
 * The calendar over a span ahead, for people to read (the web view's timeline, {@code /status}
 * {@code calendar}): the windows that overlap it, exclusions cut out and merged as the agent sees
 * them, and the exclusions that overlap it.
 *
 * @param from       the start of the span (the instant asked)
 * @param until      its end
 * @param windows    the windows that close after {@code from} and open before {@code until}, in order;
 *                   empty when the calendar is always open
 * @param exclusions the exclusions that end after {@code from} and start before {@code until}
 * @param truncated  more windows fall in the span than are listed (windows every few minutes)
 */
public record Upcoming(Instant from, Instant until, List<Window> windows, List<Maintenance.Exclusion> exclusions,
                       boolean truncated) {

    public Upcoming {
        windows = List.copyOf(windows);
        exclusions = List.copyOf(exclusions);
    }
}
