package dev.nightshift.agent.kube;

import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import dev.nightshift.strategies.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Node;

/**
 * Which node updates can change a plan. A kubelet posts its node's status every few seconds (a new
 * {@code lastHeartbeatTime}, images, resource figures), which at thousands of nodes is many updates a second that
 * change nothing the planner reads; only the ones that change something it reads ask for a reconcile.
 */
final class NodeChanges {

    private NodeChanges() {
    }

    /**
     * Whether going from {@code before} to {@code after} can change a plan: a label, an annotation, the spec (taints,
     * {@code unschedulable}), the deletion timestamp, or a condition's status or transition time changed. On a node in
     * flight ({@link #inFlight}) every update counts: the node updater reads a kubelet's restart from its heartbeat.
     */
    static boolean matter(Node before, Node after) {
        if (inFlight(before) || inFlight(after)) {
            return true;
        }
        return !Objects.equals(NodeMarks.labels(before), NodeMarks.labels(after))
                || !Objects.equals(NodeMarks.annotations(before), NodeMarks.annotations(after))
                || !Objects.equals(before.getSpec(), after.getSpec())
                || !Objects.equals(before.getMetadata().getDeletionTimestamp(), after.getMetadata().getDeletionTimestamp())
                || !conditions(before).equals(conditions(after));
    }

    /**
     * Nightshift is draining or updating the node: its pods and its kubelet's reports decide when the step is done. A
     * drain carries {@link NodeMarks#DRAIN_STARTED_AT} from its first pass until the node is released or replaced.
     */
    static boolean inFlight(Node node) {
        Map<String, String> a = NodeMarks.annotations(node);
        return a.containsKey(NodeMarks.DRAIN_STARTED_AT) || a.containsKey(NodeMarks.IN_PLACE_STARTED_AT)
                || a.containsKey(NodeMarks.KUBELET_RESTART_AT) || a.containsKey(NodeMarks.UPDATE_JOB);
    }

    /**
     * An in-place update or kubelet restart of the node has started and not been settled: only then can a node
     * updater have an outcome to write on it. A drain alone is in flight ({@link #inFlight}) but waits for no updater.
     */
    static boolean awaitingUpdate(Node node) {
        Map<String, String> a = NodeMarks.annotations(node);
        return a.containsKey(NodeMarks.IN_PLACE_STARTED_AT) || a.containsKey(NodeMarks.KUBELET_RESTART_AT)
                || a.containsKey(NodeMarks.UPDATE_JOB);
    }

    /** Type, status and transition time of each condition, as the planner reads them; order does not matter. */
    private static Set<NodeCondition> conditions(Node node) {
        return new HashSet<>(ClusterObserver.conditions(node));
    }
}
