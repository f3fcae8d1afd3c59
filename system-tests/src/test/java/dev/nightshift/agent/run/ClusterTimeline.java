package dev.nightshift.agent.run;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import java.util.stream.StreamSupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.MergePatches;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.zjsonpatch.JsonPatch;

/**
 * The nodes the embedded cluster held after each request of its log, replayed from the requests alone
 * (creations, replacements, merge and JSON patches, deletions, in the order they took effect): what
 * the cluster saw at every instant, independent of what the agent reports. A write to a node that
 * the replay cannot follow fails it rather than being guessed at.
 */
final class ClusterTimeline {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NODES = "/api/v1/nodes";

    /** The nodes, by name, right after {@code request} took effect. */
    record Moment(RecordedRequest request, Map<String, JsonNode> nodes) {

        /** The names of the pool's nodes, sorted. */
        List<String> pool(String pool) {
            return nodes.values().stream().filter(n -> pool.equals(n.path("metadata").path("labels").path(NodeMarks.POOL).asText()))
                    .map(ClusterTimeline::name).sorted().toList();
        }

        boolean exists(String node) {
            return nodes.containsKey(node);
        }

        boolean unschedulable(String node) {
            return exists(node) && nodes.get(node).path("spec").path("unschedulable").asBoolean(false);
        }

        boolean ready(String node) {
            return exists(node) && Optional.ofNullable(nodes.get(node).path("status").get("conditions")).stream()
                    .flatMap(conditions -> StreamSupport.stream(conditions.spliterator(), false))
                    .anyMatch(c -> c.path("type").asText().equals("Ready") && c.path("status").asText().equals("True"));
        }

        /** Registered, its Ready condition True, and not cordoned: a node pods can be scheduled to. */
        boolean readyAndSchedulable(String node) {
            return ready(node) && !unschedulable(node);
        }

        int readyAndSchedulableCount(String pool) {
            return (int) pool(pool).stream().filter(this::readyAndSchedulable).count();
        }

        int unschedulableCount(String pool) {
            return (int) pool(pool).stream().filter(this::unschedulable).count();
        }

        @Override
        public String toString() {
            return request.sequence() + " " + request.method() + " " + request.resourcePath() + " -> " + nodes.keySet().stream()
                    .sorted().map(n -> n + (readyAndSchedulable(n) ? "" : unschedulable(n) ? "(cordoned)" : "(not ready)")).toList();
        }
    }

    private final Map<String, JsonNode> before;
    private final List<Moment> moments;

    private ClusterTimeline(Map<String, JsonNode> before, List<Moment> moments) {
        this.before = before;
        this.moments = moments;
    }

    /** Replays {@code log} on a cluster that held {@code start}: empty for a log kept from the cluster's start. */
    static ClusterTimeline replay(List<Node> start, List<RecordedRequest> log) {
        Map<String, JsonNode> initial = new HashMap<>();
        start.forEach(n -> initial.put(n.getMetadata().getName(), JSON.valueToTree(n)));
        Map<String, JsonNode> nodes = Map.copyOf(initial);
        List<Moment> moments = new ArrayList<>();
        for (RecordedRequest r : log) {
            nodes = apply(nodes, r);
            moments.add(new Moment(r, nodes));
        }
        return new ClusterTimeline(Map.copyOf(initial), List.copyOf(moments));
    }

    /** Only the moments after the request numbered {@code sequence}, e.g. the last one before a push. */
    ClusterTimeline after(long sequence) {
        Map<String, JsonNode> state = before;
        List<Moment> later = new ArrayList<>();
        for (Moment m : moments) {
            if (m.request().sequence() <= sequence) {
                state = m.nodes();
            } else {
                later.add(m);
            }
        }
        return new ClusterTimeline(state, List.copyOf(later));
    }

    List<Moment> moments() {
        return moments;
    }

    /** The first moment at which the condition held. */
    Optional<Moment> first(Predicate<Moment> condition) {
        return moments.stream().filter(condition).findFirst();
    }

    /** The moment with the most of the pool's nodes registered (the first of them): "never more than count + maxSurge". */
    Moment mostNodes(String pool) {
        return extreme(m -> m.pool(pool).size(), Comparator.naturalOrder());
    }

    /** The moment with the fewest of the pool's nodes Ready and schedulable: "never fewer than count − maxUnavailable". */
    Moment fewestReadyAndSchedulable(String pool) {
        return extreme(m -> m.readyAndSchedulableCount(pool), Comparator.reverseOrder());
    }

    /** The moment with the most of the pool's nodes cordoned at once. */
    Moment mostUnschedulable(String pool) {
        return extreme(m -> m.unschedulableCount(pool), Comparator.naturalOrder());
    }

    private Moment extreme(ToIntFunction<Moment> measure, Comparator<Integer> order) {
        Moment best = moments.get(0);
        for (Moment m : moments) {
            if (order.compare(measure.applyAsInt(m), measure.applyAsInt(best)) > 0) {
                best = m;
            }
        }
        return best;
    }

    /** How many times each node went from schedulable (or absent) to cordoned: one drain each, or a node drained twice. */
    Map<String, Integer> cordons() {
        Map<String, Integer> cordons = new LinkedHashMap<>();
        Moment previous = new Moment(moments.get(0).request(), before);
        for (Moment m : moments) {
            for (String node : m.nodes().keySet()) {
                if (m.unschedulable(node) && !previous.unschedulable(node)) {
                    cordons.merge(node, 1, Integer::sum);
                }
            }
            previous = m;
        }
        return cordons;
    }

    /** The nodes after {@code r}; the same map when {@code r} changed no node. */
    private static Map<String, JsonNode> apply(Map<String, JsonNode> nodes, RecordedRequest r) {
        String path = r.resourcePath();
        if (!r.isWrite() || !r.succeeded() || !(path.equals(NODES) || path.startsWith(NODES + "/"))) {
            return nodes;
        }
        // "/api/v1/nodes" → [""], "/api/v1/nodes/a" → ["", "a"], "/api/v1/nodes/a/status" → ["", "a", "status"]
        String[] parts = path.substring(NODES.length()).split("/");
        Map<String, JsonNode> next = new HashMap<>(nodes);
        try {
            if (parts.length == 1 && r.method().equals("POST")) {
                JsonNode created = JSON.readTree(r.body());
                next.put(name(created), created);
            } else if (parts.length == 2 && r.method().equals("DELETE")) {
                next.remove(parts[1]);
            } else if ((parts.length == 2 || (parts.length == 3 && parts[2].equals("status"))) && nodes.containsKey(parts[1])) {
                next.put(parts[1], changed(nodes.get(parts[1]), r, parts.length == 3));
            } else {
                throw new IllegalStateException("a node write the replay does not follow");
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot replay request " + r + ": " + e.getMessage(), e);
        }
        return Map.copyOf(next);
    }

    private static JsonNode changed(JsonNode node, RecordedRequest r, boolean statusOnly) throws Exception {
        JsonNode body = JSON.readTree(r.body());
        if (r.method().equals("PUT")) {
            return statusOnly ? ((ObjectNode) node.deepCopy()).set("status", body.get("status")) : body;
        }
        if (r.method().equals("PATCH") && r.contentType().startsWith("application/merge-patch+json")) {
            return MergePatches.merge(node.deepCopy(), body);
        }
        if (r.method().equals("PATCH") && r.contentType().startsWith("application/json-patch+json")) {
            return JsonPatch.apply(body, node);
        }
        throw new IllegalStateException("a node write the replay does not follow");
    }

    private static String name(JsonNode node) {
        return node.path("metadata").path("name").asText();
    }
}
