package dev.nightshift.strategies.sim;

import java.util.Optional;

/**
 * One thing that happened in a simulation.
 *
 * @param t        seconds since the start
 * @param surgeFor for CREATE of a surge machine, the old node it stands in for
 */
public record TimelineEvent(double t, String node, String step, Optional<String> surgeFor) {

    public static TimelineEvent of(double t, String node, String step) {
        return new TimelineEvent(t, node, step, Optional.empty());
    }
}
