package dev.nightshift.agent.report;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.spec.load.SpecError;

/** One spec error as JSON, the same in {@code /status} and {@code nightshift diff --output json}. */
public final class SpecErrorJson {

    private SpecErrorJson() {
    }

    public static ObjectNode put(ObjectNode o, SpecError e) {
        o.put("file", e.file());
        o.put("line", e.line());
        o.put("column", e.column());
        o.put("path", e.path());
        o.put("message", e.message());
        return o;
    }
}
