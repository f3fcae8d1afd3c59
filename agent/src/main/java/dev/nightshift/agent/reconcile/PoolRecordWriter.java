package dev.nightshift.agent.reconcile;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * Writes each pool's record (a ConfigMap, see {@link PoolStatusRecords}): its status, the spec it
 * accepted and why its nodes change, as {@link AcceptedSpecs} holds them. A record that already
 * says so is not written again.
 */
final class PoolRecordWriter implements PoolRecords {

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    /** Where several records are written at once: up to 4 threads, gone after 30 s idle. */
    private static final ThreadPoolExecutor WRITERS = writers();

    private static ThreadPoolExecutor writers() {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(4, 4, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "nightshift-records-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

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
        List<Runnable> writes = new ArrayList<>();
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
            writes.add(() -> write(pool, data, existing));
        }
        writeAll(writes);
    }

    /**
     * The records' writes, at once when there are several (each its own record: they do not touch one another), so that
     * a pass waits for one round trip, not for one per pool rolling; the first failure is thrown once all are done.
     */
    private void writeAll(List<Runnable> writes) {
        if (writes.size() <= 1) {
            writes.forEach(Runnable::run);
            return;
        }
        List<CompletableFuture<Void>> all = writes.stream().map(w -> CompletableFuture.runAsync(w, WRITERS)).toList();
        RuntimeException first = null;
        for (CompletableFuture<Void> w : all) {
            try {
                w.join();
            } catch (CompletionException e) {
                if (first == null) {
                    first = e.getCause() instanceof RuntimeException r ? r : e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** One pool's record: created, patched over the record as observed, or read and replaced. */
    private void write(String pool, Map<String, String> data, Optional<ConfigMap> existing) {
        if (existing.isEmpty()) {
            try {
                client.configMaps().inNamespace(namespace).resource(PoolStatusRecords.create(namespace, pool, data))
                        .create();
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
                // Created a moment ago and not yet in the watch cache: update it instead.
            }
        }
        if (existing.isPresent() && patchedOver(existing.get(), data)) {
            return;
        }
        client.configMaps().inNamespace(namespace).withName(PoolStatusRecords.name(pool))
                .edit(cm -> {
                    cm.setData(data);
                    return cm;
                });
    }

    /**
     * The record's data replaced by one merge patch over the record as last observed, with its resourceVersion: no read
     * first (a read and a write per changed record were most of a reconcile's requests besides its steps, with ten pools
     * rolling). False when the record changed since it was observed (409): the caller reads it and writes it as before.
     */
    private boolean patchedOver(ConfigMap observed, Map<String, String> data) {
        Map<String, Object> patched = new HashMap<>(data);
        Optional.ofNullable(observed.getData()).orElse(Map.of()).keySet().stream().filter(k -> !data.containsKey(k))
                .forEach(k -> patched.put(k, null));
        Map<String, Object> body = Map.of("metadata", Map.of("resourceVersion", observed.getMetadata().getResourceVersion()),
                "data", patched);
        try {
            // On the record as observed, not by name: fabric8 reads a resource named only by name before patching it.
            client.configMaps().inNamespace(namespace).resource(observed).patch(PatchContext.of(PatchType.JSON_MERGE),
                    JSON.writeValueAsString(body));
            return true;
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            return false;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a record's data always serialises", e);
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
