package dev.nightshift.agent.notify;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The one JSON schema of events (docs/operations/notifications.md): {@code schema}, {@code id}, {@code type},
 * {@code time}, {@code cluster}, {@code commit}, {@code pool} (null when the event concerns no one pool),
 * {@code message} and the type's {@code data}. Fields are only ever added within a version.
 */
public final class EventJson {

    /** The schema's name and version; a change that is not only an addition makes a new version. */
    public static final String SCHEMA = "nightshift.dev/event/v1";

    private static final ObjectMapper JSON = new ObjectMapper();

    private EventJson() {
    }

    public static ObjectNode tree(NotificationEvent e) {
        ObjectNode o = JSON.createObjectNode();
        o.put("schema", SCHEMA);
        o.put("id", e.id());
        o.put("type", e.type().wireName());
        o.put("time", e.time().toString());
        o.put("cluster", e.cluster());
        o.put("commit", e.commit());
        o.put("pool", e.pool().orElse(null));
        o.put("message", e.message());
        ObjectNode data = o.putObject("data");
        e.data().forEach((k, v) -> put(data, k, v));
        return o;
    }

    public static byte[] bytes(NotificationEvent e) {
        return tree(e).toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void put(ObjectNode o, String key, Object value) {
        if (value == null) {
            o.putNull(key);
        } else if (value instanceof Integer i) {
            o.put(key, i);
        } else if (value instanceof Long l) {
            o.put(key, l);
        } else if (value instanceof Boolean b) {
            o.put(key, b);
        } else if (value instanceof List<?> list) {
            ArrayNode a = o.putArray(key);
            for (Object item : list) {
                if (item instanceof Map<?, ?> m) {
                    ObjectNode child = a.addObject();
                    m.forEach((k, v) -> put(child, String.valueOf(k), v));
                } else {
                    a.add(String.valueOf(item));
                }
            }
        } else if (value instanceof Map<?, ?> m) {
            ObjectNode child = o.putObject(key);
            m.forEach((k, v) -> put(child, String.valueOf(k), v));
        } else {
            o.put(key, String.valueOf(value));
        }
    }
}
