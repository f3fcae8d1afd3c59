package dev.nightshift.sandbox.embedded;

import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;

/**
 * JSON merge patch (RFC 7386) as the API server applies it. The mock store merges arrays by
 * appending, where a merge patch replaces them: a patch that sets a node's taints would pile up
 * copies. Here the patch is merged by the RFC, checked against the resourceVersion it carries
 * (409 when the object changed, as the API server answers), and handed to the store as a JSON
 * patch of the changed top-level fields.
 */
public final class MergePatches {

    static final String MERGE_PATCH = "application/merge-patch+json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesCrudDispatcher store;
    private final ApiResponses responses;

    MergePatches(KubernetesCrudDispatcher store, ApiResponses responses) {
        this.store = store;
        this.responses = responses;
    }

    static boolean applies(HttpMethod method, String contentType) {
        return method == HttpMethod.PATCH && contentType.startsWith(MERGE_PATCH);
    }

    MockResponse apply(RecordedRequest request, String resourcePath, String body) {
        return apply(request, resourcePath, body, (path, object) -> object);
    }

    /** As {@link #apply(RecordedRequest, String, String)}, with {@code admission} seeing the merged object first. */
    MockResponse apply(RecordedRequest request, String resourcePath, String body, Admission admission) {
        MockResponse current = store.handleGet(resourcePath);
        if (current.code() != 200) {
            return current;
        }
        try {
            JsonNode object = JSON.readTree(current.getBody().readUtf8());
            JsonNode patch = JSON.readTree(body);
            String expected = patch.path("metadata").path("resourceVersion").asText("");
            String actual = object.path("metadata").path("resourceVersion").asText("");
            if (!expected.isEmpty() && !expected.equals(actual)) {
                return responses.failure(409, "Conflict", "Operation cannot be fulfilled: the object has been modified; "
                        + "please apply your changes to the latest version and try again");
            }
            if (patch.path("metadata").isObject()) {
                ((ObjectNode) patch.get("metadata")).remove("resourceVersion");
            }
            JsonNode merged = merge(object.deepCopy(), patch);
            if (merged.isObject()) {
                merged = admission.admit(resourcePath, (ObjectNode) merged);
            }
            return store.handlePatch(asJsonPatch(request, object, merged));
        } catch (Exception e) {
            return responses.failure(400, "BadRequest", "invalid merge patch: " + e.getMessage());
        }
    }

    /**
     * A JSON patch request, at {@code request}'s path, that turns {@code object} into {@code changed} by replacing
     * the top-level fields that differ.
     */
    static RecordedRequest asJsonPatch(RecordedRequest request, JsonNode object, JsonNode changed) {
        try {
            JsonNode merged = changed;
            ArrayNode ops = JSON.createArrayNode();
            Set<String> fields = new LinkedHashSet<>();
            object.fieldNames().forEachRemaining(fields::add);
            merged.fieldNames().forEachRemaining(fields::add);
            for (String field : fields) {
                JsonNode before = object.get(field);
                JsonNode after = merged.get(field);
                if (after == null) {
                    ops.addObject().put("op", "remove").put("path", "/" + field);
                } else if (!after.equals(before)) {
                    ops.addObject().put("op", before == null ? "add" : "replace").put("path", "/" + field).set("value", after);
                }
            }
            Headers headers = Headers.builder().add("Content-Type", "application/json-patch+json").build();
            return new RecordedRequest(request.getHttpVersion(), HttpMethod.PATCH, request.getPath(), headers,
                    new Buffer().writeString(JSON.writeValueAsString(ops), StandardCharsets.UTF_8));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serialises", e);
        }
    }

    /**
     * RFC 7386: objects merge field by field, null removes, everything else (arrays too) replaces.
     * Changes {@code target} where it is an object; tests replaying the request log use it too.
     */
    public static JsonNode merge(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch;
        }
        ObjectNode result = target != null && target.isObject() ? (ObjectNode) target : JSON.createObjectNode();
        Iterator<Map.Entry<String, JsonNode>> fields = patch.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            if (f.getValue().isNull()) {
                result.remove(f.getKey());
            } else {
                result.set(f.getKey(), merge(result.get(f.getKey()), f.getValue()));
            }
        }
        return result;
    }
}
