package dev.nightshift.agent.reconcile;

import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import dev.nightshift.agent.health.EvictedWorkloads;
import dev.nightshift.agent.kube.ClusterObserver;
import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.agent.report.RevisionHistory;
import dev.nightshift.agent.report.RolloutProgressJson;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.PoolStatus;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * Writes each pool's record (a ConfigMap, see {@link PoolStatusRecords}): its status, the spec it
 * accepted and why its nodes change, as {@link AcceptedSpecs} holds them. A record that already
 * says so is not written again.
 */
final class PoolRecordWriter implements PoolRecords {

    private final KubernetesClient client;
    private final ClusterObserver observer;
    private final String namespace;
    private final AcceptedSpecs accepted;
    private final java.time.Clock clock;
    private final EvictedWorkloads evicted;

    /** @param namespace where the pool records are kept */
    PoolRecordWriter(KubernetesClient client, ClusterObserver observer, String namespace, AcceptedSpecs accepted) {
        this(client, observer, namespace, accepted, java.time.Clock.systemUTC(), new EvictedWorkloads());
    }

    /**
     * @param clock   when a revision is first seen accepted, for the pool's history
     * @param evicted the workloads each pool's check follows, kept in its record for the next leader
     */
    PoolRecordWriter(KubernetesClient client, ClusterObserver observer, String namespace, AcceptedSpecs accepted, java.time.Clock clock,
                     EvictedWorkloads evicted) {
        this.clock = clock;
        this.evicted = evicted;
        this.client = client;
        this.observer = observer;
        this.namespace = namespace;
        this.accepted = accepted;
    }

    /** {@link #write(Map, ObservedCluster, ObservedDurations)}, each record keeping the durations it holds. */
    void write(Map<String, PoolStatus> statuses, ObservedCluster observed) {
        write(statuses, observed, new ObservedDurations(pool -> observer.recordedDurations(namespace, pool)));
    }

    /**
     * Writes each pool's record where it changed: its status and the spec it accepted. Records of
     * pools no longer accepted lose their accepted spec: such a pool, offered again, is new.
     *
     * @param statuses each planned pool's status after this reconcile's steps; other pools keep the observed one
     * @param durations each pool's observed durations, kept in its record
     */
    @Override
    public void write(Map<String, PoolStatus> statuses, ObservedCluster observed, ObservedDurations durations) {
        write(statuses, observed, durations, Set.of());
    }

    @Override
    public void write(Map<String, PoolStatus> statuses, ObservedCluster observed, ObservedDurations durations, Set<String> unmanaged) {
        Set<String> pools = new TreeSet<>(statuses.keySet());
        pools.addAll(accepted.recordedPools());
        observed.poolStatus().keySet().stream().filter(p -> observer.statusRecord(namespace, p)
                .flatMap(PoolStatusRecords::accepted).isPresent()).forEach(pools::add);
        pools.removeAll(unmanaged);
        for (String pool : pools) {
            PoolStatus s = statuses.getOrDefault(pool, observed.status(pool));
            Optional<String> token = accepted.takeForceTokenToRecord(pool);
            if (token.isPresent()) {
                Set<String> tokens = new HashSet<>(s.usedForceTokens());
                tokens.add(token.get());
                s = new PoolStatus(s.outdatedNodes(), s.lastProgressAt(), s.lastTerminationAt(), s.validationStreak(), tokens, s.paused(),
                        s.rollout(), s.resumedAt());
            }
            Map<String, String> data = PoolStatusRecords.data(s, accepted.accepted(pool), accepted.why(pool), durations.of(pool));
            Optional<ConfigMap> existing = observer.statusRecord(namespace, pool);
            history(pool, s, existing).ifPresent(h -> data.put(PoolStatusRecords.HISTORY, h.write()));
            accepted.refused(pool).ifPresent(r -> data.put(PoolStatusRecords.REFUSED, r.json()));
            Map<EvictedWorkloads.Workload, java.time.Instant> followed = evicted.of(pool);
            if (!followed.isEmpty()) {
                data.put(PoolStatusRecords.EVICTED_WORKLOADS, EvictedWorkloads.json(followed));
            }
            if (existing.isPresent() && data.equals(existing.get().getData())) {
                continue;
            }
            if (existing.isEmpty()) {
                try {
                    client.configMaps().inNamespace(namespace).resource(PoolStatusRecords.create(namespace, pool, data))
                            .create();
                    continue;
                } catch (KubernetesClientException e) {
                    if (e.getCode() != 409) {
                        throw e;
                    }
                    // Created a moment ago and not yet in the watch cache: update it instead.
                }
            }
            client.configMaps().inNamespace(namespace).withName(PoolStatusRecords.name(pool))
                    .edit(cm -> {
                        cm.setData(data);
                        return cm;
                    });
        }
    }

    /**
     * The pool's revision history after this reconcile: the record's, with the pool's target seen now (its commit, roll
     * hash and how it goes); the record's as it is for a pool acted on no more; none when there is neither.
     */
    private Optional<RevisionHistory> history(String pool, PoolStatus status, Optional<ConfigMap> existing) {
        RevisionHistory before = RevisionHistory.read(existing.map(ConfigMap::getData).map(d -> d.get(PoolStatusRecords.HISTORY)).orElse(null));
        Optional<dev.nightshift.spec.diff.PoolTarget> target = accepted.why(pool).target();
        Optional<dev.nightshift.spec.model.ResolvedPool> spec = accepted.acting().map(a -> a.pools().get(pool));
        if (target.isEmpty() || spec.isEmpty()) {
            return before.entries().isEmpty() ? Optional.empty() : Optional.of(before);
        }
        RevisionHistory.Outcome outcome = status.halt().isPresent() ? RevisionHistory.Outcome.HALTED
                : status.outdatedNodes() == 0 ? RevisionHistory.Outcome.CURRENT : RevisionHistory.Outcome.IN_PROGRESS;
        String note = status.halt().map(RolloutProgressJson::describe).orElse("");
        return Optional.of(before.seen(target.get().revision(), dev.nightshift.spec.hash.HashScheme.ROLL.compute(spec.get()).toString(),
                clock.instant(), outcome, note, spec.get().rollout().revisionHistoryLimit()));
    }
}
