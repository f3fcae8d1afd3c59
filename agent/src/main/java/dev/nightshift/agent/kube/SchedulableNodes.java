package dev.nightshift.agent.kube;

import io.fabric8.kubernetes.api.model.Node;

/**
 * Whether a node, as the API server has it now, can be given pods: Ready, schedulable and not being deleted. A machine
 * whose node is such must be drained before it goes, whatever a plan made a moment earlier believed.
 */
public final class SchedulableNodes {

    private SchedulableNodes() {
    }

    public static boolean takesPods(Node node) {
        if (node == null || node.getMetadata().getDeletionTimestamp() != null
                || (node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable()))
                || NodeMarks.startupTainted(node)) {
            return false;
        }
        return node.getStatus() != null && node.getStatus().getConditions() != null && node.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
