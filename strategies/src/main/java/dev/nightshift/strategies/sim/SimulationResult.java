package dev.nightshift.strategies.sim;

import java.util.List;

/**
 * What a simulation did.
 *
 * @param completed        every node ended at the desired spec
 * @param failureReason    why not, when not completed
 * @param peakNodes        most machines that existed at once
 * @param peakUnavailable  highest count − available seen
 * @param violations       limits the planner exceeded (never expected; Replace reports its downtime instead)
 * @param finishedSeconds  when the simulation stopped, in seconds since its start: for a completed
 *                         update, when the last node was done (a kubelet restart's end is not an event
 *                         of the timeline, so this may come after the makespan)
 */
public record SimulationResult(
        String pool,
        String strategy,
        int nodes,
        int resolvedMaxSurge,
        int resolvedMaxUnavailable,
        boolean completed,
        String failureReason,
        double makespanSeconds,
        double lowerBoundSeconds,
        int peakNodes,
        int peakUnavailable,
        List<String> violations,
        List<TimelineEvent> timeline,
        double finishedSeconds) {

    public SimulationResult {
        violations = List.copyOf(violations);
        timeline = List.copyOf(timeline);
    }
}
