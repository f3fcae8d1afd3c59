package dev.nightshift.strategies.fleet;

import java.util.Optional;

/**
 * Why a pool with work to do takes no new work now, for {@code /status} ({@code waitingFor}) and the web view.
 *
 * @param reason what it waits for
 * @param pool   the pool it waits on, where one pool is the reason (role order, {@code after}); empty otherwise
 * @param detail the sentence an operator reads, e.g. {@code after pool system (UPDATING)}
 */
public record FleetWait(Reason reason, Optional<String> pool, String detail) {

    public enum Reason {
        /** A pool of an earlier role (bastion, control-plane, apiserver, node) is not done yet. */
        ROLE_ORDER("role-order"),
        /** A pool named in its {@code rollout.after} is not current and healthy yet. */
        AFTER("after"),
        /** {@code rollout.concurrency.pools} pools of its role are rolling already. */
        CONCURRENCY("concurrency"),
        /** Its next disruption would take the cluster past {@code rollout.concurrency.maxUnavailableNodes}. */
        CLUSTER_BUDGET("cluster-budget"),
        /** Its next repair would take its zone past the per-zone repair limit. */
        ZONE_REPAIRS("zone-repairs");

        private final String label;

        Reason(String label) {
            this.label = label;
        }

        /** As written in JSON and metrics labels. */
        public String label() {
            return label;
        }
    }
}
