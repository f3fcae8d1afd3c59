package dev.nightshift.agent.provider.capi;

import java.util.Iterator;
import java.util.Map;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Writes at a JSON pointer and merges JSON merge patches (RFC 7386) into Jackson trees. */
final class JsonObjects {

    private JsonObjects() {
    }

    /** Sets {@code value} at {@code pointer} (RFC 6901), creating the objects on the way; an array on the way is an error. */
    static void set(ObjectNode root, String pointer, JsonNode value) {
        JsonPointer path = JsonPointer.compile(pointer);
        if (path.matches()) {
            throw new IllegalArgumentException("cannot replace the whole object");
        }
        ObjectNode parent = root;
        JsonPointer rest = path;
        while (!rest.tail().matches()) {
            String key = rest.getMatchingProperty();
            JsonNode next = parent.get(key);
            if (next == null || next.isNull()) {
                next = parent.putObject(key);
            }
            if (!next.isObject()) {
                throw new IllegalArgumentException(pointer + ": " + key + " is not an object");
            }
            parent = (ObjectNode) next;
            rest = rest.tail();
        }
        parent.set(rest.getMatchingProperty(), value);
    }

    /** Merges {@code patch} into {@code target} as a JSON merge patch (RFC 7386): null removes, objects merge, the rest replaces. */
    static void merge(ObjectNode target, JsonNode patch) {
        Iterator<Map.Entry<String, JsonNode>> fields = patch.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> e = fields.next();
            JsonNode value = e.getValue();
            if (value.isNull()) {
                target.remove(e.getKey());
            } else if (value.isObject() && target.get(e.getKey()) instanceof ObjectNode existing) {
                merge(existing, value);
            } else if (value.isObject()) {
                ObjectNode fresh = target.putObject(e.getKey());
                merge(fresh, value);
            } else {
                target.set(e.getKey(), value.deepCopy());
            }
        }
    }
}
