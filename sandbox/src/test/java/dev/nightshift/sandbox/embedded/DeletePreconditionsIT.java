package dev.nightshift.sandbox.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/** A DELETE with preconditions, as the API server answers it: refused (409) when the object changed since it was read. */
class DeletePreconditionsIT {

    private EmbeddedKubernetes cluster;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        cluster = EmbeddedKubernetes.start();
        client = cluster.client();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n").endMetadata().build()).create();
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void aDeleteLockedToAStaleResourceVersionIsRefusedAndDeletesNothing() {
        String read = client.nodes().withName("n").get().getMetadata().getResourceVersion();
        client.nodes().withName("n").patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"joined\":\"yes\"}}}");

        assertThatThrownBy(() -> client.nodes().withName("n").lockResourceVersion(read).delete())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(409);
                    assertThat(e.getMessage()).contains("Precondition failed: ResourceVersion in precondition: " + read);
                });
        assertThat(client.nodes().withName("n").get()).isNotNull();
        assertThat(cluster.requests()).anyMatch(r -> r.method().equals("DELETE") && r.status() == 409);
    }

    @Test
    void aDeleteLockedToTheCurrentResourceVersionDeletes() {
        String current = client.nodes().withName("n").get().getMetadata().getResourceVersion();

        client.nodes().withName("n").lockResourceVersion(current).delete();

        assertThat(client.nodes().withName("n").get()).isNull();
    }
}
