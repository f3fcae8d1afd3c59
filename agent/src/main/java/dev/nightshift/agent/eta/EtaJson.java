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
 * it closes beyond the calendar's. Beside it, {@code etaStart}: when the pool's turn comes in the
 * fleet's schedule and why not sooner ({@link #putStart}).
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
        estimate.eta().ifPresent(e -> putStart(pool.putObject("etaStart"), e));
    }

    /**
     * Writes when the pool's rollout starts in the fleet's schedule into {@code o}: {@code {"at": "…", "reason":
     * "concurrency", "after": "p009", "poolsDone": 10}} (what it waits for, as {@code waitingFor}'s reasons: {@code
     * concurrency}, {@code role-order}, {@code after}; the pool whose finish lets it start; the pools of the rollout done
     * by then), or {@code {"at": "…", "reason": null, "after": null, "poolsDone": 0}} for a pool that starts at once.
     */
    public static ObjectNode putStart(ObjectNode o, PoolEta eta) {
        o.put("at", eta.startsAt().toString());
        o.put("reason", eta.waited().map(w -> w.reason().label()).orElse(null));
        o.put("after", eta.waited().map(PoolEta.Wait::after).orElse(null));
        o.put("poolsDone", eta.waited().map(PoolEta.Wait::poolsDone).orElse(0));
        return o;
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
