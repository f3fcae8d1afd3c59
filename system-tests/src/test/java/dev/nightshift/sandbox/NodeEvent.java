package dev.nightshift.sandbox;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.agent.kube.NodeMarks;
import io.fabric8.kubernetes.api.model.Node;

/**
 * A node as a watch of the test saw it at one event: what the crash test replays to judge drains
 * and availability.
 *
 * @param sequence       the order in which the watch delivered it
 * @param pool           the {@code nightshift.dev/pool} label, null until the agent labels the node
 * @param drainStartedAt the {@code nightshift.dev/drain-started-at} annotation, null when not draining
 * @param rollHash       the {@code nightshift.dev/roll-hash} annotation, null when unstamped
 */
record NodeEvent(long sequence, Instant time, Type type, String node, String pool, boolean ready, boolean unschedulable,
                 String drainStartedAt, String rollHash) {

    enum Type { ADDED, MODIFIED, DELETED }

    static NodeEvent of(long sequence, Instant time, Type type, Node node) {
        Map<String, String> labels = Optional.ofNullable(node.getMetadata().getLabels()).orElse(Map.of());
        Map<String, String> annotations = Optional.ofNullable(node.getMetadata().getAnnotations()).orElse(Map.of());
        boolean ready = node.getStatus() != null && node.getStatus().getConditions() != null && node.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        boolean unschedulable = node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
        return new NodeEvent(sequence, time, type, node.getMetadata().getName(), labels.get(NodeMarks.POOL), ready, unschedulable,
                annotations.get(NodeMarks.DRAIN_STARTED_AT), annotations.get(NodeMarks.ROLL_HASH));
    }

    /** One line for a failure message. */
    String line() {
        return sequence + " " + time + " " + type + " " + node + " pool=" + pool + (ready ? " Ready" : " NotReady")
                + (unschedulable ? " cordoned" : "") + (drainStartedAt == null ? "" : " drain-started-at=" + drainStartedAt)
                + " roll-hash=" + (rollHash == null ? "-" : rollHash.substring(0, Math.min(12, rollHash.length())));
    }
}
