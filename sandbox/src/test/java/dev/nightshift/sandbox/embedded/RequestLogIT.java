package dev.nightshift.sandbox.embedded;

import static dev.nightshift.sandbox.embedded.Fixtures.NS;
import static dev.nightshift.sandbox.embedded.Fixtures.node;
import static dev.nightshift.sandbox.embedded.Fixtures.readyPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/** The log of what the cluster saw, from which tests of the agent assert its limits. */
class RequestLogIT {

    private final EmbeddedKubernetes cluster = EmbeddedKubernetes.start();
    private final KubernetesClient client = cluster.client();

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void requestsAreLoggedInOrderWithBodiesAndAnswers() {
        Instant before = Instant.now();
        client.nodes().resource(node("node-a", Map.of())).create();
        client.nodes().withName("node-a").patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":true}}");
        client.nodes().withName("node-b").get();
        client.nodes().withName("node-a").delete();

        List<RecordedRequest> log = cluster.requests();

        assertThat(log).extracting(RecordedRequest::method, RecordedRequest::resourcePath, RecordedRequest::status)
                .containsExactly(
                        tuple("POST", "/api/v1/nodes", 201),
                        tuple("GET", "/api/v1/nodes/node-a", 200), // fabric8 reads before it patches
                        tuple("PATCH", "/api/v1/nodes/node-a", 200),
                        tuple("GET", "/api/v1/nodes/node-b", 404),
                        tuple("DELETE", "/api/v1/nodes/node-a", 200));
        assertThat(log.get(0).body()).contains("\"name\":\"node-a\"").contains("demo://node-a");
        assertThat(log.get(2).body()).isEqualTo("{\"spec\":{\"unschedulable\":true}}");
        assertThat(log.get(2).contentType()).startsWith("application/merge-patch+json");
        assertThat(log.get(3).body()).isEmpty();
        assertThat(log).extracting(RecordedRequest::sequence).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(log).allSatisfy(r -> assertThat(r.time()).isAfterOrEqualTo(before.minusMillis(1)));
        assertThat(log).extracting(RecordedRequest::time).isSorted();
    }

    @Test
    void theQueryIsPartOfTheLoggedPath() {
        client.nodes().withLabel("pool", "cpu").list();

        assertThat(cluster.requests()).singleElement().satisfies(r -> {
            assertThat(r.resourcePath()).isEqualTo("/api/v1/nodes");
            assertThat(r.query()).contains("labelSelector=pool%3Dcpu");
            assertThat(r.path()).isEqualTo(r.resourcePath() + "?" + r.query());
        });
    }

    @Test
    void anEvictionIsLoggedWithItsBodyAndAnswer() {
        client.pods().inNamespace(NS).resource(readyPod("web-1", Map.of("app", "web"))).create();
        cluster.clearRequests();

        client.pods().inNamespace(NS).withName("web-1").evict();

        assertThat(cluster.requests()).singleElement().satisfies(r -> {
            assertThat(r.method()).isEqualTo("POST");
            assertThat(r.resourcePath()).isEqualTo("/api/v1/namespaces/shop/pods/web-1/eviction");
            assertThat(r.body()).contains("\"kind\":\"Eviction\"");
            assertThat(r.status()).isEqualTo(201);
            assertThat(r.isWrite()).isTrue();
            assertThat(r.succeeded()).isTrue();
        });
    }

    @Test
    void clearForgetsEarlierRequestsButKeepsCounting() {
        client.nodes().list();
        client.nodes().list();

        cluster.clearRequests();
        client.nodes().withName("node-a").get();

        assertThat(cluster.requests()).singleElement().satisfies(r -> {
            assertThat(r.resourcePath()).isEqualTo("/api/v1/nodes/node-a");
            assertThat(r.sequence()).isEqualTo(3L);
        });
    }

    @Test
    void aSnapshotDoesNotChangeWithLaterRequests() {
        client.nodes().list();
        List<RecordedRequest> snapshot = cluster.requests();

        client.nodes().list();

        assertThat(snapshot).hasSize(1);
        assertThat(cluster.requests()).hasSize(2);
    }

    @Test
    void aWatchIsLoggedAsAnUpgradeAndKeepsDeliveringEvents() {
        List<String> seen = new CopyOnWriteArrayList<>();
        Watch watch = client.nodes().watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Node node) {
                seen.add(action + " " + node.getMetadata().getName());
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        });
        try {
            client.nodes().resource(node("node-a", Map.of())).create();

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(seen).containsExactly("ADDED node-a"));
        } finally {
            watch.close();
        }
        assertThat(cluster.requests()).filteredOn(r -> r.query().contains("watch=true")).singleElement()
                .satisfies(r -> assertThat(r.status()).isEqualTo(101));
    }

    @Test
    void concurrentWritesAreAllLoggedWithDistinctSequences() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Node>> creations = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                String name = "node-" + i;
                creations.add(pool.submit(() -> client.nodes().resource(node(name, Map.of())).create()));
            }
            for (Future<Node> creation : creations) {
                creation.get();
            }
        } finally {
            pool.shutdownNow();
        }

        List<RecordedRequest> log = cluster.requests();

        assertThat(log).hasSize(40).allSatisfy(r -> assertThat(r.status()).isEqualTo(201));
        assertThat(log).extracting(RecordedRequest::sequence).doesNotHaveDuplicates().isSorted();
        assertThat(client.nodes().list().getItems()).hasSize(40);
    }
}
