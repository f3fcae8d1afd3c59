package dev.nightshift.agent.notify;

import java.util.HashMap;
import java.util.Map;

/** The ledger's store as a map, standing for the ConfigMap; {@link #saves} counts the writes. */
final class MapLedgerStore implements LedgerStore {

    Map<String, String> data = new HashMap<>();
    int saves;

    @Override
    public Map<String, String> load() {
        return Map.copyOf(data);
    }

    @Override
    public void save(Map<String, String> data) {
        this.data = new HashMap<>(data);
        saves++;
    }
}
