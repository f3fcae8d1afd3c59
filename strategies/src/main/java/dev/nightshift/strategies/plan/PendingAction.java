package dev.nightshift.strategies.plan;

/** What the pool's outdated nodes need, whatever holds it back (a window, a turn, a pause). */
public enum PendingAction {
    /** Every node runs the desired spec. */
    NONE,
    /** Nodes are to be replaced (AutoRollingUpdate, Replace). */
    ROLL,
    /** Nodes are to be updated in place (AutoInPlaceUpdate, ManualInPlaceUpdate). */
    IN_PLACE,
    /** Only kubelets need a restart (a patch version or kubelet setting). */
    KUBELET_RESTART
}
