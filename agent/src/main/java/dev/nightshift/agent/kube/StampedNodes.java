package dev.nightshift.agent.kube;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.nightshift.strategies.model.ObservedNode;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The hashes stamped on every pool's nodes, read once with a paged LIST (no watch, no pods):
 * what {@code nightshift diff --kubeconfig} compares a new spec with. Each node comes as the planner
 * sees one, but only its name, pool, hashes and needs-update mark are read; the rest is an idle
 * node's, so it answers {@code DesiredPool.hashOutdated} and {@code kubeletOutdated} and nothing more.
 */
public final class StampedNodes {

    private StampedNodes() {
    }

    /** The nodes labelled {@value NodeMarks#POOL}, by pool. */
    public static Map<String, List<ObservedNode>> byPool(KubernetesClient client) {
        Map<String, List<ObservedNode>> byPool = new TreeMap<>();
        String page = null;
        do {
            NodeList list = client.nodes().withLabel(NodeMarks.POOL)
                    .list(new ListOptionsBuilder().withLimit(ClusterObserver.PAGE).withContinue(page).build());
            for (Node node : list.getItems()) {
                ObservedNode n = stamped(node);
                byPool.computeIfAbsent(n.pool(), p -> new ArrayList<>()).add(n);
            }
            page = list.getMetadata() == null ? null : list.getMetadata().getContinue();
        } while (page != null && !page.isEmpty());
        return byPool;
    }

    private static ObservedNode stamped(Node node) {
        Map<String, String> annotations = NodeMarks.annotations(node);
        return ObservedNode.ready(node.getMetadata().getName(), NodeMarks.labels(node).get(NodeMarks.POOL), java.time.Instant.EPOCH)
                .toBuilder()
                .rollHash(NodeMarks.rollHash(annotations).orElse(null))
                .kubeletHash(NodeMarks.kubeletHash(annotations).orElse(null))
                .needsUpdate("true".equals(NodeMarks.labels(node).get(NodeMarks.NEEDS_UPDATE)))
                .build();
    }
}
