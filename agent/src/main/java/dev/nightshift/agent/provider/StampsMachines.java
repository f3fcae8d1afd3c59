package dev.nightshift.agent.provider;

import dev.nightshift.spec.hash.StampedHash;

/**
 * A provider whose backend makes machines on its own from templates shared by several machines (Cluster API's
 * MachineSets replace a Machine a MachineHealthCheck deleted): a machine's hashes are kept on its own record too, not
 * only on its node, once Nightshift stamps the node (at adoption, or a re-stamp). A machine the backend makes later
 * without hashes can then be told from its siblings' records what it was built as, instead of being adopted at
 * whatever spec Nightshift acts on by then. Backends that make machines only when Nightshift asks (the machine API, the
 * simulator) need no such record: their machines carry the hashes they were asked with.
 */
public interface StampsMachines {

    /** The registered node {@code node} of {@code pool} was stamped with these hashes: its machine's record gets them too. */
    void stamped(String pool, String node, StampedHash rollHash, StampedHash kubeletHash);
}
