package dev.nightshift.agent.reconcile;

import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.nightshift.agent.eta.PoolDurations;
import dev.nightshift.agent.kube.ClusterObserver;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedCluster;

/** The observe stage against the cluster: the observer's caches, and the executor settling what finished. */
final class ObserverView implements ClusterView {

    private final ClusterObserver observer;
    private final StepExecutor executor;
    private final String namespace;
    /** This pass's provider failures, by pool. */
    private final Map<String, String> failures = new java.util.TreeMap<>();

    /** @param namespace where the pool records are kept */
    ObserverView(ClusterObserver observer, StepExecutor executor, String namespace) {
        this.observer = observer;
        this.executor = executor;
        this.namespace = namespace;
    }

    @Override
    public void refresh(DesiredCluster desired, boolean acting) {
        // What the provider answered for the last pass is stale now; each pool is listed at most once from here on.
        observer.refresh();
        failures.clear();
        observer.listAhead(desired.pools().stream().map(DesiredPool::name).collect(java.util.stream.Collectors.toSet()));
        if (acting) {
            desired.pools().stream().sorted(Comparator.comparing(DesiredPool::name)).forEach(p -> {
                try {
                    executor.settle(p, observer.unmarked(p.name()));
                } catch (RuntimeException e) {
                    failed(p.name(), e);
                }
            });
        }
    }

    private void failed(String pool, RuntimeException e) {
        failures.putIfAbsent(pool, e.getClass().getSimpleName() + ": " + e.getMessage());
    }

    @Override
    public Map<String, String> providerFailures() {
        return Map.copyOf(failures);
    }

    @Override
    public ObservedCluster observe(MaintenanceState maintenance, Set<String> pools) {
        Set<String> listed = new java.util.HashSet<>(pools);
        listed.removeAll(failures.keySet());
        return observer.observe(maintenance, observer.controlPlaneNodesReady(), listed, this::failed);
    }

    @Override
    public Map<String, String> machineNodes(Set<String> pools) {
        return observer.machineNodes(pools);
    }

    @Override
    public Map<String, String> refusals(Set<String> pools) {
        return observer.refusals(pools);
    }

    @Override
    public boolean refillsPools() {
        return observer.refillsPools();
    }

    @Override
    public Optional<String> inPlaceFailure(String node) {
        return observer.node(node).map(n -> NodeMarks.annotation(n, NodeMarks.IN_PLACE_FAILED_REASON));
    }

    @Override
    public PoolDurations recordedDurations(String pool) {
        return observer.recordedDurations(namespace, pool);
    }
}
