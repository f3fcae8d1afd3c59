package dev.nightshift.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;
import io.fabric8.kubernetes.api.model.Node;

/**
 * {@link Step.Propagate}'s annotations, carried out by the executor against the embedded API and
 * read back by the observer: only keys Nightshift copied are changed or removed, and no key under
 * {@code nightshift.dev/} is ever copied or removed by propagation.
 */
class PropagateAnnotationsIT {

    private static final String FOREIGN = "example.com/oncall";
    private static final String OWNER = "example.com/owner";
    private static final StampedHash ROLL = new StampedHash(1, "a".repeat(32));
    private static final StampedHash KUBELET = new StampedHash(1, "b".repeat(32));

    private KubeSeam seam;
    private EmbeddedKubernetes kube;

    @BeforeEach
    void start() throws Exception {
        seam = new KubeSeam(Clock.systemUTC(), SimulatedMachineProvider.Behaviour.fast(), ROLL, KUBELET);
        kube = seam.kube;
        seam.edit(n -> n.getMetadata().getAnnotations().put(FOREIGN, "ops"));
        seam.startObserving();
        kube.clearRequests();
    }

    @AfterEach
    void stop() {
        seam.close();
    }

    private void propagate(Map<String, String> annotations) {
        seam.executor.execute(new Step.Propagate("web-1", "web", Map.of(NodeMarks.POOL, "web"), annotations, List.of()));
    }

    private Map<String, String> annotations() {
        return kube.client().nodes().withName("web-1").get().getMetadata().getAnnotations();
    }

    private ObservedNode observed() {
        return seam.observedNode();
    }

    /**
     * The writes to web-1 the API server took. A patch made from the agent's cached node that an edit overtook is refused
     * (409) and changes nothing; it is made again from a fresh read (NodePatcher).
     */
    private List<RecordedRequest> nodeWrites() {
        return kube.requests().stream().filter(r -> r.isWrite() && r.succeeded() && r.resourcePath().equals("/api/v1/nodes/web-1")).toList();
    }

    @Test
    void anAnnotationIsAddedChangedAndRemovedWhileOneSetBySomeoneElseStays() {
        propagate(Map.of(OWNER, "team-web"));
        assertThat(annotations()).containsEntry(OWNER, "team-web").containsEntry(FOREIGN, "ops")
                .containsEntry(NodeMarks.MANAGED_ANNOTATIONS, "[\"" + OWNER + "\"]");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(observed().managedAnnotations()).isEqualTo(Map.of(OWNER, "team-web")));

        propagate(Map.of(OWNER, "team-api"));
        assertThat(annotations()).containsEntry(OWNER, "team-api").containsEntry(FOREIGN, "ops");

        propagate(Map.of());
        assertThat(annotations()).doesNotContainKey(OWNER).containsEntry(FOREIGN, "ops")
                .containsEntry(NodeMarks.MANAGED_ANNOTATIONS, "[]");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(observed().managedAnnotations()).isEmpty());

        assertThat(nodeWrites()).as("three merge patches, none naming the other client's annotation").hasSize(3)
                .allSatisfy(r -> {
                    assertThat(r.method()).isEqualTo("PATCH");
                    assertThat(r.contentType()).startsWith("application/merge-patch+json");
                    assertThat(r.body()).doesNotContain(FOREIGN);
                });
        assertThat(nodeWrites().get(2).body()).as("the removal is a null in the merge patch").contains("\"" + OWNER + "\":null");
    }

    @Test
    void controlAnnotationsAreNeitherCopiedToTheNodeNorRemovedFromIt() {
        // A managed list someone edited to name Nightshift's own mark and a control key.
        kube.client().nodes().withName("web-1").edit(n -> {
            n.getMetadata().getAnnotations().put(NodeMarks.MANAGED_ANNOTATIONS,
                    "[\"" + NodeMarks.ROLL_HASH + "\", \"nightshift.dev/rollout-outside-window\", \"" + OWNER + "\"]");
            n.getMetadata().getAnnotations().put("nightshift.dev/rollout-outside-window", "set-by-hand");
            n.getMetadata().getAnnotations().put(OWNER, "team-web");
            return n;
        });
        kube.clearRequests();

        propagate(Map.of("nightshift.dev/force-in-place-update", "t-1", "nightshift.dev/rollout-outside-window", "true"));

        Map<String, String> after = annotations();
        assertThat(after).as("Nightshift's mark kept").containsEntry(NodeMarks.ROLL_HASH, ROLL.value());
        assertThat(after).as("a control key is neither copied nor removed")
                .doesNotContainKey("nightshift.dev/force-in-place-update")
                .containsEntry("nightshift.dev/rollout-outside-window", "set-by-hand");
        assertThat(after).as("the annotation it did copy is removed").doesNotContainKey(OWNER)
                .containsEntry(NodeMarks.MANAGED_ANNOTATIONS, "[]").containsEntry(FOREIGN, "ops");
        assertThat(nodeWrites()).singleElement().satisfies(r -> assertThat(r.body())
                .doesNotContain("force-in-place-update").doesNotContain("rollout-outside-window").doesNotContain(NodeMarks.ROLL_HASH + "\""));
    }

    @Test
    void theObserverReportsOnlyTheCopiedAnnotationsTheNodeStillCarriesWithTheirValuesNow() {
        propagate(Map.of(OWNER, "team-web", "example.com/ticket", "T-1"));
        kube.client().nodes().withName("web-1").edit(n -> {
            n.getMetadata().getAnnotations().remove("example.com/ticket");
            n.getMetadata().getAnnotations().put(OWNER, "changed-by-hand");
            return n;
        });

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(observed().managedAnnotations()).isEqualTo(Map.of(OWNER, "changed-by-hand")));
    }

    @Test
    void aNodeNeverPropagatedToHasNoManagedAnnotations() {
        Node node = kube.client().nodes().withName("web-1").get();
        assertThat(node.getMetadata().getAnnotations()).doesNotContainKey(NodeMarks.MANAGED_ANNOTATIONS);

        assertThat(observed().managedAnnotations()).isEmpty();
    }
}
