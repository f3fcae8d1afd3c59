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
 *
 * <p>These are the operations every backend needs. What only some backends have is a capability of its own, which a
 * backend implements if it has it: {@link ChangeNotifications} (it says when its machines change),
 * {@link ListingCache} (it keeps listings across passes), {@link Settling} (it has records of its own to bring up to
 * date before a plan), {@link RemediationHolds} (its health checks must leave an updating node alone), {@link KeepsPoolSizes} (it
 * restores a pool's size itself) and
 * {@link Refusals} (it may refuse a pool). {@link ProviderCapabilities} is where the agent asks for them.
 */
public interface MachineProvider {

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
