package dev.nightshift.agent.provider;

/**
 * A provider that is not watched (an HTTP API) and keeps its listings across passes: it lists each pool at most once
 * per pass, and uses a listing again only while nothing says it changed.
 */
public interface ListingCache {

    /** A pass begins: what was read for the last one may be stale. */
    void refresh();

    /**
     * A node of {@code pool} changed in a way that can change a plan (a condition, a label, a taint, a deletion; not a
     * heartbeat): the pool is read again at the next pass, the node may be news of its machine.
     */
    void nodeChanged(String pool);

    /**
     * A node without a pool label arrived: the node of a machine registering. A pool whose listing names that node, or
     * has a running machine whose node is not known yet, is read again at the next pass.
     */
    void nodeRegistered(String node);

    /**
     * A pass is about to read {@code pools}: those it may not use the last listing of are listed now, at once rather than
     * one after another (a pass of ten pools rolling lists ten). A listing that fails is left for the pool's own read,
     * which reports it as before.
     */
    default void listAhead(java.util.Collection<String> pools) {
    }
}
