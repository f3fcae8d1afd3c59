package dev.nightshift.strategies.model;

import java.util.List;
import java.util.Map;

/**
 * Everything the planner knows about the cluster right now.
 *
 * @param nodes             every machine of every managed pool
 * @param controlPlaneReady the control plane answered and its nodes are Ready
 * @param poolStatus        the per-pool records, by pool name
 * @param controlPlaneNodes the nodes the cluster labels {@code node-role.kubernetes.io/control-plane},
 *                          in a pool or not, each with whether it is Ready (none where the control
 *                          plane runs elsewhere)
 */
public record ObservedCluster(
        List<ObservedNode> nodes,
        boolean controlPlaneReady,
        MaintenanceState maintenance,
        Map<String, PoolStatus> poolStatus,
        Map<String, Boolean> controlPlaneNodes) {

    public ObservedCluster {
        nodes = List.copyOf(nodes);
        poolStatus = Map.copyOf(poolStatus);
        controlPlaneNodes = Map.copyOf(controlPlaneNodes);
    }

    /** With no control-plane nodes to be seen (the simulator, most planner tests). */
    public ObservedCluster(List<ObservedNode> nodes, boolean controlPlaneReady, MaintenanceState maintenance,
                           Map<String, PoolStatus> poolStatus) {
        this(nodes, controlPlaneReady, maintenance, poolStatus, Map.of());
    }

    /**
     * The control plane is Ready, or the only thing keeping it from Ready is {@code node} itself not
     * being Ready: a control-plane node that failed must not block its own repair.
     */
    public boolean controlPlaneReadyBesides(String node) {
        if (controlPlaneReady) {
            return true;
        }
        List<String> notReady = controlPlaneNodes.entrySet().stream().filter(e -> !e.getValue()).map(Map.Entry::getKey).toList();
        return notReady.equals(List.of(node));
    }

    public PoolStatus status(String pool) {
        return poolStatus.getOrDefault(pool, PoolStatus.NEW);
    }

    public List<ObservedNode> nodesOf(String pool) {
        return nodes.stream().filter(n -> n.pool().equals(pool)).toList();
    }
}
