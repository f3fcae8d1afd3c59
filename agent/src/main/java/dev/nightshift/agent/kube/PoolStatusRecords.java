package dev.nightshift.agent.kube;

import dev.nightshift.agent.report.PoolTargetJson;
import dev.nightshift.agent.report.RolloutProgressJson;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import dev.nightshift.agent.eta.PoolDurations;
import dev.nightshift.spec.diff.PoolTarget;
import dev.nightshift.strategies.model.PoolStatus;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;

/**
 * The per-pool status record, kept as a ConfigMap {@code nightshift-pool-<pool>} in the agent's
 * namespace: everything the planner's counters and deadlines need across restarts, the spec the
 * pool last accepted (so that a refused commit stays refused after a restart or a failover), and
 * the pool's target with the spec it was last fully current at (so that a new leader still says why
 * nodes are replaced), the durations of the pool's node work the agent observed ({@link PoolDurations}:
 * {@code createSeconds}, {@code drainSeconds}, {@code inPlaceSeconds}, {@code kubeletRestartSeconds}, each
 * the last observations, for estimates), and the {@code nightshift.dev/paused} annotation through which a
 * rollout is paused without a commit.
 */
public final class PoolStatusRecords {

    public static final String LABEL = NodeMarks.PREFIX + "pool-status";
    public static final String PAUSED = NodeMarks.PREFIX + "paused";
    /**
     * When the user last resumed the pool ({@code nightshift resume}): a halt recorded before it is lifted. An
     * annotation, like {@link #PAUSED}, which the agent never writes: a record the agent writes from an older read
     * cannot undo a resume.
     */
    public static final String RESUMED_AT = NodeMarks.PREFIX + "resumed-at";
    /**
     * The data key of the revision a pool refused after its rollout failed and was rolled back ({@code onFailure:
     * Rollback}): {@code {commit, cluster, pool, reason}} as JSON, the specs in canonical form. Until the pool's spec
     * changes, a commit offering it again leaves the pool where it was rolled back to, surviving restarts and failover.
     */
    public static final String REFUSED = "refusedRevision";

    /** A revision a pool refused: its commit, its Cluster and WorkerPool in canonical form, and why. */
    public record Refused(String commit, String cluster, String pool, String reason) {

        /**
         * Whether a commit offering this Cluster and WorkerPool (canonical texts) offers the refused revision again: the
         * agent then holds the pool where it was rolled back to, and {@code nightshift plan} says so, from this one rule.
         */
        public boolean offeredAgain(String offeredCluster, String offeredPool) {
            return pool.equals(offeredPool) && cluster.equals(offeredCluster);
        }

        /**
         * "held at 1a2b3c4, 9f8e7d6 refused: canary failed error-rate (0.07, must be <= 0.01) in wave 1": what {@code /status},
         * the agent's log and {@code nightshift plan} say of a pool held at {@code heldAt}, in the same words.
         */
        public String held(String heldAt) {
            return "held at " + shortCommit(heldAt) + ", " + shortCommit(commit) + " refused: canary failed " + reason;
        }

        private static String shortCommit(String commit) {
            return commit.length() > 7 ? commit.substring(0, 7) : commit;
        }

        public String json() {
            com.fasterxml.jackson.databind.node.ObjectNode o = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
            o.put("commit", commit).put("cluster", cluster).put("pool", pool).put("reason", reason);
            return o.toString();
        }
    }

    /** The refused revision the record holds; empty when none (or unreadable: the pool then takes what is offered). */
    public static Optional<Refused> refused(ConfigMap map) {
        String text = map.getData() == null ? null : map.getData().get(REFUSED);
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        try {
            com.fasterxml.jackson.databind.JsonNode o = new com.fasterxml.jackson.databind.ObjectMapper().readTree(text);
            return Optional.of(new Refused(o.path("commit").asText(), o.path("cluster").asText(), o.path("pool").asText(),
                    o.path("reason").asText()));
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
    }

    /** The data key of the pool's revision history ({@code RevisionHistory}) as JSON: {@code nightshift history} reads it. */
    public static final String HISTORY = "history";
    /**
     * The data key of the workloads whose pods the pool's drains evicted and that the {@code workloadsAvailable} check
     * still follows, with their first eviction ({@code EvictedWorkloads.json}); absent when none.
     */
    public static final String EVICTED_WORKLOADS = "evictedWorkloads";
    /** The data key of the pool's rollout in waves (wave, soak, failed machines, halt) as JSON. */
    public static final String ROLLOUT = "rollout";

    /** The data keys of the accepted spec. */
    public static final String ACCEPTED_COMMIT = "acceptedCommit";
    public static final String ACCEPTED_CLUSTER = "acceptedCluster";
    public static final String ACCEPTED_POOL = "acceptedPool";

    /** The pool's target as JSON ({@link PoolTargetJson}): what its nodes are brought to, from which commit, and why. */
    public static final String TARGET = "target";
    /** The data keys of the spec at which the pool was last fully current, from which the target's reasons are taken. */
    public static final String FULLY_CURRENT_COMMIT = "fullyCurrentCommit";
    public static final String FULLY_CURRENT_CLUSTER = "fullyCurrentCluster";
    public static final String FULLY_CURRENT_POOL = "fullyCurrentPool";

    /**
     * Why the pool's nodes are changed: its target, and the spec at which the pool was last fully
     * current (canonical texts, as {@link Accepted}), which the next target's reasons start from.
     */
    public record Why(Optional<PoolTarget> target, Optional<Accepted> fullyCurrent) {
        public static final Why NONE = new Why(Optional.empty(), Optional.empty());
    }

    /**
     * The spec a pool last accepted: the commit, and the Cluster and WorkerPool documents in their
     * canonical form ({@code CanonicalYaml}), which outlive the commit in a shallow Git cache.
     */
    public record Accepted(String commit, String cluster, String pool) {
    }

    private PoolStatusRecords() {
    }

    /** The accepted spec the record holds; empty when it holds none (a pool never accepted, or an older agent's record). */
    public static Optional<Accepted> accepted(ConfigMap map) {
        Map<String, String> d = map.getData() == null ? Map.of() : map.getData();
        if (!d.containsKey(ACCEPTED_COMMIT) && !d.containsKey(ACCEPTED_CLUSTER) && !d.containsKey(ACCEPTED_POOL)) {
            return Optional.empty();
        }
        return Optional.of(new Accepted(d.getOrDefault(ACCEPTED_COMMIT, ""), d.getOrDefault(ACCEPTED_CLUSTER, ""),
                d.getOrDefault(ACCEPTED_POOL, "")));
    }

    /** The target and the last fully-current spec the record holds; each empty when it holds none. */
    public static Why why(ConfigMap map) {
        Map<String, String> d = map.getData() == null ? Map.of() : map.getData();
        Optional<Accepted> current = d.containsKey(FULLY_CURRENT_POOL) ? Optional.of(new Accepted(d.getOrDefault(FULLY_CURRENT_COMMIT, ""),
                d.getOrDefault(FULLY_CURRENT_CLUSTER, ""), d.get(FULLY_CURRENT_POOL))) : Optional.empty();
        return new Why(PoolTargetJson.read(d.get(TARGET)), current);
    }

    public static String name(String pool) {
        return "nightshift-pool-" + pool;
    }

    public static PoolStatus read(ConfigMap map) {
        Map<String, String> d = map.getData() == null ? Map.of() : map.getData();
        boolean paused = Optional.ofNullable(map.getMetadata().getAnnotations()).map(a -> "true".equals(a.get(PAUSED))).orElse(false);
        Set<String> tokens = Optional.ofNullable(d.get("usedForceTokens")).filter(t -> !t.isBlank())
                .map(t -> (Set<String>) new TreeSet<>(Arrays.asList(t.split(",")))).orElse(Set.of());
        Optional<Instant> resumedAt = Optional.ofNullable(map.getMetadata().getAnnotations()).map(a -> a.get(RESUMED_AT))
                .flatMap(PoolStatusRecords::instantOrNothing);
        return new PoolStatus(Integer.parseInt(d.getOrDefault("outdatedNodes", "0")), instant(d.get("lastProgressAt")),
                instant(d.get("lastTerminationAt")), Integer.parseInt(d.getOrDefault("validationStreak", "0")), tokens, paused,
                RolloutProgressJson.read(d.get(ROLLOUT)), resumedAt);
    }

    /** A time a person wrote: one that does not parse is no time at all (the halt stays). */
    private static Optional<Instant> instantOrNothing(String text) {
        try {
            return instant(text);
        } catch (java.time.format.DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static Optional<Instant> instant(String text) {
        return Optional.ofNullable(text).filter(t -> !t.isBlank()).map(Instant::parse);
    }

    /** The record's data for a status and the spec the pool accepted; the paused annotation is the user's and is left alone. */
    public static Map<String, String> data(PoolStatus status, Optional<Accepted> accepted) {
        Map<String, String> d = data(status);
        accepted.ifPresent(a -> {
            d.put(ACCEPTED_COMMIT, a.commit());
            d.put(ACCEPTED_CLUSTER, a.cluster());
            d.put(ACCEPTED_POOL, a.pool());
        });
        return d;
    }

    /** The record's data for a status, the spec the pool accepted, its target and the spec it was last fully current at. */
    public static Map<String, String> data(PoolStatus status, Optional<Accepted> accepted, Why why) {
        Map<String, String> d = data(status, accepted);
        why.target().ifPresent(t -> d.put(TARGET, PoolTargetJson.write(t)));
        why.fullyCurrent().ifPresent(a -> {
            d.put(FULLY_CURRENT_COMMIT, a.commit());
            d.put(FULLY_CURRENT_CLUSTER, a.cluster());
            d.put(FULLY_CURRENT_POOL, a.pool());
        });
        return d;
    }

    /** The observed durations the record holds; none for a record written before they were kept. */
    public static PoolDurations durations(ConfigMap map) {
        return PoolDurations.read(map.getData() == null ? Map.of() : map.getData());
    }

    /** {@link #data(PoolStatus, Optional, Why)} and the pool's observed durations. */
    public static Map<String, String> data(PoolStatus status, Optional<Accepted> accepted, Why why, PoolDurations durations) {
        Map<String, String> d = data(status, accepted, why);
        d.putAll(durations.data());
        return d;
    }

    /** The record's data for a status alone. */
    public static Map<String, String> data(PoolStatus status) {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("outdatedNodes", Integer.toString(status.outdatedNodes()));
        status.lastProgressAt().ifPresent(t -> d.put("lastProgressAt", t.toString()));
        status.lastTerminationAt().ifPresent(t -> d.put("lastTerminationAt", t.toString()));
        d.put("validationStreak", Integer.toString(status.validationStreak()));
        d.put("usedForceTokens", status.usedForceTokens().stream().sorted().collect(Collectors.joining(",")));
        // Only while a pool rolls in waves: the records of pools rolled with the default canary stay as they were.
        status.rollout().ifPresent(r -> d.put(ROLLOUT, RolloutProgressJson.write(r)));
        return d;
    }

    public static ConfigMap create(String namespace, String pool, PoolStatus status) {
        return create(namespace, pool, data(status));
    }

    public static ConfigMap create(String namespace, String pool, Map<String, String> data) {
        return new ConfigMapBuilder().withNewMetadata().withName(name(pool)).withNamespace(namespace)
                .addToLabels(LABEL, pool).endMetadata().withData(data).build();
    }
}
