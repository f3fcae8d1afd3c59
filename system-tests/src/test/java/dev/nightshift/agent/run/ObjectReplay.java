package dev.nightshift.agent.run;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.sandbox.embedded.MergePatches;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatch;

/**
 * The namespaced objects of one kind (pods, Machines, MachineDeployments) replayed from the request log, one request
 * at a time, as {@link ClusterTimeline} replays nodes: creations, replacements, merge and JSON patches (of the object
 * or its status), deletions — which only mark an object that still has finalizers, as the API server does — and, for
 * pods, successful evictions. A write the replay cannot follow fails it rather than being guessed at.
 */
final class ObjectReplay {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String apiPrefix;
    private final String plural;
    /** By {@code namespace/name}. */
    private final Map<String, JsonNode> objects = new HashMap<>();

    /**
     * @param apiPrefix e.g. {@code /api/v1} or {@code /apis/cluster.x-k8s.io/v1beta2}
     * @param plural    e.g. {@code pods}, {@code machines}
     * @param start     the objects as they were when the log starts (any fabric8 object, serialised as the API would)
     */
    ObjectReplay(String apiPrefix, String plural, Collection<?> start) {
        this.apiPrefix = apiPrefix;
        this.plural = plural;
        for (Object o : start) {
            JsonNode tree = JSON.valueToTree(o);
            objects.put(key(tree.at("/metadata/namespace").asText(), tree.at("/metadata/name").asText()), tree);
        }
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }

    /** The objects now, by {@code namespace/name}; a copy. */
    Map<String, JsonNode> objects() {
        return Map.copyOf(objects);
    }

    Optional<JsonNode> get(String namespace, String name) {
        return Optional.ofNullable(objects.get(key(namespace, name)));
    }

    /** The request's target when it is about this kind: [namespace, name or "", subresource or ""]; else empty. */
    Optional<String[]> target(RecordedRequest r) {
        String path = r.resourcePath();
        if (!path.startsWith(apiPrefix + "/namespaces/")) {
            return Optional.empty();
        }
        String[] parts = path.substring((apiPrefix + "/namespaces/").length()).split("/");
        if (parts.length < 2 || parts.length > 4 || !parts[1].equals(plural)) {
            return Optional.empty();
        }
        return Optional.of(new String[] {parts[0], parts.length > 2 ? parts[2] : "", parts.length > 3 ? parts[3] : ""});
    }

    /** Applies {@code r} if it is a write of this kind that took effect. */
    void apply(RecordedRequest r) {
        Optional<String[]> t = target(r);
        if (t.isEmpty() || !r.isWrite() || !r.succeeded()) {
            return;
        }
        String namespace = t.get()[0];
        String name = t.get()[1];
        String sub = t.get()[2];
        String key = key(namespace, name);
        try {
            if (name.isEmpty() && r.method().equals("POST")) {
                ObjectNode created = (ObjectNode) JSON.readTree(r.body());
                ((ObjectNode) created.with("metadata")).put("namespace", namespace);
                objects.put(key(namespace, created.at("/metadata/name").asText()), created);
            } else if (sub.equals("eviction") && r.method().equals("POST")) {
                objects.remove(key);
            } else if (sub.isEmpty() && !name.isEmpty() && r.method().equals("DELETE")) {
                JsonNode o = objects.get(key);
                if (o != null && o.at("/metadata/finalizers").size() > 0) {
                    ObjectNode marked = o.deepCopy();
                    ((ObjectNode) marked.with("metadata")).put("deletionTimestamp", r.time().toString());
                    objects.put(key, marked);
                } else {
                    objects.remove(key);
                }
            } else if (!name.isEmpty() && (sub.isEmpty() || sub.equals("status")) && objects.containsKey(key)) {
                JsonNode changed = changed(objects.get(key), r, sub.equals("status"));
                if (changed.at("/metadata/deletionTimestamp").isTextual() && changed.at("/metadata/finalizers").size() == 0) {
                    objects.remove(key);
                } else {
                    objects.put(key, changed);
                }
            } else if (!name.isEmpty() && !objects.containsKey(key)) {
                // A write to an object the replay does not hold: one created and gone before the log started.
                return;
            } else {
                throw new IllegalStateException("a write the replay does not follow");
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot replay request " + r + ": " + e.getMessage(), e);
        }
    }

    private static JsonNode changed(JsonNode o, RecordedRequest r, boolean statusOnly) throws Exception {
        JsonNode body = JSON.readTree(r.body());
        if (r.method().equals("PUT")) {
            return statusOnly ? ((ObjectNode) o.deepCopy()).set("status", body.get("status")) : body;
        }
        if (r.method().equals("PATCH") && r.contentType().startsWith("application/merge-patch+json")) {
            return MergePatches.merge(o.deepCopy(), body);
        }
        if (r.method().equals("PATCH") && r.contentType().startsWith("application/json-patch+json")) {
            return JsonPatch.apply(body, o);
        }
        throw new IllegalStateException("a write the replay does not follow");
    }
}
