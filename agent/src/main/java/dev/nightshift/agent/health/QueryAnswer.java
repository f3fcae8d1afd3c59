package dev.nightshift.agent.health;

/** What Prometheus answered to one instant query: one number, or why there is none. */
public sealed interface QueryAnswer {

    /** Exactly one series (or a scalar) with a finite value. */
    record Value(double value) implements QueryAnswer {
    }

    /** Unreachable, an error, no series, several series, NaN: the check cannot be judged. */
    record Unknown(String why) implements QueryAnswer {
    }
}
