package dev.nightshift.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;

/** Node writes from the cached node, against the embedded API server: judged from the requests it saw and what it stores. */
class NodePatcherTest {

    private static final String NODE = "web-1";

    private final EmbeddedKubernetes kube = EmbeddedKubernetes.start();

    @AfterEach
    void stop() {
        kube.close();
    }

    private Node create() {
        return kube.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).addToLabels("app", "web")
                .endMetadata().build()).create();
    }

    private static Optional<Map<String, Object>> label(String key, String value) {
        return Optional.of(Map.of("metadata", Map.of("labels", Map.of(key, value))));
    }

    private List<RecordedRequest> nodeRequests() {
        return kube.requests().stream().filter(r -> r.resourcePath().equals("/api/v1/nodes/" + NODE)).toList();
    }

    @Test
    void aWriteComputedFromTheCachedNodeSendsNoRead() {
        Node cached = create();
        kube.clearRequests();

        boolean exists = new NodePatcher(kube.client(), name -> Optional.of(cached)).patch(NODE, n -> label("tier", "front"));

        assertThat(exists).isTrue();
        assertThat(nodeRequests()).extracting(RecordedRequest::method, RecordedRequest::succeeded)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("PATCH", true));
        assertThat(kube.client().nodes().withName(NODE).get().getMetadata().getLabels()).containsEntry("tier", "front");
    }

    @Test
    void aCachedNodeBehindTheServerAnswers409AndTheChangeIsComputedAgainFromARead() {
        Node cached = create();
        // Another client's write since the cache saw the node.
        kube.client().nodes().withName(NODE).edit(n -> new NodeBuilder(n).editMetadata().addToLabels("owner", "ops").endMetadata().build());
        kube.clearRequests();
        List<Map<String, String>> seen = new ArrayList<>();

        new NodePatcher(kube.client(), name -> Optional.of(cached)).patch(NODE, n -> {
            seen.add(Map.copyOf(n.getMetadata().getLabels()));
            return label("tier", "front");
        });

        assertThat(nodeRequests()).extracting(RecordedRequest::method).containsExactly("PATCH", "GET", "PATCH");
        assertThat(nodeRequests().get(0).status()).isEqualTo(409);
        assertThat(seen).containsExactly(Map.of("app", "web"), Map.of("app", "web", "owner", "ops"));
        assertThat(kube.client().nodes().withName(NODE).get().getMetadata().getLabels())
                .containsEntry("owner", "ops").containsEntry("tier", "front");
    }

    @Test
    void withoutACachedNodeTheNodeIsRead() {
        create();
        kube.clearRequests();

        new NodePatcher(kube.client(), name -> Optional.empty()).patch(NODE, n -> label("tier", "front"));

        assertThat(nodeRequests()).extracting(RecordedRequest::method).containsExactly("GET", "PATCH");
    }
}
