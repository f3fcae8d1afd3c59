package dev.nightshift.agent.reconcile;

import java.time.Duration;

/** A machine the agent saw created and become a Ready node: from its creation until its node was Ready. */
public record FinishedCreation(String pool, String node, Duration took) {
}
