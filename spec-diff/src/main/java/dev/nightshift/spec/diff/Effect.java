package dev.nightshift.spec.diff;

/** What one changed field does on its own; the pool's action is the strongest effect among its reasons. */
public enum Effect {
    REJECTED,
    ROLL,
    IN_PLACE,
    KUBELET_RESTART,
    PROPAGATE,
    /** Changes how Nightshift updates, not what the nodes run. */
    NONE;

    public String jsonName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
