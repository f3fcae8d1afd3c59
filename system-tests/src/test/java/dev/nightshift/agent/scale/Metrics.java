package dev.nightshift.agent.scale;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One scrape of the agent's {@code /metrics} (Prometheus text format): samples by name and labels. */
record Metrics(List<Sample> samples) {

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+(\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    record Sample(String name, Map<String, String> labels, double value) {
    }

    static Metrics parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line.strip());
            if (!m.matches()) {
                continue;
            }
            Map<String, String> labels = new HashMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(4))));
        }
        return new Metrics(samples);
    }

    /** The sum of every sample of {@code name} whose labels include {@code labels}. */
    double sum(String name, Map<String, String> labels) {
        return samples.stream().filter(s -> s.name().equals(name) && s.labels().entrySet().containsAll(labels.entrySet()))
                .mapToDouble(Sample::value).sum();
    }

    double sum(String name) {
        return sum(name, Map.of());
    }

    /** A histogram's cumulative bucket counts by upper bound, summed over the other labels. */
    TreeMap<Double, Double> buckets(String histogram) {
        TreeMap<Double, Double> buckets = new TreeMap<>();
        for (Sample s : samples) {
            if (s.name().equals(histogram + "_bucket")) {
                String le = s.labels().get("le");
                double bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
                buckets.merge(bound, s.value(), Double::sum);
            }
        }
        return buckets;
    }

    /**
     * The {@code q} quantile of the observations made between {@code before} and {@code after}, interpolated within
     * its bucket as Prometheus' {@code histogram_quantile} does; NaN without observations.
     */
    static double quantile(double q, String histogram, Metrics before, Metrics after) {
        TreeMap<Double, Double> a = after.buckets(histogram);
        TreeMap<Double, Double> b = before.buckets(histogram);
        double total = a.lastEntry() == null ? 0 : a.lastEntry().getValue() - b.getOrDefault(a.lastKey(), 0.0);
        if (total <= 0) {
            return Double.NaN;
        }
        double rank = q * total;
        double lowerBound = 0;
        double lowerCount = 0;
        for (Map.Entry<Double, Double> e : a.entrySet()) {
            double count = e.getValue() - b.getOrDefault(e.getKey(), 0.0);
            if (count >= rank) {
                if (e.getKey().isInfinite()) {
                    return lowerBound;
                }
                return lowerBound + (e.getKey() - lowerBound) * (count == lowerCount ? 1 : (rank - lowerCount) / (count - lowerCount));
            }
            lowerBound = e.getKey();
            lowerCount = count;
        }
        return lowerBound;
    }

    /**
     * The upper bound of the histogram bucket that holds the longest observation made between {@code before} and
     * {@code after}: the longest is at most this (NaN without observations, infinite past the last finite bucket).
     */
    static double longestAtMost(String histogram, Metrics before, Metrics after) {
        TreeMap<Double, Double> a = after.buckets(histogram);
        TreeMap<Double, Double> b = before.buckets(histogram);
        double total = a.lastEntry() == null ? 0 : a.lastEntry().getValue() - b.getOrDefault(a.lastKey(), 0.0);
        if (total <= 0) {
            return Double.NaN;
        }
        for (Map.Entry<Double, Double> e : a.entrySet()) {
            if (e.getValue() - b.getOrDefault(e.getKey(), 0.0) >= total) {
                return e.getKey();
            }
        }
        return Double.POSITIVE_INFINITY;
    }

    /** The share of the observations made between {@code before} and {@code after} that took at most {@code bound} (a bucket's). */
    static double shareAtMost(double bound, String histogram, Metrics before, Metrics after) {
        TreeMap<Double, Double> a = after.buckets(histogram);
        TreeMap<Double, Double> b = before.buckets(histogram);
        double total = a.lastEntry() == null ? 0 : a.lastEntry().getValue() - b.getOrDefault(a.lastKey(), 0.0);
        Map.Entry<Double, Double> at = a.floorEntry(bound);
        return total <= 0 || at == null ? Double.NaN : (at.getValue() - b.getOrDefault(at.getKey(), 0.0)) / total;
    }

    /** The histogram's largest bucket bound that is at most {@code bound}; NaN without one. */
    double bucketAtMost(String histogram, double bound) {
        Double key = buckets(histogram).floorKey(bound);
        return key == null ? Double.NaN : key;
    }
}
