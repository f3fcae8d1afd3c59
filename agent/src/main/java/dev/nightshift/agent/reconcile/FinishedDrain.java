package dev.nightshift.agent.reconcile;

import java.time.Duration;

/** A drain that ended with every evictable pod gone (or forced) and the node handed on to deletion or update. */
public record FinishedDrain(String pool, String node, Duration took) {
}
