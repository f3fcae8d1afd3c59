package dev.nightshift.spec.model;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses and prints the spec's durations: {@code 90s}, {@code 15m}, {@code 2h}, {@code 1h30m}. */
public final class DurationText {

    private static final Pattern FORM = Pattern.compile("(?:([0-9]{1,6})h)?(?:([0-9]{1,7})m)?(?:([0-9]{1,9})s)?");

    private DurationText() {
    }

    public static Optional<Duration> parse(String text) {
        Matcher m = FORM.matcher(text);
        if (text.isEmpty() || !m.matches()) {
            return Optional.empty();
        }
        Duration d = Duration.ZERO;
        if (m.group(1) != null) {
            d = d.plusHours(Long.parseLong(m.group(1)));
        }
        if (m.group(2) != null) {
            d = d.plusMinutes(Long.parseLong(m.group(2)));
        }
        if (m.group(3) != null) {
            d = d.plusSeconds(Long.parseLong(m.group(3)));
        }
        return Optional.of(d);
    }

    public static Duration of(String text) {
        return parse(text).orElseThrow(() -> new IllegalArgumentException("not a duration: " + text));
    }

    /** The shortest spelling, e.g. {@code 1h30m}; {@code 0s} for zero. */
    public static String format(Duration d) {
        long s = d.getSeconds();
        if (s == 0) {
            return "0s";
        }
        StringBuilder b = new StringBuilder();
        if (s >= 3600) {
            b.append(s / 3600).append('h');
        }
        if (s % 3600 >= 60) {
            b.append(s % 3600 / 60).append('m');
        }
        if (s % 60 > 0) {
            b.append(s % 60).append('s');
        }
        return b.toString();
    }
}
