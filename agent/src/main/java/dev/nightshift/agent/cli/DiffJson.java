package dev.nightshift.agent.cli;

import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.spec.diff.DiffReport;
import dev.nightshift.spec.diff.PoolDecision;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.agent.http.ReasonJson;
import dev.nightshift.agent.http.SpecErrorJson;

/** The JSON contract of {@code nightshift diff --output json}; other tools parse it, so its fields stay. */
final class DiffJson {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private DiffJson() {
    }

    static String write(DiffReport report, List<SideError> errors) {
        ObjectNode root = MAPPER.createObjectNode();
        ArrayNode pools = root.putArray("pools");
        for (PoolDecision d : report.pools()) {
            ObjectNode p = pools.addObject();
            p.put("cluster", d.cluster());
            p.put("pool", d.pool());
            p.put("action", d.action().name());
            p.put("rollHashOld", d.rollHashOld().map(StampedHash::value).orElse(null));
            p.put("rollHashNew", d.rollHashNew().map(StampedHash::value).orElse(null));
            p.put("kubeletHashOld", d.kubeletHashOld().map(StampedHash::value).orElse(null));
            p.put("kubeletHashNew", d.kubeletHashNew().map(StampedHash::value).orElse(null));
            p.put("hashVersion", d.rollHashNew().or(d::rollHashOld).map(StampedHash::version).orElse(0));
            ReasonJson.put(p.putArray("reasons"), d.reasons());
            d.forceTokenUsed().ifPresent(t -> p.put("forceTokenUsed", t));
        }
        ArrayNode errorArray = root.putArray("errors");
        for (SideError s : errors) {
            SpecErrorJson.put(errorArray.addObject().put("side", s.side()), s.error());
        }
        try {
            return MAPPER.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree of plain values always serialises", e);
        }
    }
}
