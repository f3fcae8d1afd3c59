package dev.nightshift.spec.diff;

/** What a spec change means for a pool's nodes, most disruptive first within the update actions. */
public enum PoolAction {
    /** The change is not allowed; nothing is done until the spec is fixed. */
    REJECTED,
    /** Replace the nodes (AutoRollingUpdate, Replace). */
    ROLL,
    /** Update the nodes in place, with drain (AutoInPlaceUpdate, ManualInPlaceUpdate). */
    IN_PLACE,
    /** Restart the kubelet with its new configuration or patch version; no drain. */
    KUBELET_RESTART,
    /** Patch labels, taints and annotations onto the nodes; no disruption. */
    PROPAGATE,
    NONE,
    /** The pool is new. */
    CREATE,
    /** The pool was removed from the spec. Reported only: Nightshift never deletes a removed pool's nodes. */
    DELETE
}
