package dev.nightshift.spec.diff;

import java.util.Map;
import java.util.Set;

/**
 * What the agent recorded about a pool's in-place updates: whether the last one is unfinished,
 * and which force tokens were already spent.
 */
public record InPlaceHistory(Map<String, Entry> byPool) {

    public static final InPlaceHistory NONE = new InPlaceHistory(Map.of());

    public InPlaceHistory {
        byPool = Map.copyOf(byPool);
    }

    public record Entry(boolean unfinished, Set<String> usedForceTokens) {
        public static final Entry CLEAN = new Entry(false, Set.of());

        public Entry {
            usedForceTokens = Set.copyOf(usedForceTokens);
        }
    }

    public static String key(String cluster, String pool) {
        return cluster + "/" + pool;
    }

    public Entry of(String cluster, String pool) {
        return byPool.getOrDefault(key(cluster, pool), Entry.CLEAN);
    }
}
