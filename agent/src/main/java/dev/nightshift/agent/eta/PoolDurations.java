package dev.nightshift.agent.eta;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * How long a pool's node work took when the agent last watched it, kept in the pool's status record
 * so that an estimate starts from the pool's own machines rather than from a guess: the last
 * {@link #KEPT} observations of each kind, in whole seconds, oldest first, each kind under its own
 * data key as a comma-separated list ({@code createSeconds: "61,58,64"}). An estimate uses their
 * median, which one slow machine does not move; a kind never observed uses its
 * {@linkplain Kind#fallback() default} and says so.
 */
public record PoolDurations(Map<Kind, List<Duration>> observed) {

    /** Observations kept per kind: enough for a stable median, few enough to follow a change of machine type. */
    public static final int KEPT = 10;

    public static final PoolDurations NONE = new PoolDurations(Map.of());

    /** What was timed, with its record key and what is assumed before anything was observed. */
    public enum Kind {
        /** From the machine's creation until its node is Ready. */
        CREATE("createSeconds", "machine creation", Duration.ofSeconds(120)),
        /** From the drain's start until no evictable pod is left. */
        DRAIN("drainSeconds", "drain", Duration.ofSeconds(30)),
        /** From an in-place update's start until the node runs the new spec. */
        IN_PLACE("inPlaceSeconds", "in-place update", Duration.ofSeconds(120)),
        /** From a kubelet restart's request until the node reports the new configuration. */
        KUBELET_RESTART("kubeletRestartSeconds", "kubelet restart", Duration.ofSeconds(10));

        private final String key;
        private final String label;
        private final Duration fallback;

        Kind(String key, String label, Duration fallback) {
            this.key = key;
            this.label = label;
            this.fallback = fallback;
        }

        /** The data key in the pool's status record. */
        public String key() {
            return key;
        }

        public String label() {
            return label;
        }

        /** Assumed while nothing of this kind was observed in the pool. */
        public Duration fallback() {
            return fallback;
        }
    }

    public PoolDurations {
        Map<Kind, List<Duration>> copy = new EnumMap<>(Kind.class);
        observed.forEach((k, v) -> {
            if (!v.isEmpty()) {
                copy.put(k, List.copyOf(v.subList(Math.max(0, v.size() - KEPT), v.size())));
            }
        });
        observed = copy.isEmpty() ? Map.of() : Map.copyOf(copy);
    }

    /** These observations and one more, the oldest dropped beyond {@link #KEPT}; rounded to whole seconds. */
    public PoolDurations with(Kind kind, Duration took) {
        Map<Kind, List<Duration>> next = new EnumMap<>(Kind.class);
        next.putAll(observed);
        List<Duration> list = new ArrayList<>(observed(kind));
        list.add(Duration.ofSeconds(Math.max(0, Math.round(took.toMillis() / 1000.0))));
        next.put(kind, list);
        return new PoolDurations(next);
    }

    public List<Duration> observed(Kind kind) {
        return observed.getOrDefault(kind, List.of());
    }

    /** The median of the kept observations; of an even number, the mean of the middle two. */
    public Optional<Duration> median(Kind kind) {
        List<Duration> sorted = observed(kind).stream().sorted().toList();
        if (sorted.isEmpty()) {
            return Optional.empty();
        }
        int n = sorted.size();
        return Optional.of(n % 2 == 1 ? sorted.get(n / 2) : sorted.get(n / 2 - 1).plus(sorted.get(n / 2)).dividedBy(2));
    }

    /** What an estimate assumes: the median observed, else the default. */
    public Duration estimate(Kind kind) {
        return median(kind).orElse(kind.fallback());
    }

    /** What an estimate assumed, for its {@code assumptions}: {@code "drain 31s (median of 4 observed)"}. */
    public String describe(Kind kind) {
        int n = observed(kind).size();
        return kind.label() + " " + PoolEta.shortDuration(estimate(kind))
                + (n == 0 ? " (default: none observed in this pool yet)" : " (median of " + n + " observed)");
    }

    /** The record's data keys for these observations; a kind never observed has no key. */
    public Map<String, String> data() {
        Map<String, String> d = new LinkedHashMap<>();
        for (Kind k : Kind.values()) {
            if (!observed(k).isEmpty()) {
                d.put(k.key(), observed(k).stream().map(x -> Long.toString(x.getSeconds())).collect(Collectors.joining(",")));
            }
        }
        return d;
    }

    /** The observations a record's data holds; entries that are not whole seconds are skipped (a hand edit, an older agent). */
    public static PoolDurations read(Map<String, String> data) {
        Map<Kind, List<Duration>> observed = new EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            String text = data.get(k.key());
            if (text == null || text.isBlank()) {
                continue;
            }
            List<Duration> list = new ArrayList<>();
            for (String part : text.split(",")) {
                try {
                    long s = Long.parseLong(part.trim());
                    if (s >= 0) {
                        list.add(Duration.ofSeconds(s));
                    }
                } catch (NumberFormatException skipped) {
                    // Not ours to repair: the next observations replace it.
                }
            }
            observed.put(k, list);
        }
        return new PoolDurations(observed);
    }
}
