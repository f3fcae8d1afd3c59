package dev.nightshift.sandbox.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * What the scale benchmark relies on: objects stored straight into the store are served, patched, evicted and
 * watched like objects created through the API; objects are found by name however their labels change (the store's
 * name index, {@code IndexedCrudDispatcher}); and the request log is also written as JSON lines for another process.
 */
class BulkSeedingIT {

    private static final String NS = "team-web";
    private final EmbeddedKubernetes cluster = EmbeddedKubernetes.start();
    private final KubernetesClient client = cluster.client();
    /** Without fabric8's retries of a 429, which take seconds. */
    private final KubernetesClient noRetry = Fixtures.noRetryClient(cluster);

    @TempDir
    Path tmp;

    @AfterEach
    void stop() {
        cluster.close();
    }

    private static Pod pod(String name, String node) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace(NS).addToLabels("app", "web").endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("app").withImage("app:1").endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build();
    }

    private static PodDisruptionBudget budget() {
        return new PodDisruptionBudgetBuilder().withNewMetadata().withName("web").withNamespace(NS).endMetadata()
                .withNewSpec().withMaxUnavailable(new IntOrString(1)).withNewSelector().addToMatchLabels("app", "web").endSelector()
                .endSpec().build();
    }

    @Test
    void objectsStoredDirectlyAreServedListedInPagesAndGetMetadata() {
        cluster.createDirectly(List.of(pod("web-1-0", "web-1"), pod("web-1-1", "web-1"), pod("web-2-0", "web-2"), budget()));

        Pod one = client.pods().inNamespace(NS).withName("web-1-1").get();
        assertThat(one.getMetadata().getUid()).isNotBlank();
        assertThat(one.getMetadata().getCreationTimestamp()).isNotBlank();
        assertThat(one.getMetadata().getResourceVersion()).isNotBlank();
        assertThat(one.getStatus().getPhase()).isEqualTo("Running");
        assertThat(client.pods().inNamespace(NS).withLabel("app", "web").list().getItems()).extracting(p -> p.getMetadata().getName())
                .containsExactlyInAnyOrder("web-1-0", "web-1-1", "web-2-0");
        assertThat(client.pods().inAnyNamespace().list(new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(2L).build())
                .getMetadata().getContinue()).as("paged").isNotEmpty();
        assertThat(client.policy().v1().podDisruptionBudget().inNamespace(NS).withName("web").get()).isNotNull();
    }

    /**
     * The eviction subresource reads a namespace's budgets and pods from the store's index by kind and namespace, not by
     * reading every object: a budget of another namespace does not hold an eviction, a deleted budget no longer holds
     * one, and a pod or ReplicaSet that is not stored answers 404 without a scan.
     */
    @Test
    void evictionsReadTheBudgetsAndPodsOfTheirOwnNamespaceOnly() {
        PodDisruptionBudget none = new PodDisruptionBudgetBuilder(budget()).editSpec().withMaxUnavailable(new IntOrString(0)).endSpec().build();
        Pod elsewhere = new PodBuilder(pod("web-9-0", "web-9")).editMetadata().withNamespace("team-db").endMetadata().build();
        cluster.createDirectly(List.of(pod("web-1-0", "web-1"), pod("web-1-1", "web-1"), none, elsewhere));

        assertThat(evict("team-db", "web-9-0")).as("team-web's budget does not hold team-db's pod").isEqualTo(201);
        assertThat(evict(NS, "web-1-0")).as("held by its own namespace's budget").isEqualTo(429);
        client.policy().v1().podDisruptionBudget().inNamespace(NS).withName("web").delete();
        await().untilAsserted(() -> assertThat(evict(NS, "web-1-0")).as("the deleted budget holds nothing").isEqualTo(201));
        assertThat(evict(NS, "web-1-0")).as("gone").isEqualTo(404);
        assertThat(client.pods().inNamespace(NS).withName("web-1-0").get()).isNull();
        assertThat(client.pods().inNamespace(NS).withName("web-1-1").get()).isNotNull();
    }

    /** A DELETE found by name (the index, no scan) removes that object only, tells watches, and a second one is a 404. */
    @Test
    void aDeleteByNameRemovesThatObjectOnlyAndWatchesSeeIt() throws Exception {
        Pod same = new PodBuilder(pod("web-1-0", "web-1")).editMetadata().withNamespace("team-db").endMetadata().build();
        cluster.createDirectly(List.of(pod("web-1-0", "web-1"), same));
        List<String> seen = new CopyOnWriteArrayList<>();
        try (Watch w = client.pods().inNamespace(NS).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                seen.add(action + " " + pod.getMetadata().getName());
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        })) {
            assertThat(client.pods().inNamespace(NS).withName("web-1-0").delete()).hasSize(1);
            await().untilAsserted(() -> assertThat(seen).contains("DELETED web-1-0"));
        }
        assertThat(client.pods().inNamespace(NS).withName("web-1-0").get()).isNull();
        assertThat(client.pods().inNamespace("team-db").withName("web-1-0").get()).as("another namespace's").isNotNull();
        assertThat(client.pods().inNamespace(NS).withName("web-1-0").delete()).as("gone: a 404").isEmpty();
    }

    private int evict(String namespace, String pod) {
        try {
            // fabric8 answers a refusal (429) with false, a 404 with an exception.
            return noRetry.pods().inNamespace(namespace).withName(pod).evict() ? 201 : 429;
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            return e.getCode();
        }
    }

    @Test
    void anObjectStoredDirectlyIsFoundByNameAfterItsLabelsChangeAndGoneAfterItsEviction() {
        cluster.createDirectly(List.of(pod("web-1-0", "web-1"), pod("web-1-1", "web-1"), budget()));
        // Found once (and so remembered under its name), then its labels, part of the store's key, change.
        client.pods().inNamespace(NS).withName("web-1-0").get();
        client.pods().inNamespace(NS).withName("web-1-0").patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"labels\":{\"churn\":\"a\"}}}");
        client.pods().inNamespace(NS).withName("web-1-0").patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"labels\":{\"churn\":\"b\"}}}");

        assertThat(client.pods().inNamespace(NS).withName("web-1-0").get().getMetadata().getLabels()).containsEntry("churn", "b");
        assertThat(client.pods().inNamespace(NS).withLabel("churn", "a").list().getItems()).isEmpty();
        assertThat(client.pods().inNamespace(NS).withLabel("churn", "b").list().getItems()).hasSize(1);

        assertThat(client.pods().inNamespace(NS).withName("web-1-1").evict()).as("evicted under the budget").isTrue();
        assertThat(client.pods().inNamespace(NS).withName("web-1-1").get()).isNull();
        assertThat(client.pods().inNamespace(NS).list().getItems()).extracting(p -> p.getMetadata().getName()).containsExactly("web-1-0");
    }

    @Test
    void aWatchSeesObjectsStoredDirectly() {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (Watch watch = client.pods().inNamespace(NS).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                seen.add(action + " " + pod.getMetadata().getName());
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        })) {
            cluster.createDirectly(List.of(pod("web-1-0", "web-1")));
            await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("ADDED web-1-0"));
        }
    }

    @Test
    void theRequestLogIsAlsoWrittenAsJsonLines() throws Exception {
        Path file = tmp.resolve("requests.jsonl");
        cluster.writeRequestsTo(file);
        client.pods().inNamespace(NS).withName("absent").get();
        client.nodes().withLabel("a", "b").list();

        List<JsonNode> lines = Files.readAllLines(file).stream().map(BulkSeedingIT::json).toList();
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0).get("method").asText()).isEqualTo("GET");
        assertThat(lines.get(0).get("path").asText()).isEqualTo("/api/v1/namespaces/" + NS + "/pods/absent");
        assertThat(lines.get(0).get("status").asInt()).isEqualTo(404);
        assertThat(lines.get(0).get("userAgent").asText()).startsWith("fabric8");
        assertThat(lines.get(1).get("path").asText()).startsWith("/api/v1/nodes?labelSelector=a%3Db");
        assertThat(lines.get(1).get("sequence").asLong()).isGreaterThan(lines.get(0).get("sequence").asLong());
        assertThat(Map.of("time", lines.get(1).get("time").asText())).isNotEmpty();
    }

    private static JsonNode json(String line) {
        try {
            return new ObjectMapper().readTree(line);
        } catch (Exception e) {
            throw new AssertionError(line, e);
        }
    }
}
