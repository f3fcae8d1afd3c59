package dev.nightshift.agent.provider;

import java.util.Optional;

/**
 * Where the agent asks a provider for what only some providers have: each call does nothing (or answers "none") for a
 * provider without the capability. One place for the question, so that a capability is never asked for one way here
 * and another there.
 */
public final class ProviderCapabilities {

    private final MachineProvider provider;

    public ProviderCapabilities(MachineProvider provider) {
        this.provider = provider;
    }

    /** See {@link ChangeNotifications#start}. */
    public void start(Runnable onChange) throws Exception {
        if (provider instanceof ChangeNotifications watched) {
            watched.start(onChange);
        }
    }

    /** See {@link ChangeNotifications#close}. */
    public void close() {
        if (provider instanceof ChangeNotifications watched) {
            watched.close();
        }
    }

    /** See {@link ListingCache#refresh}. */
    public void refresh() {
        if (provider instanceof ListingCache cache) {
            cache.refresh();
        }
    }

    /** See {@link ListingCache#listAhead}. */
    public void listAhead(java.util.Collection<String> pools) {
        if (provider instanceof ListingCache cache) {
            cache.listAhead(pools);
        }
    }

    /** See {@link ListingCache#nodeChanged}. */
    public void nodeChanged(String pool) {
        if (provider instanceof ListingCache cache) {
            cache.nodeChanged(pool);
        }
    }

    /** See {@link ListingCache#nodeRegistered}. */
    public void nodeRegistered(String node) {
        if (provider instanceof ListingCache cache) {
            cache.nodeRegistered(node);
        }
    }

    /** See {@link Settling#settle}. */
    public void settle(String pool) {
        if (provider instanceof Settling settling) {
            settling.settle(pool);
        }
    }

    /** See {@link RemediationHolds#nodeUpdating}. */
    public void nodeUpdating(String pool, String node, boolean updating) {
        if (provider instanceof RemediationHolds holds) {
            holds.nodeUpdating(pool, node, updating);
        }
    }

    /** See {@link StampsMachines#stamped}. */
    public void stamped(String pool, String node, dev.nightshift.spec.hash.StampedHash rollHash, dev.nightshift.spec.hash.StampedHash kubeletHash) {
        if (provider instanceof StampsMachines stamps) {
            stamps.stamped(pool, node, rollHash, kubeletHash);
        }
    }

    /** See {@link KeepsPoolSizes}: whether Nightshift refills a pool short of its minimum (it does unless the backend does). */
    public boolean refillsPools() {
        return !(provider instanceof KeepsPoolSizes);
    }

    /** See {@link Refusals#refusal}. */
    public Optional<String> refusal(String pool) {
        return provider instanceof Refusals refusals ? refusals.refusal(pool) : Optional.empty();
    }
}
