package dev.nightshift.agent.reconcile;

import java.time.Duration;

/**
 * A node's update that finished in this reconcile, for metrics and the demo's screen.
 *
 * @param took from the first step for the node to its end; see {@link NodeUpdateTracker} for where each kind starts and ends
 */
public record NodeUpdate(String pool, String node, Kind kind, boolean succeeded, Duration took) {

    /** How the node was brought to the desired spec. */
    public enum Kind {
        ROLL, IN_PLACE, KUBELET_RESTART;

        /** The label value in metrics: {@code roll}, {@code in_place}, {@code kubelet_restart}. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
