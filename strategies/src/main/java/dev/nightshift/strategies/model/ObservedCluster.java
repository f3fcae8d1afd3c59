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
 * @param health            the verdict of each pool's rollout health checks, by pool name; a pool with
 *                          checks and no verdict is judged unknown, never passing
 * @param zones             each registered node's zone (its {@code topology.kubernetes.io/zone} label), by node name;
 *                          nodes without the label are in no zone
 */
public record ObservedCluster(
        List<ObservedNode> nodes,
        boolean controlPlaneReady,
        MaintenanceState maintenance,
        Map<String, PoolStatus> poolStatus,
        Map<String, Boolean> controlPlaneNodes,
        Map<String, HealthVerdict> health,
        Map<String, String> zones) {

    /** The label a node's zone is read from. */
    public static final String ZONE_LABEL = "topology.kubernetes.io/zone";

    public ObservedCluster {
        nodes = List.copyOf(nodes);
        poolStatus = Map.copyOf(poolStatus);
        controlPlaneNodes = Map.copyOf(controlPlaneNodes);
        health = Map.copyOf(health);
        zones = Map.copyOf(zones);
    }

    /** Without zones. */
    public ObservedCluster(List<ObservedNode> nodes, boolean controlPlaneReady, MaintenanceState maintenance,
                           Map<String, PoolStatus> poolStatus, Map<String, Boolean> controlPlaneNodes, Map<String, HealthVerdict> health) {
        this(nodes, controlPlaneReady, maintenance, poolStatus, controlPlaneNodes, health, Map.of());
    }

    /** The same observation with each node's zone. */
    public ObservedCluster withZones(Map<String, String> value) {
        return new ObservedCluster(nodes, controlPlaneReady, maintenance, poolStatus, controlPlaneNodes, health, value);
    }

    /** The same observation of other nodes (the rest kept: verdicts, zones). */
    public ObservedCluster withNodes(List<ObservedNode> value) {
        return new ObservedCluster(value, controlPlaneReady, maintenance, poolStatus, controlPlaneNodes, health, zones);
    }

    /** The node's zone; empty for a node without the label. */
    public java.util.Optional<String> zone(String node) {
        return java.util.Optional.ofNullable(zones.get(node));
    }

    /** With no health verdicts (pools without checks). */
    public ObservedCluster(List<ObservedNode> nodes, boolean controlPlaneReady, MaintenanceState maintenance,
                           Map<String, PoolStatus> poolStatus, Map<String, Boolean> controlPlaneNodes) {
        this(nodes, controlPlaneReady, maintenance, poolStatus, controlPlaneNodes, Map.of());
    }

    /** The same observation with each pool's health verdict. */
    public ObservedCluster withHealth(Map<String, HealthVerdict> verdicts) {
        return new ObservedCluster(nodes, controlPlaneReady, maintenance, poolStatus, controlPlaneNodes, verdicts, zones);
    }

    /** The pool's verdict; empty when none was given. */
    public java.util.Optional<HealthVerdict> health(String pool) {
        return java.util.Optional.ofNullable(health.get(pool));
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
