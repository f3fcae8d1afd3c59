package dev.nightshift.agent.run;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One scrape of the agent's {@code /metrics} in the Prometheus text format, read as Prometheus would. */
record Scrape(String text) {

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+(\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    /** The value of the series {@code name} with exactly these labels; empty when it is not exported. */
    OptionalDouble value(String name, Map<String, String> labels) {
        for (String line : text.split("\n")) {
            Matcher m = SAMPLE.matcher(line.trim());
            if (!m.matches() || !m.group(1).equals(name)) {
                continue;
            }
            Map<String, String> found = new HashMap<>();
            Matcher l = LABEL.matcher(m.group(3) == null ? "" : m.group(3));
            while (l.find()) {
                found.put(l.group(1), l.group(2));
            }
            if (found.equals(labels)) {
                return OptionalDouble.of(Double.parseDouble(m.group(4)));
            }
        }
        return OptionalDouble.empty();
    }

    /** As {@link #value}, 0 when the series is not exported (a counter that never counted). */
    double valueOrZero(String name, Map<String, String> labels) {
        return value(name, labels).orElse(0);
    }
}
