package dev.nightshift.strategies.model;

import java.util.List;
import java.util.Map;

/**
 * Everything the planner knows about the cluster right now.
 *
 * @param nodes             every machine of every managed pool
 * @param controlPlaneReady the control plane answered and its nodes are Ready
 * @param poolStatus        the per-pool records, by pool name
 */
public record ObservedCluster(
        List<ObservedNode> nodes,
        boolean controlPlaneReady,
        MaintenanceState maintenance,
        Map<String, PoolStatus> poolStatus) {

    public ObservedCluster {
        nodes = List.copyOf(nodes);
        poolStatus = Map.copyOf(poolStatus);
    }

    public PoolStatus status(String pool) {
        return poolStatus.getOrDefault(pool, PoolStatus.NEW);
    }

    public List<ObservedNode> nodesOf(String pool) {
        return nodes.stream().filter(n -> n.pool().equals(pool)).toList();
    }
}
