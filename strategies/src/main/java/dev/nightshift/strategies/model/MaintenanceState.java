package dev.nightshift.strategies.model;

/**
 * What the maintenance calendar allows right now, as the agent computed it.
 *
 * @param specRolloutAllowed  disruptive work caused by a spec change may start
 * @param selfInitiatedAllowed disruptive work Nightshift starts on its own (nodes marked needs-update) may start
 */
public record MaintenanceState(boolean specRolloutAllowed, boolean selfInitiatedAllowed) {

    public static final MaintenanceState OPEN = new MaintenanceState(true, true);
    public static final MaintenanceState CLOSED = new MaintenanceState(false, false);
}
