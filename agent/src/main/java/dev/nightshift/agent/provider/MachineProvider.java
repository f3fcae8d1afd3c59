package dev.nightshift.agent.provider;

import java.util.List;

import dev.nightshift.spec.hash.StampedHash;

/**
 * Where machines come from: a cloud, Cluster API, a machine API, or the simulator. Nightshift asks
 * for machines to be created, deleted, updated in place and their kubelets restarted; the machines
 * become (or stop being) Kubernetes nodes on their own, and Nightshift observes that.
 */
public interface MachineProvider {

    /** Machines of the pool, registered as nodes or not. */
    List<Machine> machines(String pool);

    /** A new machine that stands in for {@code surgeFor} (empty for none) and registers stamped with these hashes. */
    void create(String pool, String surgeFor, StampedHash rollHash, StampedHash kubeletHash);

    /**
     * Deletes a machine. With {@code replace}, creates its replacement (stamped with these hashes)
     * in the same call, as terminating an instance of a scaling group without lowering its size.
     */
    void delete(String pool, String machine, boolean replace, StampedHash rollHash, StampedHash kubeletHash);

    /** Starts an in-place update; the node reports the new hashes when done. No-op if one to the same target runs. */
    void updateInPlace(String machine, StampedHash rollHash, StampedHash kubeletHash);

    /** Records the hashes a machine runs when it never registers as a node (bastions): adoption and re-stamping. */
    void stamp(String machine, StampedHash rollHash, StampedHash kubeletHash);

    /** Restarts the kubelet with a new configuration; the node reports the new kubelet hash when done. */
    void restartKubelet(String machine, StampedHash kubeletHash);
}
