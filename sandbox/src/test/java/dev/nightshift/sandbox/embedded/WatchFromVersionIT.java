package dev.nightshift.sandbox.embedded;

import static dev.nightshift.sandbox.embedded.Fixtures.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/**
 * A watch starts at the resourceVersion it asks for: an informer that listed, then saw an object deleted before its
 * watch was registered (a restarted agent's, while a controller deletes a drained node), must not keep it forever.
 */
class WatchFromVersionIT {

    private final EmbeddedKubernetes cluster = EmbeddedKubernetes.start();
    private final KubernetesClient client = cluster.client();

    @AfterEach
    void stop() {
        cluster.close();
    }

    /** A client that runs {@code between} once, after its first LIST and before its first WATCH is sent. */
    private KubernetesClient clientWith(Runnable between) {
        AtomicBoolean done = new AtomicBoolean();
        Interceptor interceptor = new Interceptor() {
            @Override
            public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
                if (request.uri().getQuery() != null && request.uri().getQuery().contains("watch=true") && done.compareAndSet(false, true)) {
                    between.run();
                }
            }
        };
        return new KubernetesClientBuilder().withConfig(cluster.config())
                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("between-list-and-watch", interceptor)).build();
    }

    @Test
    void anObjectDeletedBetweenAnInformersListAndItsWatchLeavesItsCache() throws Exception {
        client.nodes().resource(node("node-a", Map.of("pool", "web"))).create();
        client.nodes().resource(node("node-b", Map.of("pool", "web"))).create();
        try (KubernetesClient late = clientWith(() -> client.nodes().withName("node-a").delete())) {
            SharedIndexInformer<Node> informer = late.nodes().withLabel("pool").runnableInformer(0);
            informer.start().toCompletableFuture().get();

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(informer.getStore().listKeys()).containsExactly("node-b"));
            informer.close();
        }
    }

    @Test
    void anObjectDeletedAndCreatedAgainBetweenListAndWatchIsTheNewOneInTheCache() throws Exception {
        client.nodes().resource(node("node-a", Map.of("pool", "web", "generation", "1"))).create();
        try (KubernetesClient late = clientWith(() -> {
            client.nodes().withName("node-a").delete();
            await().until(() -> client.nodes().withName("node-a").get() == null);
            client.nodes().resource(node("node-a", Map.of("pool", "web", "generation", "2"))).create();
        })) {
            SharedIndexInformer<Node> informer = late.nodes().withLabel("pool").runnableInformer(0);
            informer.start().toCompletableFuture().get();

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(informer.getStore().list())
                    .extracting(n -> n.getMetadata().getLabels().get("generation")).containsExactly("2"));
            // Nothing else arrives later to take it away.
            Thread.sleep(500);
            assertThat(informer.getStore().listKeys()).containsExactly("node-a");
            informer.close();
        }
    }
}
