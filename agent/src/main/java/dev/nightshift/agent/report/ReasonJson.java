package dev.nightshift.agent.report;

import java.util.List;

import com.fasterxml.jackson.databind.node.ArrayNode;

import dev.nightshift.spec.diff.Reason;

/**
 * The reasons of a decision as JSON, the same in {@code nightshift diff --output json}, a pool's
 * {@code target} in {@code /status} and {@code plan --output json}, and the target kept in the
 * pool's status record: {@code {"path", "old", "new", "effect"}}, and {@code message} for a refusal.
 */
public final class ReasonJson {

    private ReasonJson() {
    }

    public static ArrayNode put(ArrayNode array, List<Reason> reasons) {
        for (Reason r : reasons) {
            var o = array.addObject();
            o.put("path", r.path());
            o.put("old", r.oldValue());
            o.put("new", r.newValue());
            o.put("effect", r.effect().jsonName());
            if (!r.message().isEmpty()) {
                o.put("message", r.message());
            }
        }
        return array;
    }
}
