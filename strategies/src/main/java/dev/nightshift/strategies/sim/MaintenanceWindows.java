package dev.nightshift.strategies.sim;

import java.time.Instant;
import java.util.Optional;

import dev.nightshift.strategies.model.MaintenanceState;

/**
 * When a simulated rollout may start disruptive work, supplied by the caller: the agent answers
 * from its maintenance calendar (cron windows, time zones, exclusions), which this library does not
 * know. The simulator feeds {@link #at} to the planner exactly as the agent feeds its calendar's
 * state, so outside a window work in flight finishes and nothing new starts, and it wakes at
 * {@link #nextChangeAfter} to look again.
 */
public interface MaintenanceWindows {

    /** No window: every instant is open, and nothing ever changes. */
    MaintenanceWindows ALWAYS_OPEN = new MaintenanceWindows() {
        @Override
        public MaintenanceState at(Instant t) {
            return MaintenanceState.OPEN;
        }

        @Override
        public Optional<Instant> nextChangeAfter(Instant t) {
            return Optional.empty();
        }

        @Override
        public String toString() {
            return "always open";
        }
    };

    /** What the calendar allows at {@code t}. */
    MaintenanceState at(Instant t);

    /**
     * The first instant after {@code t} at which {@link #at} may answer differently (a window opens
     * or closes, an exclusion starts or ends); empty when it never changes again.
     */
    Optional<Instant> nextChangeAfter(Instant t);
}
