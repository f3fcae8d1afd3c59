package dev.nightshift.agent.kube;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;

/**
 * The pod informer's store: a {@link PodSummary} per pod instead of the pod, and the pods of each node by key. The
 * informer still receives each pod whole (one page of a LIST, one watch event at a time) and drops it once summarised.
 * Writes come from the informer's one thread under its cache's lock; reads from any thread.
 */
final class PodStore implements ItemStore<Pod> {

    private final Map<String, PodSummary> byKey = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> keysByNode = new ConcurrentHashMap<>();

    /** The pods bound to {@code node}. */
    List<PodSummary> onNode(String node) {
        Set<String> keys = keysByNode.getOrDefault(node, Set.of());
        return keys.stream().map(byKey::get).filter(Objects::nonNull).toList();
    }

    @Override
    public String getKey(Pod pod) {
        return Cache.metaNamespaceKeyFunc(pod);
    }

    @Override
    public Pod put(String key, Pod pod) {
        PodSummary summary = PodSummary.of(pod);
        PodSummary old = byKey.put(key, summary);
        if (old != null && !Objects.equals(old.node(), summary.node())) {
            unindex(old.node(), key);
        }
        if (summary.node() != null) {
            keysByNode.computeIfAbsent(summary.node(), n -> ConcurrentHashMap.newKeySet()).add(key);
        }
        return old == null ? null : old.toPod();
    }

    @Override
    public Pod remove(String key) {
        PodSummary old = byKey.remove(key);
        if (old == null) {
            return null;
        }
        unindex(old.node(), key);
        return old.toPod();
    }

    private void unindex(String node, String key) {
        if (node != null) {
            keysByNode.computeIfPresent(node, (n, keys) -> {
                keys.remove(key);
                return keys.isEmpty() ? null : keys;
            });
        }
    }

    @Override
    public Stream<String> keySet() {
        return byKey.keySet().stream();
    }

    @Override
    public Stream<Pod> values() {
        return byKey.values().stream().map(PodSummary::toPod);
    }

    @Override
    public int size() {
        return byKey.size();
    }

    @Override
    public Pod get(String key) {
        PodSummary summary = byKey.get(key);
        return summary == null ? null : summary.toPod();
    }

    /** The pods handed out are summaries, not the objects the API served. */
    @Override
    public boolean isFullState() {
        return false;
    }
}
