package dev.nightshift.sandbox.capi;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/** Reading and writing Cluster API objects as JSON trees through fabric8's generic resources. */
final class CapiObjects {

    static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final String namespace;

    CapiObjects(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    List<ObjectNode> list(ResourceDefinitionContext kind) {
        List<ObjectNode> items = new ArrayList<>();
        for (GenericKubernetesResource item : client.genericKubernetesResources(kind).inNamespace(namespace).list().getItems()) {
            items.add(tree(item));
        }
        return items;
    }

    ObjectNode create(ResourceDefinitionContext kind, ObjectNode object) {
        return tree(client.genericKubernetesResources(kind).inNamespace(namespace).resource(resource(object)).create());
    }

    void mergePatch(ResourceDefinitionContext kind, String name, ObjectNode patch) {
        client.genericKubernetesResources(kind).inNamespace(namespace).withName(name)
                .patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
    }

    /** Replaces the status of {@code object} (which carries the resourceVersion it was read at; 409 when stale). */
    void updateStatus(ResourceDefinitionContext kind, ObjectNode object) {
        client.genericKubernetesResources(kind).inNamespace(namespace).resource(resource(object)).updateStatus();
    }

    void delete(ResourceDefinitionContext kind, String name) {
        client.genericKubernetesResources(kind).inNamespace(namespace).withName(name).delete();
    }

    GenericKubernetesResource resource(ObjectNode object) {
        return client.getKubernetesSerialization().unmarshal(object.toString(), GenericKubernetesResource.class);
    }

    ObjectNode tree(Object resource) {
        try {
            return (ObjectNode) JSON.readTree(client.getKubernetesSerialization().asJson(resource));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("the client's own JSON always parses", e);
        }
    }

    static String name(JsonNode object) {
        return object.path("metadata").path("name").asText();
    }

    static String label(JsonNode object, String key) {
        return object.path("metadata").path("labels").path(key).asText("");
    }

    static boolean hasAnnotation(JsonNode object, String key) {
        return object.path("metadata").path("annotations").has(key);
    }

    static String annotation(JsonNode object, String key) {
        return object.path("metadata").path("annotations").path(key).asText("");
    }

    static boolean deleting(JsonNode object) {
        return !object.path("metadata").path("deletionTimestamp").asText("").isEmpty();
    }

    static Optional<Instant> created(JsonNode object) {
        String value = object.path("metadata").path("creationTimestamp").asText("");
        return value.isEmpty() ? Optional.empty() : Optional.of(Instant.parse(value));
    }

    static ObjectNode objectAt(ObjectNode parent, String... path) {
        ObjectNode node = parent;
        for (String field : path) {
            JsonNode child = node.get(field);
            if (child == null || !child.isObject()) {
                child = node.putObject(field);
            }
            node = (ObjectNode) child;
        }
        return node;
    }

    /** The v1beta2 condition of {@code type} in {@code status.conditions}, if any. */
    static Optional<JsonNode> condition(JsonNode object, String type) {
        for (JsonNode condition : object.path("status").path("conditions")) {
            if (type.equals(condition.path("type").asText())) {
                return Optional.of(condition);
            }
        }
        return Optional.empty();
    }

    /**
     * Sets a {@code metav1.Condition} (v1beta2 conditions) in {@code status}, keeping its lastTransitionTime when its
     * status does not change.
     */
    static void setCondition(ObjectNode status, String type, boolean value, String reason, String message, Instant now,
            long generation) {
        ArrayNode conditions = status.has("conditions") && status.get("conditions").isArray()
                ? (ArrayNode) status.get("conditions") : status.putArray("conditions");
        String text = value ? "True" : "False";
        for (JsonNode existing : conditions) {
            if (type.equals(existing.path("type").asText())) {
                ObjectNode condition = (ObjectNode) existing;
                if (!text.equals(condition.path("status").asText())) {
                    condition.put("lastTransitionTime", now.toString());
                }
                condition.put("status", text).put("reason", reason).put("message", message).put("observedGeneration", generation);
                return;
            }
        }
        conditions.addObject().put("type", type).put("status", text).put("observedGeneration", generation)
                .put("lastTransitionTime", now.toString()).put("reason", reason).put("message", message);
    }
}
