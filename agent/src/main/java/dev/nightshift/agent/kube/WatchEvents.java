package dev.nightshift.agent.kube;

import java.util.Locale;

/**
 * What each event of the observer's watches meant: whether it asked for a reconcile or was ignored because it cannot
 * change a plan (a kubelet heartbeat, a pod on a node nothing is being done to). Counted at {@code /metrics}, so that a
 * cluster's churn and the reconciles it causes can be told apart.
 */
@FunctionalInterface
public interface WatchEvents {

    /** What the event was about. */
    enum Kind {
        /** A node of a pool. */
        NODE,
        POD,
        /** A pool status record (ConfigMap). */
        POOL_RECORD,
        CONTROL_PLANE_NODE,
        /** A node without the pool label: its arrival may be a machine's node registering. */
        UNLABELLED_NODE;

        /** As a metric label: {@code control_plane_node}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Nothing is counted. */
    WatchEvents NONE = (kind, reconcile) -> { };

    void seen(Kind kind, boolean reconcile);
}
