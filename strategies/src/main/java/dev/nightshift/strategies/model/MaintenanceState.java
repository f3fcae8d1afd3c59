package dev.nightshift.strategies.model;

/**
 * What the maintenance calendar allows right now, as the agent computed it.
 *
 * @param specRolloutAllowed  disruptive work caused by a spec change may start
 * @param selfInitiatedAllowed disruptive work Nightshift starts on its own (nodes marked needs-update) may start
 * @param exclusionActive     an exclusion is in force: nothing disruptive starts, emergencies included
 */
public record MaintenanceState(boolean specRolloutAllowed, boolean selfInitiatedAllowed, boolean exclusionActive) {

    public static final MaintenanceState OPEN = new MaintenanceState(true, true, false);
    public static final MaintenanceState CLOSED = new MaintenanceState(false, false, false);

    public MaintenanceState(boolean specRolloutAllowed, boolean selfInitiatedAllowed) {
        this(specRolloutAllowed, selfInitiatedAllowed, false);
    }
}
