package dev.nightshift.sandbox.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/** JSON merge patches as the API server applies them (RFC 7386), not as the mock store does. */
class MergePatchIT {

    private EmbeddedKubernetes cluster;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        cluster = EmbeddedKubernetes.start();
        client = cluster.client();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n").addToLabels("keep", "me")
                .addToAnnotations("a", "1").endMetadata().withNewSpec().addNewTaint().withKey("a").withEffect("NoSchedule")
                .endTaint().endSpec().build()).create();
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private void patch(String json) {
        client.nodes().withName("n").patch(PatchContext.of(PatchType.JSON_MERGE), json);
    }

    @Test
    void anArrayInAMergePatchReplacesTheArray() {
        patch("{\"spec\":{\"taints\":[{\"key\":\"a\",\"effect\":\"NoSchedule\"},{\"key\":\"b\",\"effect\":\"NoSchedule\"}]}}");

        assertThat(client.nodes().withName("n").get().getSpec().getTaints()).extracting(Taint::getKey).containsExactly("a", "b");
    }

    @Test
    void nullRemovesAFieldAndOtherFieldsStay() {
        patch("{\"metadata\":{\"annotations\":{\"a\":null,\"b\":\"2\"}}}");

        var node = client.nodes().withName("n").get();
        assertThat(node.getMetadata().getAnnotations()).containsOnlyKeys("b");
        assertThat(node.getMetadata().getLabels()).containsEntry("keep", "me");
    }

    @Test
    void aPatchCarryingAStaleResourceVersionIsAConflict() {
        String stale = client.nodes().withName("n").get().getMetadata().getResourceVersion();
        patch("{\"metadata\":{\"labels\":{\"x\":\"1\"}}}");

        assertThatThrownBy(() -> patch("{\"metadata\":{\"resourceVersion\":\"" + stale + "\",\"labels\":{\"y\":\"1\"}}}"))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));
        assertThat(client.nodes().withName("n").get().getMetadata().getLabels()).doesNotContainKey("y");
    }

    @Test
    void aPatchCarryingTheCurrentResourceVersionApplies() {
        String current = client.nodes().withName("n").get().getMetadata().getResourceVersion();

        patch("{\"metadata\":{\"resourceVersion\":\"" + current + "\",\"labels\":{\"y\":\"1\"}}}");

        assertThat(client.nodes().withName("n").get().getMetadata().getLabels()).containsEntry("y", "1");
    }
}
