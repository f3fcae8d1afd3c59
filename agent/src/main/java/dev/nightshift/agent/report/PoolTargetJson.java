package dev.nightshift.agent.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.spec.diff.Effect;
import dev.nightshift.spec.diff.PoolAction;
import dev.nightshift.spec.diff.PoolTarget;
import dev.nightshift.agent.report.ReasonJson;
import dev.nightshift.spec.diff.Reason;

/**
 * A pool's target as JSON, one shape for the pool's status record, {@code /status} and
 * {@code nightshift plan --output json}:
 * {@code {"revision": "…", "action": "ROLL", "reasons": [{"path": …, "old": …, "new": …, "effect": "roll"}]}}.
 */
public final class PoolTargetJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private PoolTargetJson() {
    }

    public static void put(ObjectNode o, PoolTarget t) {
        o.put("revision", t.revision());
        o.put("action", t.action().name());
        ReasonJson.put(o.putArray("reasons"), t.reasons());
    }

    public static String write(PoolTarget t) {
        ObjectNode o = JSON.createObjectNode();
        put(o, t);
        return o.toString();
    }

    /** The target a record holds; empty when the text is missing or not a target (then the next commit sets one). */
    public static Optional<PoolTarget> read(String text) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        try {
            JsonNode o = JSON.readTree(text);
            List<Reason> reasons = new ArrayList<>();
            for (JsonNode r : o.path("reasons")) {
                reasons.add(new Reason(Effect.valueOf(r.path("effect").asText().toUpperCase(Locale.ROOT)), r.path("path").asText(),
                        r.path("old").asText(), r.path("new").asText(), r.path("message").asText("")));
            }
            return Optional.of(new PoolTarget(o.path("revision").asText(), PoolAction.valueOf(o.path("action").asText()), reasons));
        } catch (Exception e) {
            return Optional.empty();
        }
    }
}
