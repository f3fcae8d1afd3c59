package dev.nightshift.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;

/** Which node updates ask for a reconcile: those that can change a plan, not a kubelet's heartbeats. */
class NodeChangesTest {

    private static Node node() {
        return new NodeBuilder().withNewMetadata().withName("web-1").withResourceVersion("10").addToLabels(NodeMarks.POOL, "web")
                .addToAnnotations(NodeMarks.ROLL_HASH, "abc").endMetadata()
                .withNewSpec().endSpec()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True").withLastTransitionTime("2026-11-01T10:00:00Z")
                .withLastHeartbeatTime("2026-11-01T10:00:00Z").endCondition()
                .addNewCondition().withType("DiskPressure").withStatus("False").withLastTransitionTime("2026-11-01T10:00:00Z")
                .withLastHeartbeatTime("2026-11-01T10:00:00Z").endCondition()
                .addNewImage().addToNames("registry.example/app:1").endImage().endStatus()
                .build();
    }

    private static Node changed(Node node, Consumer<Node> change) {
        Node copy = new NodeBuilder(node).build();
        change.accept(copy);
        return copy;
    }

    private static Consumer<Node> heartbeat() {
        return n -> {
            n.getMetadata().setResourceVersion("11");
            n.getStatus().getConditions().forEach(c -> c.setLastHeartbeatTime("2026-11-01T10:00:40Z"));
            n.getStatus().getImages().get(0).getNames().add("registry.example/app:2");
        };
    }

    @Test
    void aHeartbeatChangesNothingAPlanReads() {
        Node before = node();

        assertThat(NodeChanges.matter(before, changed(before, heartbeat()))).isFalse();
    }

    @Test
    void aConditionsStatusMatters() {
        Node before = node();

        assertThat(NodeChanges.matter(before, changed(before, n -> n.getStatus().getConditions().get(1).setStatus("True")))).isTrue();
    }

    @Test
    void aLabelAnAnnotationATaintAndUnschedulableMatter() {
        Node before = node();

        assertThat(NodeChanges.matter(before, changed(before, n -> n.getMetadata().getLabels().put("team", "web")))).isTrue();
        assertThat(NodeChanges.matter(before, changed(before, n -> n.getMetadata().getAnnotations().put("example.com/a", "b")))).isTrue();
        assertThat(NodeChanges.matter(before, changed(before, n -> n.getSpec().getTaints().add(new TaintBuilder().withKey("k")
                .withEffect("NoSchedule").build())))).isTrue();
        assertThat(NodeChanges.matter(before, changed(before, n -> n.getSpec().setUnschedulable(true)))).isTrue();
        assertThat(NodeChanges.matter(before, changed(before, n -> n.getMetadata().setDeletionTimestamp("2026-11-01T11:00:00Z"))))
                .isTrue();
    }

    @Test
    void onANodeInFlightEvenAHeartbeatMatters() {
        Node draining = changed(node(), n -> n.getMetadata().getAnnotations().put(NodeMarks.DRAIN_STARTED_AT, "2026-11-01T10:00:30Z"));
        Node restarting = changed(node(), n -> n.getMetadata().getAnnotations().put(NodeMarks.KUBELET_RESTART_AT, "2026-11-01T10:00:30Z"));

        assertThat(NodeChanges.matter(draining, changed(draining, heartbeat()))).isTrue();
        assertThat(NodeChanges.matter(restarting, changed(restarting, heartbeat()))).isTrue();
    }
}
