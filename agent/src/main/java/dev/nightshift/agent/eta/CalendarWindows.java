package dev.nightshift.agent.eta;

import java.time.Instant;
import java.util.Optional;
import java.util.stream.Stream;

import dev.nightshift.agent.window.MaintenanceCalendar;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.sim.MaintenanceWindows;

/**
 * The agent's maintenance calendar as the simulator asks for it: the {@link MaintenanceState} the
 * reconciler would feed the planner at an instant (the same three flags), and when it next changes
 * (a window opening or closing, an exclusion starting or ending). The simulator asks at instants
 * that only move forward, so the answer is kept until that change.
 */
final class CalendarWindows implements MaintenanceWindows {

    private final MaintenanceCalendar calendar;
    private Instant from;
    private Optional<Instant> until = Optional.empty();
    private MaintenanceState state;

    CalendarWindows(MaintenanceCalendar calendar) {
        this.calendar = calendar;
    }

    @Override
    public MaintenanceState at(Instant t) {
        refresh(t);
        return state;
    }

    @Override
    public Optional<Instant> nextChangeAfter(Instant t) {
        refresh(t);
        return until;
    }

    private void refresh(Instant t) {
        if (state != null && !t.isBefore(from) && until.map(t::isBefore).orElse(true)) {
            return;
        }
        WindowState w = calendar.state(t);
        state = w.maintenanceState();
        from = t;
        until = Stream.of(w.nextChange(), calendar.nextExclusionBoundary(t)).flatMap(Optional::stream)
                .filter(c -> c.isAfter(t)).min(Instant::compareTo);
    }
}
