package dev.nightshift.agent.provider.http;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The machine API's JSON, both ways, for the client and the sandbox's server. Reading is strict
 * where a wrong value could move a machine (an unknown state, a missing id) and says which field
 * is wrong; {@link MalformedJson} carries that.
 */
public final class MachineApiJson {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, Object>> OBJECT = new TypeReference<>() {
    };

    private MachineApiJson() {
    }

    /** JSON that does not say what the API says it must, with the field that is wrong. */
    public static final class MalformedJson extends RuntimeException {
        public MalformedJson(String message) {
            super(message);
        }
    }

    // ---- Machine ----

    public static String machine(ApiMachine m) {
        return machineNode(m).toString();
    }

    public static String machineList(List<ApiMachine> machines) {
        ObjectNode o = JSON.createObjectNode();
        ArrayNode items = o.putArray("machines");
        machines.forEach(m -> items.add(machineNode(m)));
        return o.toString();
    }

    private static ObjectNode machineNode(ApiMachine m) {
        ObjectNode o = JSON.createObjectNode();
        o.put("id", m.id());
        o.put("pool", m.pool());
        o.put("nodeName", m.nodeName());
        o.put("state", m.state().json());
        o.put("createdAt", m.createdAt().toString());
        o.set("annotations", JSON.valueToTree(new java.util.TreeMap<>(m.annotations())));
        o.put("message", m.message());
        return o;
    }

    public static ApiMachine readMachine(String body) {
        return readMachine(parse(body), "");
    }

    public static List<ApiMachine> readMachineList(String body) {
        JsonNode root = parse(body);
        JsonNode items = root.get("machines");
        if (items == null || !items.isArray()) {
            throw new MalformedJson("field \"machines\" must be an array");
        }
        List<ApiMachine> machines = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            machines.add(readMachine(items.get(i), "machines[" + i + "]."));
        }
        return machines;
    }

    private static ApiMachine readMachine(JsonNode o, String at) {
        if (!o.isObject()) {
            throw new MalformedJson((at.isEmpty() ? "the answer" : at.substring(0, at.length() - 1)) + " must be an object");
        }
        String id = requiredText(o, at, "id");
        String pool = requiredText(o, at, "pool");
        String stateText = requiredText(o, at, "state");
        MachineState state = MachineState.of(stateText).orElseThrow(() -> new MalformedJson("field \"" + at + "state\" is \""
                + stateText + "\", not one of creating, running, updating, deleting, failed"));
        String created = requiredText(o, at, "createdAt");
        Instant createdAt;
        try {
            createdAt = java.time.OffsetDateTime.parse(created).toInstant();
        } catch (DateTimeParseException e) {
            throw new MalformedJson("field \"" + at + "createdAt\" is \"" + created + "\", not an RFC 3339 time");
        }
        return new ApiMachine(id, pool, optionalText(o, at, "nodeName"), state, createdAt, stringMap(o.get("annotations"), at + "annotations"),
                optionalText(o, at, "message"));
    }

    // ---- requests ----

    public static String machineRequest(MachineRequest r) {
        ObjectNode o = JSON.createObjectNode();
        o.set("labels", JSON.valueToTree(new java.util.TreeMap<>(r.labels())));
        o.set("annotations", JSON.valueToTree(new java.util.TreeMap<>(r.annotations())));
        ArrayNode taints = o.putArray("taints");
        for (MachineRequest.Taint t : r.taints()) {
            ObjectNode n = taints.addObject();
            n.put("key", t.key());
            n.put("value", t.value());
            n.put("effect", t.effect());
        }
        o.set("spec", specNode(r.spec()));
        return o.toString();
    }

    public static MachineRequest readMachineRequest(String body) {
        JsonNode o = object(parse(body), "the body");
        JsonNode taintsNode = o.get("taints");
        if (taintsNode == null || !taintsNode.isArray()) {
            throw new MalformedJson("field \"taints\" must be an array");
        }
        List<MachineRequest.Taint> taints = new ArrayList<>();
        for (int i = 0; i < taintsNode.size(); i++) {
            JsonNode t = object(taintsNode.get(i), "taints[" + i + "]");
            taints.add(new MachineRequest.Taint(requiredText(t, "taints[" + i + "].", "key"), optionalText(t, "taints[" + i + "].", "value"),
                    requiredText(t, "taints[" + i + "].", "effect")));
        }
        return new MachineRequest(requiredStringMap(o, "labels"), requiredStringMap(o, "annotations"), taints, readSpec(o.get("spec")));
    }

    public static String updateRequest(UpdateRequest r) {
        ObjectNode o = JSON.createObjectNode();
        o.put("operation", r.operation().json());
        o.set("annotations", JSON.valueToTree(new java.util.TreeMap<>(r.annotations())));
        o.set("spec", specNode(r.spec()));
        return o.toString();
    }

    public static UpdateRequest readUpdateRequest(String body) {
        JsonNode o = object(parse(body), "the body");
        String op = requiredText(o, "", "operation");
        UpdateRequest.Operation operation = UpdateRequest.Operation.of(op).orElseThrow(() -> new MalformedJson(
                "field \"operation\" is \"" + op + "\", not in-place-update or restart-kubelet"));
        return new UpdateRequest(operation, requiredStringMap(o, "annotations"), readSpec(o.get("spec")));
    }

    /** {@code {"annotations": …}}; a null value removes the key (RFC 7386). */
    public static String annotationsPatch(Map<String, String> annotations) {
        ObjectNode o = JSON.createObjectNode();
        ObjectNode a = o.putObject("annotations");
        new java.util.TreeMap<>(annotations).forEach(a::put);
        return o.toString();
    }

    /** The annotations of a merge patch, null values kept (they remove keys). */
    public static Map<String, String> readAnnotationsPatch(String body) {
        JsonNode o = object(parse(body), "the body");
        JsonNode a = o.get("annotations");
        if (a == null || !a.isObject()) {
            throw new MalformedJson("field \"annotations\" must be an object");
        }
        Map<String, String> patch = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = a.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isNull() && !e.getValue().isTextual()) {
                throw new MalformedJson("field \"annotations." + e.getKey() + "\" must be a string or null");
            }
            patch.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText());
        }
        return patch;
    }

    private static ObjectNode specNode(MachineSpec s) {
        ObjectNode o = JSON.createObjectNode();
        o.put("machineType", s.machineType());
        ObjectNode image = o.putObject("image");
        image.put("name", s.image().name());
        image.put("version", s.image().version());
        if (s.volume() == null) {
            o.putNull("volume");
        } else {
            ObjectNode v = o.putObject("volume");
            v.put("type", s.volume().type());
            v.put("size", s.volume().size());
        }
        o.put("cri", s.cri());
        o.put("kubernetesVersion", s.kubernetesVersion());
        o.set("kubelet", JSON.valueToTree(s.kubelet()));
        o.set("providerConfig", JSON.valueToTree(s.providerConfig()));
        return o;
    }

    private static MachineSpec readSpec(JsonNode node) {
        JsonNode o = object(node, "spec");
        JsonNode image = object(o.get("image"), "spec.image");
        JsonNode volume = o.get("volume");
        MachineSpec.Volume v = volume == null || volume.isNull() ? null
                : new MachineSpec.Volume(requiredText(object(volume, "spec.volume"), "spec.volume.", "type"),
                        requiredText(volume, "spec.volume.", "size"));
        return new MachineSpec(requiredText(o, "spec.", "machineType"),
                new MachineSpec.Image(requiredText(image, "spec.image.", "name"), requiredText(image, "spec.image.", "version")),
                v, requiredText(o, "spec.", "cri"), requiredText(o, "spec.", "kubernetesVersion"),
                JSON.convertValue(object(o.get("kubelet"), "spec.kubelet"), OBJECT),
                JSON.convertValue(object(o.get("providerConfig"), "spec.providerConfig"), OBJECT));
    }

    // ---- errors ----

    public static String error(String message) {
        ObjectNode o = JSON.createObjectNode();
        o.put("message", message);
        return o.toString();
    }

    /** The {@code message} of an error answer, if the body is one. */
    public static Optional<String> errorMessage(String body) {
        try {
            JsonNode m = JSON.readTree(body).get("message");
            return m != null && m.isTextual() ? Optional.of(m.asText()) : Optional.empty();
        } catch (JsonProcessingException | RuntimeException e) {
            return Optional.empty();
        }
    }

    // ---- helpers ----

    private static JsonNode parse(String body) {
        try {
            JsonNode node = JSON.readTree(body);
            if (node == null || node.isMissingNode()) {
                throw new MalformedJson("the body is empty, not JSON");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new MalformedJson("not JSON: " + e.getOriginalMessage() + " at line " + e.getLocation().getLineNr()
                    + ", column " + e.getLocation().getColumnNr());
        }
    }

    private static JsonNode object(JsonNode node, String what) {
        if (node == null || !node.isObject()) {
            throw new MalformedJson("field \"" + what + "\" must be an object");
        }
        return node;
    }

    private static String requiredText(JsonNode o, String at, String field) {
        JsonNode v = o.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new MalformedJson("field \"" + at + field + "\" must be a non-empty string");
        }
        return v.asText();
    }

    private static String optionalText(JsonNode o, String at, String field) {
        JsonNode v = o.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new MalformedJson("field \"" + at + field + "\" must be a string or null");
        }
        return v.asText();
    }

    /** A field the API requires, as an object of strings (the OpenAPI file's {@code required}). */
    private static Map<String, String> requiredStringMap(JsonNode o, String field) {
        JsonNode node = o.get(field);
        if (node == null || !node.isObject()) {
            throw new MalformedJson("field \"" + field + "\" must be an object of strings");
        }
        return stringMap(node, field);
    }

    private static Map<String, String> stringMap(JsonNode node, String what) {
        if (node == null || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw new MalformedJson("field \"" + what + "\" must be an object of strings");
        }
        Map<String, String> map = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isTextual()) {
                throw new MalformedJson("field \"" + what + "." + e.getKey() + "\" must be a string");
            }
            map.put(e.getKey(), e.getValue().asText());
        }
        return map;
    }
}
