package dev.nightshift.sandbox.embedded;

import static dev.nightshift.sandbox.embedded.Fixtures.NS;
import static dev.nightshift.sandbox.embedded.Fixtures.node;
import static dev.nightshift.sandbox.embedded.Fixtures.readyPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/** The store, reached through the fabric8 client: what the agent's Kubernetes code relies on. */
class EmbeddedKubernetesIT {

    private final EmbeddedKubernetes cluster = EmbeddedKubernetes.start();
    private final KubernetesClient client = cluster.client();

    @TempDir
    Path tmp;

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void aCreatedNodeCanBeReadAndDeleted() {
        client.nodes().resource(node("node-a", Map.of("pool", "cpu"))).create();

        assertThat(client.nodes().withName("node-a").get().getMetadata().getLabels()).containsEntry("pool", "cpu");
        assertThat(client.nodes().withName("node-a").delete()).hasSize(1);
        assertThat(client.nodes().withName("node-a").get()).isNull();
    }

    @Test
    void podsAreListedPerNamespace() {
        client.pods().inNamespace(NS).resource(readyPod("web-1", Map.of("app", "web"))).create();
        client.pods().inNamespace("other").resource(readyPod("db-1", Map.of("app", "db")).edit()
                .editMetadata().withNamespace("other").endMetadata().build()).create();

        assertThat(client.pods().inNamespace(NS).list().getItems()).extracting(p -> p.getMetadata().getName())
                .containsExactly("web-1");
        assertThat(client.pods().inAnyNamespace().list().getItems()).hasSize(2);
    }

    @Test
    void aLabelSelectorListReturnsOnlyTheMatchingNodes() {
        client.nodes().resource(node("cpu-1", Map.of("pool", "cpu"))).create();
        client.nodes().resource(node("gpu-1", Map.of("pool", "gpu"))).create();
        client.nodes().resource(node("cpu-2", Map.of("pool", "cpu"))).create();

        List<Node> cpu = client.nodes().withLabel("pool", "cpu").list().getItems();

        assertThat(cpu).extracting(n -> n.getMetadata().getName()).containsExactlyInAnyOrder("cpu-1", "cpu-2");
    }

    @Test
    void aJsonMergePatchCordonsANode() {
        client.nodes().resource(node("node-a", Map.of())).create();

        client.nodes().withName("node-a").patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":true}}");

        assertThat(client.nodes().withName("node-a").get().getSpec().getUnschedulable()).isTrue();
    }

    @Test
    void aJsonPatchAddsATaint() {
        client.nodes().resource(node("node-a", Map.of())).create();

        client.nodes().withName("node-a").patch(PatchContext.of(PatchType.JSON), """
                [{"op":"add","path":"/spec/taints","value":[{"key":"nightshift.dev/draining","effect":"NoSchedule"}]}]""");

        assertThat(client.nodes().withName("node-a").get().getSpec().getTaints()).singleElement()
                .satisfies(t -> assertThat(t.getKey()).isEqualTo("nightshift.dev/draining"));
    }

    @Test
    void anInformerSeesANodeAdded() {
        List<String> added = new CopyOnWriteArrayList<>();
        try (SharedIndexInformer<Node> informer = client.nodes().inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                added.add(node.getMetadata().getName());
            }

            @Override
            public void onUpdate(Node old, Node node) {
            }

            @Override
            public void onDelete(Node node, boolean unknown) {
            }
        })) {
            client.nodes().resource(node("node-late", Map.of())).create();

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(added).containsExactly("node-late"));
            assertThat(informer.getStore().list()).extracting(HasMetadata::getMetadata).extracting("name")
                    .containsExactly("node-late");
        }
    }

    @Test
    void anInformerSeesAnEvictedPodDeleted() {
        client.pods().inNamespace(NS).resource(readyPod("web-1", Map.of("app", "web"))).create();
        List<String> deleted = new CopyOnWriteArrayList<>();
        try (SharedIndexInformer<Pod> informer = client.pods().inAnyNamespace().inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
            }

            @Override
            public void onUpdate(Pod old, Pod pod) {
            }

            @Override
            public void onDelete(Pod pod, boolean unknown) {
                deleted.add(pod.getMetadata().getName());
            }
        })) {
            await().atMost(Duration.ofSeconds(10)).until(informer::hasSynced);

            assertThat(client.pods().inNamespace(NS).withName("web-1").evict()).isTrue();

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(deleted).containsExactly("web-1"));
        }
    }

    @Test
    void theKubeconfigFileConnectsAFabric8Client() {
        client.nodes().resource(node("node-a", Map.of())).create();
        Path kubeconfig = cluster.writeKubeconfig(tmp.resolve("kube/config"));

        Config config = Config.fromKubeconfig(null, kubeconfig.toFile());
        try (KubernetesClient other = new KubernetesClientBuilder().withConfig(config).build()) {
            assertThat(other.getMasterUrl().toString()).startsWith(cluster.url());
            assertThat(other.getNamespace()).isEqualTo(EmbeddedKubernetes.NAMESPACE);
            assertThat(other.nodes().list().getItems()).extracting(n -> n.getMetadata().getName()).containsExactly("node-a");
        }
    }

    @Test
    void theServerListensOnLoopbackAtTheReportedPort() {
        assertThat(cluster.url()).isEqualTo("http://127.0.0.1:" + cluster.port());
        assertThat(cluster.port()).isPositive();
    }

    @Test
    void theVersionDefaultsTo1314() {
        assertThat(client.getKubernetesVersion().getGitVersion()).isEqualTo("v1.31.4");
        assertThat(client.getKubernetesVersion().getMajor()).isEqualTo("1");
        assertThat(client.getKubernetesVersion().getMinor()).isEqualTo("31");
    }

    @Test
    void aConfiguredGitVersionIsReportedWithItsMinor() {
        try (EmbeddedKubernetes old = EmbeddedKubernetes.start("v1.29.7")) {
            assertThat(old.client().getKubernetesVersion().getGitVersion()).isEqualTo("v1.29.7");
            assertThat(old.client().getKubernetesVersion().getMinor()).isEqualTo("29");
        }
    }

    @Test
    void discoveryListsTheBuiltInGroups() {
        assertThat(client.getApiGroups().getGroups()).extracting("name")
                .contains("apps", "policy", "coordination.k8s.io");
        assertThat(client.getApiResources("policy/v1").getResources()).extracting("name").contains("poddisruptionbudgets");
        assertThat(client.getApiResources("v1").getResources()).extracting("name")
                .contains("nodes", "pods", "namespaces", "configmaps", "events", "services", "pods/eviction");
    }

    @Test
    void readyzFailsWhileToldToAndAnswersOkAgainAfterwards() throws Exception {
        cluster.readyz(false);
        assertThat(Fixtures.get(cluster, "/readyz").statusCode()).isEqualTo(500);
        assertThat(Fixtures.get(cluster, "/healthz").statusCode()).as("only readiness fails").isEqualTo(200);

        cluster.readyz(true);
        assertThat(Fixtures.get(cluster, "/readyz").statusCode()).isEqualTo(200);
    }

    @Test
    void anUnknownGroupVersionIsNotFound() throws Exception {
        assertThat(Fixtures.get(cluster, "/apis/example.com/v1").statusCode()).isEqualTo(404);
        assertThat(Fixtures.get(cluster, "/openapi/v2").statusCode()).isEqualTo(404);
    }

    @Test
    void aStoredCustomResourceDefinitionIsDiscoveredAndItsObjectsServed() {
        client.apiextensions().v1().customResourceDefinitions().resource(new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName("workerpools.nightshift.dev").endMetadata()
                .withNewSpec().withGroup("nightshift.dev").withScope("Namespaced")
                .withNewNames().withKind("WorkerPool").withPlural("workerpools").withSingular("workerpool").endNames()
                .addNewVersion().withName("v1").withServed(true).withStorage(true).endVersion()
                .endSpec().build()).create();

        assertThat(client.getApiGroups().getGroups()).extracting("name").contains("nightshift.dev");
        assertThat(client.getApiResources("nightshift.dev/v1").getResources()).extracting("name")
                .containsExactly("workerpools");
        client.genericKubernetesResources("nightshift.dev/v1", "WorkerPool").inNamespace(NS)
                .resource(new GenericKubernetesResourceBuilder().withApiVersion("nightshift.dev/v1")
                        .withKind("WorkerPool").withNewMetadata().withName("cpu").endMetadata().build()).create();
        assertThat(client.genericKubernetesResources("nightshift.dev/v1", "WorkerPool").inNamespace(NS)
                .withName("cpu").get()).isNotNull();
    }
}
