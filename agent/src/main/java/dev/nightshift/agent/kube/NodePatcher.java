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
 */
public final class NodePatcher {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ATTEMPTS = 5;

    private final KubernetesClient client;

    public NodePatcher(KubernetesClient client) {
        this.client = client;
    }

    /**
     * Applies the merge patch {@code change} computes from the node as it is now; no patch when it
     * returns empty. Returns false when the node is gone.
     */
    public boolean patch(String name, Function<Node, Optional<Map<String, Object>>> change) {
        for (int attempt = 1; ; attempt++) {
            Node node = client.nodes().withName(name).get();
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
                client.nodes().withName(name).patch(PatchContext.of(PatchType.JSON_MERGE), JSON.writeValueAsString(body));
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
