package dev.nightshift.agent.reconcile;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.git.SpecRevision;
import dev.nightshift.agent.health.EvictedWorkloads;
import dev.nightshift.agent.kube.ClusterObserver;
import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.agent.report.RolloutProgressJson;
import dev.nightshift.spec.diff.CommitAcceptance;
import dev.nightshift.spec.diff.InPlaceHistory;
import dev.nightshift.spec.diff.PoolTarget;
import dev.nightshift.spec.load.CanonicalYaml;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.PoolReport;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * What the agent has accepted and acts on: each pool's accepted spec (read back from the pool
 * records at start and at every term as leader), the refusals of the newest offered commit, the
 * force tokens a taken commit spent, and each pool's target ({@link PoolTargets}). An offered
 * commit is judged pool by pool by the pure {@link CommitAcceptance}; this keeps its inputs and
 * its outcome. {@link PoolRecordWriter} writes what this holds into the records. Reading the records
 * at each term, it also hands the workloads the pools' {@code workloadsAvailable} checks followed back
 * to {@link EvictedWorkloads}; deciding a rollback, it tells {@link RollbackNotes}.
 *
 * <p>Changed only by the reconcile loop's thread; {@link #acting()} and {@link #rejected()} are
 * also read from others.
 */
final class AcceptedSpecs implements Acceptance {

    private static final Logger LOG = LoggerFactory.getLogger(AcceptedSpecs.class);

    /**
     * What the agent acts on: the commit, and each pool resolved against the cluster as that pool
     * accepted it (after an interrupted acceptance, pools may stand at different commits).
     */
    record Acting(String commit, ClusterSpec cluster, Map<String, ResolvedPool> pools) {
    }

    private final KubernetesClient client;
    private final ClusterObserver observer;
    private final String cluster;
    private final String namespace;
    /** Each pool's target and the spec it was last fully current at: why its nodes change. */
    private final PoolTargets targets = new PoolTargets();
    /** What the agent acts on; null until something was accepted or read from the records. */
    private volatile Acting acting;
    /** What each pool's record must say it accepted (canonical texts, so that unchanged records are not written again). */
    private final Map<String, PoolStatusRecords.Accepted> acceptedRecords = new HashMap<>();
    /** Pools whose record holds an accepted spec that cannot be read: no commit is accepted until it is fixed. */
    private List<String> unreadableRecords = List.of();
    private volatile List<String> rejected = List.of();
    private final Map<String, String> tokensToRecord = new HashMap<>();
    /** Pools rolled back after their rollout failed ({@code onFailure: Rollback}), with the revision they refuse until their spec changes. */
    private final Map<String, PoolStatusRecords.Refused> refused = new HashMap<>();
    private final RollbackNotes rollbacks;
    private final EvictedWorkloads evicted;

    /**
     * @param cluster   the cluster this agent reconciles
     * @param namespace where the pool records are kept
     * @param rollbacks told of each rollback, once, when it is decided
     * @param evicted   the workloads each pool's check follows: taken up again from the records with what was accepted
     */
    AcceptedSpecs(KubernetesClient client, ClusterObserver observer, String cluster, String namespace, RollbackNotes rollbacks,
                  EvictedWorkloads evicted) {
        this.client = client;
        this.observer = observer;
        this.cluster = cluster;
        this.namespace = namespace;
        this.rollbacks = rollbacks;
        this.evicted = evicted;
    }

    /**
     * Reads what each pool accepted from its record, in the API server rather than a cache, so that
     * a new leader judges the head against what the last leader accepted. A pool without a record
     * accepted nothing: it is new.
     */
    @Override
    public void rebuildFromRecords() {
        Map<String, ResolvedPool> pools = new TreeMap<>();
        Map<String, PoolStatusRecords.Accepted> read = new HashMap<>();
        List<String> unreadable = new ArrayList<>();
        targets.clear();
        refused.clear();
        Map<String, Map<EvictedWorkloads.Workload, java.time.Instant>> followed = new HashMap<>();
        for (ConfigMap map : client.configMaps().inNamespace(namespace).withLabel(PoolStatusRecords.LABEL).list().getItems()) {
            followed.put(map.getMetadata().getLabels().get(PoolStatusRecords.LABEL), EvictedWorkloads.read(map.getData() == null ? null
                    : map.getData().get(PoolStatusRecords.EVICTED_WORKLOADS)));
            Optional<PoolStatusRecords.Accepted> accepted = PoolStatusRecords.accepted(map);
            if (accepted.isEmpty()) {
                continue;
            }
            String pool = map.getMetadata().getLabels().get(PoolStatusRecords.LABEL);
            targets.read(pool, PoolStatusRecords.why(map));
            PoolStatusRecords.refused(map).ifPresent(r -> refused.put(pool, r));
            LoadResult loaded = CanonicalYaml.read(accepted.get().cluster(), accepted.get().pool());
            if (!loaded.valid() || loaded.specs().pools().size() != 1 || !loaded.specs().pools().get(0).name().equals(pool)) {
                unreadable.add(pool + ": the spec it accepted, kept in ConfigMap " + namespace + "/" + map.getMetadata().getName()
                        + ", cannot be read (" + loaded.errors().stream().limit(3).map(Object::toString).toList() + "); no commit is"
                        + " applied until it is fixed, or its keys " + PoolStatusRecords.ACCEPTED_COMMIT + ", "
                        + PoolStatusRecords.ACCEPTED_CLUSTER + " and " + PoolStatusRecords.ACCEPTED_POOL
                        + " are removed (then the pool is judged as new)");
                continue;
            }
            WorkerPoolSpec spec = loaded.specs().pools().get(0);
            if (!spec.cluster().equals(cluster)) {
                continue;
            }
            pools.put(pool, new ResolvedPool(loaded.specs().cluster(spec.cluster()).orElseThrow(), spec));
            read.put(pool, accepted.get());
        }
        acceptedRecords.clear();
        acceptedRecords.putAll(read);
        unreadableRecords = List.copyOf(unreadable);
        // What the last leader's checks followed: a workload that never came back still fails after a restart.
        evicted.restore(followed);
        if (pools.isEmpty()) {
            acting = null;
            return;
        }
        // The commit most pools accepted names what is acted on, and its cluster gives the windows.
        Map<String, String> commitByPool = new TreeMap<>();
        read.forEach((pool, a) -> commitByPool.put(pool, a.commit()));
        String commit = CommitAcceptance.majority(commitByPool).orElseThrow();
        ClusterSpec clusterSpec = pools.entrySet().stream().filter(e -> read.get(e.getKey()).commit().equals(commit))
                .findFirst().orElseThrow().getValue().cluster();
        acting = new Acting(commit, clusterSpec, pools);
        LOG.info("the pool records say commit {} was accepted ({} pool(s))", commit, pools.size());
    }

    /**
     * Takes the offered spec unless one of its changes is rejected; then what was accepted stays.
     * Each pool is judged against what it accepted (kept in its record); a pool that accepted
     * nothing is new, and a pool no longer offered is deleted.
     *
     * @param candidate the newest good spec from Git; null while none was offered
     */
    @Override
    public void takeOffered(SpecRevision candidate) {
        if (candidate == null) {
            return;
        }
        Acting before = acting;
        Optional<ClusterSpec> clusterSpec = candidate.specs().cluster(cluster);
        if (clusterSpec.isEmpty()) {
            rejected = CommitAcceptance.judge(candidate.commit(), candidate.specs(), cluster, Map.of(), InPlaceHistory.NONE)
                    .refusals();
            return;
        }
        List<ResolvedPool> offeredPools = candidate.specs().resolvedPools(cluster);
        Map<String, ResolvedPool> byName = new TreeMap<>();
        offeredPools.forEach(p -> byName.put(p.name(), p));
        if (before != null && candidate.commit().equals(before.commit()) && before.pools().keySet().equals(byName.keySet())) {
            return;
        }
        CommitAcceptance.Verdict verdict = before == null
                ? CommitAcceptance.judge(candidate.commit(), candidate.specs(), cluster, Map.of(), InPlaceHistory.NONE)
                : CommitAcceptance.judge(candidate.commit(), candidate.specs(), cluster, before.pools(), history());
        tokensToRecord.putAll(verdict.forceTokensUsed());
        List<String> refusals = new ArrayList<>(unreadableRecords);
        refusals.addAll(verdict.refusals());
        if (!refusals.isEmpty()) {
            if (!refusals.equals(rejected)) {
                LOG.error("commit {} is not applied; keeping {}: {}", candidate.commit(), before == null ? "nothing" : before.commit(), refusals);
            }
            rejected = List.copyOf(refusals);
            return;
        }
        String clusterText = CanonicalYaml.cluster(clusterSpec.get());
        // A pool rolled back stays where it was rolled back to while the commit offers the revision it refused again.
        Map<String, PoolStatusRecords.Accepted> heldRecords = new HashMap<>();
        List<String> held = new ArrayList<>();
        for (String pool : List.copyOf(refused.keySet())) {
            PoolStatusRecords.Refused r = refused.get(pool);
            ResolvedPool offered = byName.get(pool);
            if (offered != null && before != null && before.pools().containsKey(pool) && acceptedRecords.containsKey(pool)
                    && r.offeredAgain(clusterText, CanonicalYaml.pool(offered.pool()))) {
                byName.put(pool, before.pools().get(pool));
                heldRecords.put(pool, acceptedRecords.get(pool));
                held.add(heldMessage(pool, acceptedRecords.get(pool).commit(), r));
            } else {
                LOG.info("pool {}: its spec changed since revision {} was refused; the refusal is lifted", pool, shortCommit(r.commit()));
                refused.remove(pool);
            }
        }
        rejected = List.copyOf(held);
        Map<String, PoolTarget> newTargets = targets.accept(candidate.commit(), byName, before == null ? Map.of() : before.pools(),
                Map.copyOf(acceptedRecords), before == null ? InPlaceHistory.NONE : history(), cluster);
        acting = new Acting(candidate.commit(), clusterSpec.get(), byName);
        acceptedRecords.clear();
        byName.forEach((name, p) -> acceptedRecords.put(name, heldRecords.getOrDefault(name,
                new PoolStatusRecords.Accepted(candidate.commit(), clusterText, CanonicalYaml.pool(p.pool())))));
        if (newTargets.isEmpty()) {
            LOG.info("acting on commit {}; no pool's target changes", candidate.commit());
        } else {
            LOG.info("acting on commit {}; new target for {}", candidate.commit(), PoolTargets.describe(newTargets));
        }
    }

    /** In-place updates still in flight or failed, and the force tokens already spent, per pool. */
    private InPlaceHistory history() {
        Map<String, InPlaceHistory.Entry> entries = new HashMap<>();
        ObservedCluster observed = observer.observe(MaintenanceState.CLOSED, true, Set.of());
        for (ObservedNode n : observed.nodes()) {
            if (n.updatingInPlace() || n.inPlaceFailed()) {
                entries.put(InPlaceHistory.key(cluster, n.pool()),
                        new InPlaceHistory.Entry(true, observed.status(n.pool()).usedForceTokens()));
            }
        }
        observed.poolStatus().forEach((pool, s) -> entries.putIfAbsent(InPlaceHistory.key(cluster, pool),
                new InPlaceHistory.Entry(false, s.usedForceTokens())));
        return new InPlaceHistory(entries);
    }

    /** What the agent acts on; empty until something was accepted or read from the records. */
    @Override
    public Optional<Acting> acting() {
        return Optional.ofNullable(acting);
    }

    /** Why the newest offered commit is not applied; empty when it was taken. */
    @Override
    public List<String> rejected() {
        return rejected;
    }

    /** Each pool's target, for the report and the Events; replaced whole, never changed in place. */
    @Override
    public Map<String, PoolTarget> targets() {
        return targets.targets();
    }

    /** The plan's reports for what is acted on: pools fully current at what they accepted start their next target's reasons there. */
    @Override
    public void observed(Map<String, PoolReport> reports) {
        targets.observed(reports, acceptedRecords, acting.pools());
        reports.forEach((pool, report) -> report.status().halt().ifPresent(h -> rollBack(pool, h)));
    }

    /**
     * {@code onFailure: Rollback}: a halted pool acts, from the next pass on, on the spec at which it was last fully
     * current (its checks left out: going back to what ran healthy is not judged again), and refuses the revision that
     * failed until its spec changes. Nothing without such a spec (a new pool stays halted).
     */
    private void rollBack(String pool, dev.nightshift.strategies.model.RolloutProgress.Halt halt) {
        ResolvedPool failed = acting.pools().get(pool);
        PoolStatusRecords.Accepted failedTexts = acceptedRecords.get(pool);
        if (failed == null || failedTexts == null || failed.rollout().onFailure() != dev.nightshift.spec.model.OnFailure.Rollback) {
            return;
        }
        Optional<Map.Entry<PoolStatusRecords.Accepted, ResolvedPool>> baseline = targets.fullyCurrent(pool);
        if (baseline.isEmpty() || baseline.get().getKey().pool().equals(failedTexts.pool())) {
            return;
        }
        ResolvedPool good = baseline.get().getValue();
        WorkerPoolSpec back = good.pool().withRollout(Optional.of(new dev.nightshift.spec.model.Rollout(Optional.empty(),
                Optional.of(java.time.Duration.ZERO), Optional.of(List.of()), Optional.of(dev.nightshift.spec.model.OnFailure.Halt),
                good.pool().rollout().flatMap(dev.nightshift.spec.model.Rollout::maxFailedMachines),
                good.pool().rollout().flatMap(dev.nightshift.spec.model.Rollout::revisionHistoryLimit))));
        ResolvedPool rolledBack = new ResolvedPool(good.cluster(), back);
        PoolStatusRecords.Refused r = new PoolStatusRecords.Refused(failedTexts.commit(), failedTexts.cluster(), failedTexts.pool(),
                RolloutProgressJson.describe(halt));
        refused.put(pool, r);
        Map<String, ResolvedPool> pools = new TreeMap<>(acting.pools());
        pools.put(pool, rolledBack);
        acting = new Acting(acting.commit(), acting.cluster(), pools);
        String goodCommit = baseline.get().getKey().commit();
        acceptedRecords.put(pool, new PoolStatusRecords.Accepted(goodCommit, CanonicalYaml.cluster(good.cluster()), CanonicalYaml.pool(back)));
        dev.nightshift.spec.diff.PoolDecision d = new dev.nightshift.spec.diff.SpecDiff().decide(failed, rolledBack,
                new InPlaceHistory.Entry(false, Set.of()));
        targets.set(pool, new PoolTarget(goodCommit, d.action(), d.reasons()));
        List<String> next = new ArrayList<>(rejected);
        next.add(heldMessage(pool, goodCommit, r));
        rejected = List.copyOf(next);
        LOG.warn("pool {} rolled back: {}", pool, heldMessage(pool, goodCommit, r));
        rollbacks.rolledBack(pool, r.commit(), goodCommit, r.reason());
    }

    /** "web: held at 1a2b3c4, 9f8e7d6 refused: canary failed error-rate (0.07, must be <= 0.01) in wave 1". */
    private static String heldMessage(String pool, String heldAt, PoolStatusRecords.Refused r) {
        return pool + ": " + r.held(heldAt);
    }

    private static String shortCommit(String commit) {
        return commit.length() > 7 ? commit.substring(0, 7) : commit;
    }

    /** The revision the pool refuses after a rollback, for its record; empty when none. */
    Optional<PoolStatusRecords.Refused> refused(String pool) {
        return Optional.ofNullable(refused.get(pool));
    }

    /** The pools whose record must hold an accepted spec. */
    Set<String> recordedPools() {
        return Set.copyOf(acceptedRecords.keySet());
    }

    /** What the pool's record must say it accepted; empty for a pool no longer accepted. */
    Optional<PoolStatusRecords.Accepted> accepted(String pool) {
        return Optional.ofNullable(acceptedRecords.get(pool));
    }

    /** Why the pool's nodes change, for its record; nothing for a pool no longer accepted. */
    PoolStatusRecords.Why why(String pool) {
        return acceptedRecords.containsKey(pool) ? targets.why(pool) : PoolStatusRecords.Why.NONE;
    }

    /** The force token the taken commit spent on the pool, handed out once, to be written as used into its record. */
    Optional<String> takeForceTokenToRecord(String pool) {
        return Optional.ofNullable(tokensToRecord.remove(pool));
    }
}
