package dev.nightshift.agent.eta;

import java.time.Instant;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.agent.window.Window;

/**
 * A pool's ETA as JSON, the same in {@code nightshift diff}, {@code nightshift plan} and
 * {@code /status}: {@code {"workSeconds": 360, "completesAt": "…", "windows": [{"open": "…",
 * "close": "…"}], "assumptions": ["…"]}}, instants in ISO-8601 (UTC). {@code completesAt} is null
 * when the rollout does not finish within the estimate's horizon, a window's {@code close} when
 * it closes beyond the calendar's.
 */
public final class EtaJson {

    private EtaJson() {
    }

    /**
     * Writes a pool's {@code eta} (null when it has none) and, when the estimate leaves the pool out,
     * {@code etaLeftOut} with the reason, into the pool's object {@code pool}.
     */
    public static void putPool(ObjectNode pool, PoolEstimate estimate) {
        estimate.eta().ifPresentOrElse(e -> put(pool.putObject("eta"), e), () -> pool.putNull("eta"));
        estimate.leftOut().ifPresent(why -> pool.put("etaLeftOut", why));
    }

    /** Writes {@code eta} into {@code o} (an object the caller made, such as {@code pool.putObject("eta")}). */
    public static ObjectNode put(ObjectNode o, PoolEta eta) {
        o.put("workSeconds", eta.workSeconds());
        o.put("completesAt", eta.completesAt().map(Instant::toString).orElse(null));
        ArrayNode windows = o.putArray("windows");
        for (Window w : eta.windows()) {
            windows.addObject().put("open", w.open().toString()).put("close", w.close().map(Instant::toString).orElse(null));
        }
        ArrayNode assumptions = o.putArray("assumptions");
        eta.assumptions().forEach(assumptions::add);
        return o;
    }
}
