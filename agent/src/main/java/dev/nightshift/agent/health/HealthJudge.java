package dev.nightshift.agent.health;

import java.time.Instant;
import java.util.Map;

import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.HealthVerdict;
import dev.nightshift.strategies.model.ObservedCluster;

/** The observe stage's health part: each rolling pool's checks judged now, for the planner. */
@FunctionalInterface
public interface HealthJudge {

    /** By pool name; a pool left out that has checks is judged unknown by the planner. */
    Map<String, HealthVerdict> verdicts(DesiredCluster desired, ObservedCluster observed, Instant now);

    /** Judges nothing: pools with checks stay unknown, never passing. */
    HealthJudge NONE = (desired, observed, now) -> Map.of();
}
