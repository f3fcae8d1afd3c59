package dev.nightshift.agent.kube;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import dev.nightshift.agent.eta.PoolDurations;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The node-work durations each pool's status record keeps ({@link PoolStatusRecords#durations}),
 * read once with one LIST of the records in the agent's namespace (no watch, nothing written): what
 * {@code nightshift diff --kubeconfig} estimates with.
 */
public final class RecordedDurations {

    private RecordedDurations() {
    }

    /** By pool, from the ConfigMaps labelled {@value PoolStatusRecords#LABEL} in {@code namespace}; a pool without a record is absent. */
    public static Map<String, PoolDurations> byPool(KubernetesClient client, String namespace) {
        Map<String, PoolDurations> byPool = new TreeMap<>();
        for (ConfigMap map : client.configMaps().inNamespace(namespace).withLabel(PoolStatusRecords.LABEL).list().getItems()) {
            pool(map).ifPresent(pool -> byPool.put(pool, PoolStatusRecords.durations(map)));
        }
        return byPool;
    }

    /** The pool a record is for: its label's value, as the agent writes it. */
    private static Optional<String> pool(ConfigMap map) {
        return Optional.ofNullable(map.getMetadata().getLabels()).map(l -> l.get(PoolStatusRecords.LABEL)).filter(p -> !p.isBlank());
    }
}
