package dev.nightshift.sandbox.embedded;

import static dev.nightshift.sandbox.embedded.Fixtures.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/** LISTs with {@code limit} and {@code continue} come in pages, each list from one snapshot, as from a real API server. */
class ListPagesIT {

    private final EmbeddedKubernetes cluster = EmbeddedKubernetes.start();
    private final KubernetesClient client = cluster.client();

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void aLimitedListComesInPagesThatHoldEveryObjectOnce() {
        for (int i = 1; i <= 25; i++) {
            client.nodes().resource(node("node-" + i, Map.of("pool", i % 2 == 0 ? "even" : "odd"))).create();
        }

        List<NodeList> pages = pages(null, 10);

        assertThat(pages).extracting(p -> p.getItems().size()).containsExactly(10, 10, 5);
        assertThat(pages).extracting(p -> p.getMetadata().getRemainingItemCount()).containsExactly(15L, 5L, null);
        assertThat(pages.get(2).getMetadata().getContinue()).as("the last page names no next one").isNullOrEmpty();
        assertThat(pages.stream().flatMap(p -> p.getItems().stream()).map(n -> n.getMetadata().getName()))
                .hasSize(25).doesNotHaveDuplicates();
        assertThat(cluster.requests()).filteredOn(r -> r.method().equals("GET")).extracting(RecordedRequest::query)
                .satisfiesExactly(
                        first -> assertThat(first).contains("limit=10").doesNotContain("continue="),
                        second -> assertThat(second).contains("limit=10").contains("continue="),
                        third -> assertThat(third).contains("limit=10").contains("continue="));
    }

    @Test
    void aSelectedListIsPagedAfterSelecting() {
        for (int i = 1; i <= 25; i++) {
            client.nodes().resource(node("node-" + i, Map.of("pool", i % 2 == 0 ? "even" : "odd"))).create();
        }

        List<NodeList> pages = pages("pool=even", 5);

        assertThat(pages).extracting(p -> p.getItems().size()).containsExactly(5, 5, 2);
        assertThat(pages.stream().flatMap(p -> p.getItems().stream()))
                .allSatisfy(n -> assertThat(n.getMetadata().getLabels()).containsEntry("pool", "even"));
    }

    @Test
    void everyPageOfAListComesFromTheSnapshotOfItsFirstPage() {
        for (int i = 1; i <= 6; i++) {
            client.nodes().resource(node("node-" + i, Map.of())).create();
        }
        NodeList first = client.nodes().list(new ListOptionsBuilder().withLimit(3L).build());
        List<String> firstNames = first.getItems().stream().map(n -> n.getMetadata().getName()).toList();
        String gone = List.of("node-1", "node-2", "node-3", "node-4", "node-5", "node-6").stream()
                .filter(n -> !firstNames.contains(n)).findFirst().orElseThrow();
        client.nodes().withName(gone).delete();
        client.nodes().resource(node("node-7", Map.of())).create();

        NodeList second = client.nodes().list(new ListOptionsBuilder().withLimit(3L).withContinue(first.getMetadata().getContinue())
                .build());

        assertThat(second.getItems()).extracting(n -> n.getMetadata().getName()).as("deleted after the first page, still listed")
                .contains(gone).doesNotContain("node-7").doesNotContainAnyElementsOf(firstNames);
        assertThat(second.getMetadata().getResourceVersion()).isEqualTo(first.getMetadata().getResourceVersion());
        assertThat(client.nodes().list().getItems()).extracting(n -> n.getMetadata().getName()).contains("node-7").doesNotContain(gone);
    }

    @Test
    void aContinueTokenTheServerDoesNotHoldAnswersGoneExpired() {
        client.nodes().resource(node("node-1", Map.of())).create();

        assertThatThrownBy(() -> client.nodes().list(new ListOptionsBuilder().withLimit(3L).withContinue("bm90LWEtdG9rZW4").build()))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(410);
                    assertThat(e.getStatus().getReason()).isEqualTo("Expired");
                });
    }

    @Test
    void aListWithinItsLimitComesWholeWithoutAToken() {
        client.nodes().resource(node("node-1", Map.of())).create();

        NodeList list = client.nodes().list(new ListOptionsBuilder().withLimit(3L).build());

        assertThat(list.getItems()).extracting(Node::getMetadata).hasSize(1);
        assertThat(list.getMetadata().getContinue()).isNullOrEmpty();
    }

    private List<NodeList> pages(String labelSelector, long limit) {
        List<NodeList> pages = new ArrayList<>();
        String next = null;
        do {
            NodeList page = client.nodes().list(new ListOptionsBuilder().withLabelSelector(labelSelector).withLimit(limit)
                    .withContinue(next).build());
            pages.add(page);
            next = page.getMetadata().getContinue();
        } while (next != null && !next.isEmpty());
        return pages;
    }
}
