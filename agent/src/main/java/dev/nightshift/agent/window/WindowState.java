package dev.nightshift.agent.window;

import java.time.Instant;
import java.util.Optional;

import dev.nightshift.spec.model.Maintenance;
import dev.nightshift.strategies.model.MaintenanceState;

/**
 * The calendar at one instant.
 *
 * @param open               inside a window (and outside every exclusion), or always open
 * @param exclusion          the exclusion in force, if any: it blocks everything
 * @param current            the window we are in
 * @param next               the next window that opens after now; none after a current window that
 *                           closes beyond the horizon
 */
public record WindowState(
        boolean alwaysOpen,
        boolean open,
        Optional<Maintenance.Exclusion> exclusion,
        Optional<Window> current,
        Optional<Window> next,
        boolean confineSpecUpdateRollout) {

    /** Disruptive work caused by a spec change may start now. */
    public boolean specRolloutAllowed() {
        return exclusion.isEmpty() && (open || !confineSpecUpdateRollout);
    }

    /** Disruptive work Nightshift starts on its own (nodes marked needs-update) may start now. */
    public boolean selfInitiatedAllowed() {
        return exclusion.isEmpty() && open;
    }

    /** The calendar as the planner sees it: the same three flags for the reconciler, {@code nightshift plan} and the ETA's simulation. */
    public MaintenanceState maintenanceState() {
        return new MaintenanceState(specRolloutAllowed(), selfInitiatedAllowed(), exclusion.isPresent());
    }

    /**
     * When the state will next change by itself: the current window's end or the next one's start;
     * none inside a window that closes beyond the horizon.
     */
    public Optional<Instant> nextChange() {
        return current.isPresent() ? current.flatMap(Window::close) : next.map(Window::open);
    }
}
