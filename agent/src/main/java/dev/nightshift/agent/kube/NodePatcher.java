package dev.nightshift.agent.kube;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * Changes nodes with JSON merge patches that carry the resourceVersion they were computed from:
 * if someone else changed the node in between, the API answers 409 and the change is computed
 * again from a fresh read. Labels and taints others own are therefore never overwritten.
 *
 * <p>With a cache (the informer's nodes, from which the step was planned), the first attempt is computed from the
 * cached node and needs no read: a cache behind the API server (our own last write not seen yet, someone else's change)
 * carries an old resourceVersion, the API answers 409, and the change is computed again from a read. Every node write
 * of a reconcile cost a GET before (two: fabric8 read the node again before a patch by name); ten pools rolling at once
 * made them nearly half of the agent's Kubernetes requests besides evictions.
 */
public final class NodePatcher {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ATTEMPTS = 5;

    private final KubernetesClient client;
    private final Function<String, Optional<Node>> cache;

    /** Every attempt computed from a read. */
    public NodePatcher(KubernetesClient client) {
        this(client, name -> Optional.empty());
    }

    /** @param cache the node as last observed, the first attempt's base; empty: read it */
    public NodePatcher(KubernetesClient client, Function<String, Optional<Node>> cache) {
        this.client = client;
        this.cache = cache;
    }

    /**
     * Applies the merge patch {@code change} computes from the node as it is now; no patch when it
     * returns empty. Returns false when the node is gone.
     */
    public boolean patch(String name, Function<Node, Optional<Map<String, Object>>> change) {
        for (int attempt = 1; ; attempt++) {
            Node node = (attempt == 1 ? cache.apply(name) : Optional.<Node>empty()).orElseGet(() -> client.nodes().withName(name).get());
            if (node == null) {
                return false;
            }
            Optional<Map<String, Object>> patch = change.apply(node);
            if (patch.isEmpty()) {
                return true;
            }
            Map<String, Object> body = new java.util.HashMap<>(patch.get());
            @SuppressWarnings("unchecked")
            Map<String, Object> metadata = new java.util.HashMap<>((Map<String, Object>) body.getOrDefault("metadata", Map.of()));
            metadata.put("resourceVersion", node.getMetadata().getResourceVersion());
            body.put("metadata", metadata);
            try {
                // On the node object, not by name: fabric8 reads a resource named only by name before patching it.
                client.nodes().resource(node).patch(PatchContext.of(PatchType.JSON_MERGE), JSON.writeValueAsString(body));
                return true;
            } catch (KubernetesClientException e) {
                if (e.getCode() == 404) {
                    return false;
                }
                if (e.getCode() != 409 || attempt == ATTEMPTS) {
                    throw e;
                }
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("a patch of plain values always serialises", e);
            }
        }
    }
}
