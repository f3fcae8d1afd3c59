package dev.nightshift.agent.reconcile;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.nightshift.agent.eta.PoolDurations;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedCluster;

/** The observe stage: the cluster and its machines as they are now ({@link ObserverView}; a fake in the pass's tests). */
interface ClusterView {

    /**
     * Starts a pass: what the machine provider answered before is stale now; when {@code acting}, what providers and
     * node updaters finished since is written onto the nodes first, so that it is observed.
     */
    void refresh(DesiredCluster desired, boolean acting);

    /** The pools' nodes and machines, the control plane's readiness and the calendar's state, as the planner reads them. */
    ObservedCluster observe(MaintenanceState maintenance, Set<String> pools);

    /**
     * Pools whose machine provider failed in this pass (a listing, a settle: timeouts, 5xx, errors), with the error:
     * they are held for this pass, the other pools go on. Empty before {@link #refresh}.
     */
    Map<String, String> providerFailures();

    /** Pools whose machines the provider will not manage as they are, with the reason: nothing is done to them. */
    Map<String, String> refusals(Set<String> pools);

    /** Whether Nightshift refills a pool short of its minimum: unless the machine backend does it itself. */
    boolean refillsPools();

    /** Why the last in-place update of {@code node} failed, as the node says. */
    Optional<String> inPlaceFailure(String node);

    /** The durations {@code pool}'s record keeps (creations, drains, updates), for estimates. */
    PoolDurations recordedDurations(String pool);

    /**
     * The node each machine of these pools has, by machine name, as the provider lists them in this pass: a machine is
     * observed under its own name until its node carries the pool label, and under its node's name from then on.
     */
    default Map<String, String> machineNodes(Set<String> pools) {
        return Map.of();
    }
}
