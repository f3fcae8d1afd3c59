package dev.nightshift.agent.provider;

import java.util.List;
import java.util.Optional;

import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredPool;

/**
 * Where machines come from: Cluster API, a machine API, or the simulator. Nightshift asks for
 * machines to be created and deleted; the machines become (or stop being) Kubernetes nodes on
 * their own, and Nightshift observes that. Updating a node without replacing its machine is a
 * {@link NodeUpdater}'s work.
 *
 * <p>Every call must be safe to repeat: a restarted agent, or one that lost its lease mid-plan,
 * asks again for what it may already have asked.
 */
public interface MachineProvider extends AutoCloseable {

    /** Starts watching the provider's objects; {@code onChange} asks for a reconcile. */
    default void start(Runnable onChange) throws Exception {
    }

    /**
     * A reconcile begins: what was read from the provider for the last one may be stale. A provider
     * that is not watched (an HTTP API) lists each pool at most once per reconcile, from here on, and
     * uses a listing again only while nothing says it changed (see {@link #nodeChanged}, {@link #nodeRegistered}).
     */
    default void refresh() {
    }

    /**
     * A node of {@code pool} changed in a way that can change a plan (a condition, a label, a taint,
     * a deletion; not a heartbeat). A provider that keeps a listing across reconciles reads the pool
     * again at the next one: the node may be news of its machine.
     */
    default void nodeChanged(String pool) {
    }

    /**
     * A node without a pool label arrived: the node of a machine registering. A provider that keeps a
     * listing across reconciles reads again, at the next one, a pool whose listing names that node or
     * has a running machine whose node it does not know yet.
     */
    default void nodeRegistered(String node) {
    }

    /**
     * Brings the provider's own records of the pool up to date before a plan (e.g. pairs surge
     * machines with their old partners, deletes templates nothing uses). Called only by the
     * replica that acts, never in a dry run.
     */
    default void settle(String pool) {
    }

    /**
     * {@code node} of {@code pool} is being updated in place or its kubelet restarted ({@code updating}),
     * or no longer is: a provider whose own health checks would replace a rebooting machine holds them
     * off meanwhile (Cluster API: {@code cluster.x-k8s.io/skip-remediation} on the Machine).
     */
    default void nodeUpdating(String pool, String node, boolean updating) {
    }

    /** Stops watching. */
    @Override
    default void close() {
    }

    /**
     * Why the provider will not act on this pool (a missing or misconfigured backing object, named
     * with what to change), or empty. Nothing is done to a refused pool and the reason is reported.
     */
    default Optional<String> refusal(String pool) {
        return Optional.empty();
    }

    /** Machines of the pool, registered as nodes or not, including those asked for and not created yet. */
    List<Machine> machines(String pool);

    /** A new machine of {@code pool} at its desired spec, standing in for {@code surgeFor} (empty for none). */
    void create(DesiredPool pool, String surgeFor);

    /**
     * Deletes a machine ({@code machine} is its node's name once registered, else the machine's
     * name). With {@code replace}, its replacement at the pool's desired spec is asked for in the
     * same call, as when an instance of a scaling group is terminated without lowering its size.
     *
     * @return what happened; a provider that cannot delete this machine yet says why and deletes nothing
     */
    Deletion delete(DesiredPool pool, String machine, boolean replace);

    /** Records the hashes a machine runs when it never registers as a node (bastions): adoption and re-stamping. */
    void stamp(String pool, String machine, StampedHash rollHash, StampedHash kubeletHash);

    /** The answer to a deletion. */
    record Deletion(boolean started, String detail) {

        public static Deletion started(String detail) {
            return new Deletion(true, detail);
        }

        /** Nothing was deleted: the deletion must wait, for this reason. */
        public static Deletion deferred(String reason) {
            return new Deletion(false, reason);
        }
    }
}
