package dev.nightshift.sandbox.capi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

import dev.nightshift.sandbox.capi.ClusterApiSeeding.PoolSeed;
import dev.nightshift.sandbox.capi.ClusterApiSeeding.Seeded;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.embedded.Kubectl;
import dev.nightshift.sandbox.embedded.RecordedRequest;

/**
 * The controller double against the embedded API server: what a Cluster API machine provider will meet. Outcomes are
 * read from the API (as another client sees them) and from the request log.
 */
class ClusterApiControllersIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final EmbeddedKubernetes cluster = EmbeddedKubernetes.start();
    private final KubernetesClient client = cluster.client();
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    private final PoolSeed seed = PoolSeed.of("dev", "web", 3, "1.31.5");
    private ClusterApiControllers controllers;

    @TempDir
    Path tmp;

    @BeforeEach
    void start() {
        EmbeddedClusterApi.install(cluster);
        controllers = new ClusterApiControllers(client, EmbeddedKubernetes.NAMESPACE, executor, Clock.systemUTC(),
                java.util.random.RandomGeneratorFactory.of("L64X128MixRandom").create(42),
                Behaviour.fast());
        controllers.start();
    }

    @AfterEach
    void stop() {
        controllers.close();
        executor.shutdownNow();
        cluster.close();
    }

    private Seeded seedPool() throws InterruptedException {
        return ClusterApiSeeding.seed(client, seed, WAIT);
    }

    private List<JsonNode> list(io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext kind) {
        return client.genericKubernetesResources(kind).inNamespace(EmbeddedKubernetes.NAMESPACE).list().getItems().stream()
                .map(r -> (JsonNode) JSON.valueToTree(r)).toList();
    }

    private JsonNode get(io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext kind, String name) {
        GenericKubernetesResource resource = client.genericKubernetesResources(kind).inNamespace(EmbeddedKubernetes.NAMESPACE)
                .withName(name).get();
        return resource == null ? null : JSON.valueToTree(resource);
    }

    private static String name(JsonNode object) {
        return object.path("metadata").path("name").asText();
    }

    private Map<String, Integer> machineSetReplicas() {
        return list(ClusterApiResources.MACHINE_SETS).stream()
                .collect(Collectors.toMap(ClusterApiControllersIT::name, ms -> ms.path("spec").path("replicas").asInt()));
    }

    private Map<String, List<String>> machinesBySet() {
        return list(ClusterApiResources.MACHINES).stream().collect(Collectors.groupingBy(
                m -> m.path("metadata").path("labels").path(ClusterApiControllers.SET_NAME).asText(),
                Collectors.mapping(ClusterApiControllersIT::name, Collectors.toList())));
    }

    private void mergePatch(io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext kind, String name, String patch) {
        client.genericKubernetesResources(kind).inNamespace(EmbeddedKubernetes.NAMESPACE).withName(name)
                .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }

    private void changeTemplate(String infrastructureTemplate) {
        ClusterApiSeeding.createInfrastructureTemplate(client, seed, infrastructureTemplate);
        mergePatch(ClusterApiResources.MACHINE_DEPLOYMENTS, seed.machineDeployment(),
                "{\"spec\":{\"template\":{\"spec\":{\"infrastructureRef\":{\"name\":\"" + infrastructureTemplate + "\"}}}}}");
    }

    private String newestMachineSet(String old) {
        await().atMost(WAIT).until(() -> machineSetReplicas().size() == 2);
        return machineSetReplicas().keySet().stream().filter(n -> !n.equals(old)).findFirst().orElseThrow();
    }

    @Test
    void aSeededMachineDeploymentGetsThreeMachinesWithReadyNodesNamedOtherwise() throws Exception {
        Seeded seeded = seedPool();

        assertThat(seeded.machines()).hasSize(3);
        assertThat(seeded.nodes()).hasSize(3).allMatch(n -> n.matches("ip-10-0-\\d+-\\d+")).doesNotContainAnyElementsOf(seeded.machines());
        JsonNode machine = get(ClusterApiResources.MACHINES, seeded.machines().get(0));
        Node node = client.nodes().withName(seeded.nodes().get(0)).get();
        assertThat(machine.path("status").path("phase").asText()).isEqualTo("Running");
        assertThat(machine.path("spec").path("providerID").asText()).isEqualTo(node.getSpec().getProviderID()).isNotEmpty();
        assertThat(machine.path("spec").path("version").asText()).isEqualTo("v1.31.5");
        assertThat(machine.path("metadata").path("finalizers").get(0).asText()).isEqualTo("machine.cluster.x-k8s.io");
        assertThat(machine.path("metadata").path("labels").fieldNames()).toIterable().contains(
                "cluster.x-k8s.io/deployment-name", "cluster.x-k8s.io/set-name", "machine-template-hash", "cluster.x-k8s.io/cluster-name");
        assertThat(node.getStatus().getNodeInfo().getKubeletVersion()).isEqualTo("v1.31.5");
        assertThat(node.getMetadata().getAnnotations()).containsEntry("cluster.x-k8s.io/machine", seeded.machines().get(0))
                .containsEntry("cluster.x-k8s.io/cluster-name", "dev").containsEntry("cluster.x-k8s.io/owner-kind", "MachineSet");
        assertThat(node.getMetadata().getLabels()).containsEntry("kubernetes.io/hostname", seeded.nodes().get(0))
                .allSatisfy((k, v) -> assertThat(k).doesNotStartWith("nightshift.dev/").doesNotContain("cluster.x-k8s.io/deployment"));
        await().atMost(WAIT).untilAsserted(() -> assertThat(get(ClusterApiResources.MACHINE_DEPLOYMENTS, seed.machineDeployment())
                .path("status").path("readyReplicas").asInt()).isEqualTo(3));
        assertThat(cluster.requests()).filteredOn(r -> r.isWrite() && r.path().contains("/machines"))
                .extracting(RecordedRequest::userAgent).containsOnly(ClusterApiControllers.USER_AGENT);
    }

    @Test
    void theWebhookAddsTheVersionsVBeforeTheMachineDeploymentIsStored() throws Exception {
        seedPool();
        mergePatch(ClusterApiResources.MACHINE_DEPLOYMENTS, seed.machineDeployment(),
                "{\"spec\":{\"template\":{\"spec\":{\"version\":\"1.32.1\"}}}}");

        assertThat(get(ClusterApiResources.MACHINE_DEPLOYMENTS, seed.machineDeployment())
                .path("spec").path("template").path("spec").path("version").asText()).isEqualTo("v1.32.1");
    }

    @Test
    void aTemplateChangeMakesASecondMachineSetAndReplacesNothing() throws Exception {
        Seeded seeded = seedPool();
        String old = machineSetReplicas().keySet().iterator().next();

        changeTemplate("dev-web-2");

        String newest = newestMachineSet(old);
        await().atMost(WAIT).untilAsserted(() -> assertThat(get(ClusterApiResources.MACHINE_SETS, old)
                .path("metadata").path("annotations").path("cluster.x-k8s.io/disable-machine-create").asText()).isEqualTo("true"));
        assertThat(machineSetReplicas()).containsEntry(old, 3).containsEntry(newest, 0);
        assertThat(machinesBySet()).containsOnlyKeys(old);
        assertThat(machinesBySet().get(old)).containsExactlyInAnyOrderElementsOf(seeded.machines());
    }

    @Test
    void aDeletedOldMachineIsDrainedAndReplacedInTheNewMachineSetOnlyOnceItIsGone() throws Exception {
        Seeded seeded = seedPool();
        String old = machineSetReplicas().keySet().iterator().next();
        changeTemplate("dev-web-2");
        String newest = newestMachineSet(old);
        String victim = seeded.machines().get(0);
        String victimNode = seeded.nodes().get(0);
        client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName("app-1").endMetadata()
                .withNewSpec().withNodeName(victimNode).addNewContainer().withName("app").withImage("app:1").endContainer().endSpec()
                .withNewStatus().withPhase("Running").addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus()
                .build()).create();
        cluster.clearRequests();

        client.genericKubernetesResources(ClusterApiResources.MACHINES).inNamespace("default").withName(victim).delete();

        await().atMost(WAIT).until(() -> get(ClusterApiResources.MACHINES, victim) == null);
        await().atMost(WAIT).untilAsserted(() -> assertThat(machinesBySet().getOrDefault(newest, List.of())).hasSize(1));
        assertThat(client.nodes().withName(victimNode).get()).isNull();
        List<RecordedRequest> log = cluster.requests();
        long eviction = sequenceOf(log, r -> r.method().equals("POST") && r.path().endsWith("/pods/app-1/eviction") && r.succeeded());
        long cordon = sequenceOf(log, r -> r.method().equals("PATCH") && r.path().equals("/api/v1/nodes/" + victimNode)
                && r.body().contains("unschedulable"));
        long nodeDeleted = sequenceOf(log, r -> r.method().equals("DELETE") && r.path().equals("/api/v1/nodes/" + victimNode));
        long finalizerRemoved = sequenceOf(log, r -> r.method().equals("PATCH") && r.path().endsWith("/machines/" + victim)
                && r.body().contains("finalizers"));
        long replacement = sequenceOf(log, r -> r.method().equals("POST") && r.path().endsWith("/machines") && r.body().contains(newest));
        assertThat(List.of(cordon, eviction, nodeDeleted, finalizerRemoved, replacement)).isSorted().doesNotContain(-1L);
        assertThat(log).filteredOn(r -> r.path().endsWith("/eviction")).extracting(RecordedRequest::userAgent)
                .containsOnly(ClusterApiControllers.USER_AGENT);
        assertThat(machinesBySet().get(old)).hasSize(2);
    }

    private static long sequenceOf(List<RecordedRequest> log, java.util.function.Predicate<RecordedRequest> which) {
        return log.stream().filter(which).mapToLong(RecordedRequest::sequence).findFirst().orElse(-1L);
    }

    @Test
    void raisingReplicasGrowsTheNewMachineSet() throws Exception {
        seedPool();
        String old = machineSetReplicas().keySet().iterator().next();
        changeTemplate("dev-web-2");
        String newest = newestMachineSet(old);

        mergePatch(ClusterApiResources.MACHINE_DEPLOYMENTS, seed.machineDeployment(), "{\"spec\":{\"replicas\":4}}");

        await().atMost(WAIT).untilAsserted(() -> assertThat(machinesBySet().getOrDefault(newest, List.of())).hasSize(1));
        assertThat(machineSetReplicas()).containsEntry(old, 3).containsEntry(newest, 1);
    }

    @Test
    void loweringReplicasDeletesTheMarkedMachineOfTheOldestOldMachineSet() throws Exception {
        Seeded seeded = seedPool();
        String oldest = machineSetReplicas().keySet().iterator().next();
        changeTemplate("dev-web-2");
        String middle = newestMachineSet(oldest);
        mergePatch(ClusterApiResources.MACHINE_DEPLOYMENTS, seed.machineDeployment(), "{\"spec\":{\"replicas\":4}}");
        await().atMost(WAIT).untilAsserted(() -> assertThat(machinesBySet().getOrDefault(middle, List.of())).hasSize(1));
        changeTemplate("dev-web-3");
        await().atMost(WAIT).until(() -> machineSetReplicas().size() == 3);
        String marked = seeded.machines().get(1);
        mergePatch(ClusterApiResources.MACHINES, marked, "{\"metadata\":{\"annotations\":{\"cluster.x-k8s.io/delete-machine\":\"yes\"}}}");
        cluster.clearRequests();

        mergePatch(ClusterApiResources.MACHINE_DEPLOYMENTS, seed.machineDeployment(), "{\"spec\":{\"replicas\":3}}");

        await().atMost(WAIT).until(() -> get(ClusterApiResources.MACHINES, marked) == null);
        assertThat(machineSetReplicas()).containsEntry(oldest, 2).containsEntry(middle, 1);
        assertThat(cluster.requests()).filteredOn(r -> r.method().equals("DELETE") && r.path().contains("/machines/"))
                .extracting(RecordedRequest::resourcePath).containsExactly(
                        "/apis/cluster.x-k8s.io/v1beta2/namespaces/default/machines/" + marked);
    }

    @Test
    void aMachineExcludedFromDrainingIsDeletedWithoutEvictingItsPods() throws Exception {
        Seeded seeded = seedPool();
        String victim = seeded.machines().get(0);
        client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName("app-1").endMetadata()
                .withNewSpec().withNodeName(seeded.nodes().get(0)).addNewContainer().withName("app").withImage("app:1").endContainer().endSpec()
                .build()).create();
        mergePatch(ClusterApiResources.MACHINES, victim,
                "{\"metadata\":{\"annotations\":{\"machine.cluster.x-k8s.io/exclude-node-draining\":\"\"}}}");

        client.genericKubernetesResources(ClusterApiResources.MACHINES).inNamespace("default").withName(victim).delete();

        await().atMost(WAIT).until(() -> get(ClusterApiResources.MACHINES, victim) == null);
        assertThat(cluster.requests()).noneMatch(r -> r.path().endsWith("/eviction"));
        assertThat(client.nodes().withName(seeded.nodes().get(0)).get()).isNull();
    }

    @Test
    void aFailedHealthCheckMarksTheMachineAndDeletesItAndItIsReplaced() throws Exception {
        Seeded seeded = seedPool();
        String victim = seeded.machines().get(2);
        cluster.clearRequests();

        controllers.healthCheckFails(victim);

        assertThat(cluster.requests()).anyMatch(r -> r.path().endsWith("/machines/" + victim + "/status")
                && r.body().contains("\"HealthCheckSucceeded\"") && r.body().contains("\"False\""));
        await().atMost(WAIT).until(() -> get(ClusterApiResources.MACHINES, victim) == null);
        ClusterApiSeeding.awaitReady(client, "default", seed.machineDeployment(), 3, WAIT);
    }

    @Test
    void aMachineThatNeverJoinsStaysProvisioningWithoutANode() throws Exception {
        seedPool();
        controllers.nextMachinesNeverJoin(1);

        mergePatch(ClusterApiResources.MACHINE_DEPLOYMENTS, seed.machineDeployment(), "{\"spec\":{\"replicas\":4}}");

        await().atMost(WAIT).until(() -> list(ClusterApiResources.MACHINES).size() == 4);
        await().during(Duration.ofSeconds(1)).atMost(WAIT).until(() -> client.nodes().list().getItems().size() == 3);
        assertThat(list(ClusterApiResources.MACHINES)).filteredOn(m -> m.path("status").path("nodeRef").isMissingNode())
                .singleElement().satisfies(m -> assertThat(m.path("status").path("phase").asText()).isEqualTo("Provisioning"));
    }

    @Test
    void aSlowlyDeletedMachineKeepsItsFinalizerForTheSlowDelay() throws Exception {
        Seeded seeded = seedPool();
        String victim = seeded.machines().get(0);
        controllers.deleteSlowly(victim);

        client.genericKubernetesResources(ClusterApiResources.MACHINES).inNamespace("default").withName(victim).delete();

        await().during(Duration.ofMillis(1500)).atMost(WAIT).until(() -> get(ClusterApiResources.MACHINES, victim) != null);
        assertThat(get(ClusterApiResources.MACHINES, victim).path("status").path("phase").asText()).isEqualTo("Deleting");
        await().atMost(WAIT).until(() -> get(ClusterApiResources.MACHINES, victim) == null);
    }

    @Test
    void aPausedMachineDeploymentIsNotScaled() throws Exception {
        seedPool();
        mergePatch(ClusterApiResources.MACHINE_DEPLOYMENTS, seed.machineDeployment(),
                "{\"metadata\":{\"annotations\":{\"cluster.x-k8s.io/paused\":\"\"}},\"spec\":{\"replicas\":5}}");

        await().during(Duration.ofSeconds(1)).atMost(WAIT).until(() -> list(ClusterApiResources.MACHINES).size() == 3);
    }

    @Test
    void kubectlListsTheClusterApiObjects() throws Exception {
        Seeded seeded = seedPool();
        Path kubeconfig = cluster.writeKubeconfig(tmp.resolve("kubeconfig"));

        Kubectl.Run run = Kubectl.run(tmp, kubeconfig, "get", "machinedeployments,machinesets,machines", "-o", "name");
        Kubectl.Run clusters = Kubectl.run(tmp, kubeconfig, "get", "clusters");

        assertThat(run.exitCode()).as("stderr: %s", run.stderr()).isZero();
        Set<String> lines = run.stdout().lines().collect(Collectors.toSet());
        assertThat(lines).contains("machinedeployment.cluster.x-k8s.io/dev-web")
                .contains("machine.cluster.x-k8s.io/" + seeded.machines().get(0)).hasSize(5);
        assertThat(clusters.exitCode()).as("stderr: %s", clusters.stderr()).isZero();
        assertThat(clusters.stdout()).contains("dev");
    }
}
