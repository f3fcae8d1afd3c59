package dev.nightshift.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.agent.eta.EtaJson;
import dev.nightshift.spec.diff.PoolDecision;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.agent.report.ReasonJson;
import dev.nightshift.agent.report.SpecErrorJson;

/** The JSON contract of {@code nightshift diff --output json}; other tools parse it, so its fields stay. */
final class DiffJson {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private DiffJson() {
    }

    static String write(DiffReview review) {
        ObjectNode root = MAPPER.createObjectNode();
        ArrayNode pools = root.putArray("pools");
        for (DiffReview.PoolReview pool : review.pools()) {
            putPool(pools.addObject(), pool);
        }
        ArrayNode errorArray = root.putArray("errors");
        for (SideError s : review.errors()) {
            SpecErrorJson.put(errorArray.addObject().put("side", s.side()), s.error());
        }
        review.revisions().ifPresent(r -> {
            ObjectNode revisions = root.putObject("revisions");
            revisions.put("repository", r.repository());
            revisions.put("from", r.from());
            revisions.put("to", r.to());
            revisions.put("mergeBaseWith", r.mergeBaseWith().orElse(null));
        });
        try {
            return MAPPER.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree of plain values always serialises", e);
        }
    }

    private static void putPool(ObjectNode p, DiffReview.PoolReview pool) {
        PoolDecision d = pool.decision();
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
        putImpact(p.putObject("impact"), pool.impact());
        // As in /status and plan: null for a change that disrupts no node, or one the estimate leaves out (etaLeftOut says why).
        EtaJson.putPool(p, pool.eta());
    }

    /** {@code {nodes, kind, source}}; from the spec also {@code nodesMin}, from the cluster {@code poolNodes}. */
    private static void putImpact(ObjectNode o, PoolImpact impact) {
        o.put("nodes", impact.nodes());
        impact.nodesMin().ifPresent(min -> o.put("nodesMin", min));
        o.put("kind", impact.kind().jsonName());
        o.put("source", impact.source().jsonName());
        impact.poolNodes().ifPresent(n -> o.put("poolNodes", n));
    }
}
