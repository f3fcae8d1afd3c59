package dev.nightshift.spec.model;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** An absolute count or a percentage of the pool, as {@code maxSurge} and {@code maxUnavailable} take. */
public record IntOrPercent(int value, boolean percent) {

    private static final Pattern PERCENT = Pattern.compile("(0|[1-9][0-9]{0,2})%");

    public IntOrPercent {
        if (value < 0 || (percent && value > 100)) {
            throw new IllegalArgumentException("out of range: " + value + (percent ? "%" : ""));
        }
    }

    public static IntOrPercent of(int value) {
        return new IntOrPercent(value, false);
    }

    public static IntOrPercent percentOf(int value) {
        return new IntOrPercent(value, true);
    }

    /** Parses {@code "25%"}; plain integers come from the YAML integer path. */
    public static Optional<IntOrPercent> parsePercent(String text) {
        Matcher m = PERCENT.matcher(text);
        if (!m.matches() || Integer.parseInt(m.group(1)) > 100) {
            return Optional.empty();
        }
        return Optional.of(percentOf(Integer.parseInt(m.group(1))));
    }

    public boolean isAbsoluteZero() {
        return !percent && value == 0;
    }

    public boolean isZero() {
        return value == 0;
    }

    /**
     * Resolves against a pool size. Surge rounds up and unavailability rounds down, as a
     * Kubernetes Deployment does, so that a percentage never allows more disruption than asked.
     */
    public int resolve(int count, boolean roundUp) {
        if (!percent) {
            return value;
        }
        long scaled = (long) count * value;
        return (int) (roundUp ? (scaled + 99) / 100 : scaled / 100);
    }

    @Override
    public String toString() {
        return percent ? value + "%" : Integer.toString(value);
    }
}
