package dev.nightshift.agent.notify;

import java.util.Map;

/** Where the {@link Ledger} is kept across restarts: a ConfigMap beside the pool records in the agent, a map in tests. */
interface LedgerStore {

    /** The data kept, by commit; empty when nothing was kept yet. */
    Map<String, String> load();

    void save(Map<String, String> data);
}
