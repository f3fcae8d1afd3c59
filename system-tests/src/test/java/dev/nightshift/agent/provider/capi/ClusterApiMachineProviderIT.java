package dev.nightshift.agent.provider.capi;

import static dev.nightshift.agent.provider.capi.ClusterApiFixtures.AMI;
import static dev.nightshift.agent.provider.capi.ClusterApiFixtures.AWS_TEMPLATES_PATH;
import static dev.nightshift.agent.provider.capi.ClusterApiFixtures.CLUSTER;
import static dev.nightshift.agent.provider.capi.ClusterApiFixtures.CURRENT_TEMPLATE;
import static dev.nightshift.agent.provider.capi.ClusterApiFixtures.DEFAULT_OVERRIDE;
import static dev.nightshift.agent.provider.capi.ClusterApiFixtures.KUBEADM_TEMPLATES_PATH;
import static dev.nightshift.agent.provider.capi.ClusterApiFixtures.MACHINES_PATH;
import static dev.nightshift.agent.provider.capi.ClusterApiFixtures.MD;
import static dev.nightshift.agent.provider.capi.ClusterApiFixtures.MD_PATH;
import static dev.nightshift.agent.provider.capi.ClusterApiFixtures.NS;
import static dev.nightshift.agent.provider.capi.ClusterApiFixtures.POOL;
import static dev.nightshift.agent.provider.capi.ClusterApiFixtures.body;
import static dev.nightshift.agent.provider.capi.ClusterApiFixtures.surge;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.nightshift.agent.kube.ClusterObserver;
import dev.nightshift.agent.kube.EventRecorder;
import dev.nightshift.agent.kube.Evictor;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.agent.provider.Machine;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.agent.provider.NodeUpdater;
import dev.nightshift.sandbox.capi.ClusterApiResources;
import dev.nightshift.sandbox.capi.EmbeddedClusterApi;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.plan.Step;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * The {@code cluster-api} machine provider against the embedded API server serving Cluster API's
 * CRDs, with no controller running: the tests write MachineDeployments, MachineSets, Machines and
 * templates as Cluster API would have left them and judge the provider by what the API server saw
 * (its request log) and stored.
 */
class ClusterApiMachineProviderIT {

    private static final String OLD_SET = "web-md-7x9k2";
    /** Sorts before {@link #OLD_SET} by name, and is younger: the order must come from the age. */
    private static final String NEW_SET = "web-md-2b4f8";

    private final Instant now = Instant.now();
    private final Clock clock = Clock.fixed(now, ZoneOffset.UTC);
    private final List<AutoCloseable> closing = new ArrayList<>();
    private EmbeddedKubernetes kube;
    private ClusterApiFixtures capi;

    @BeforeEach
    void start() {
        kube = EmbeddedKubernetes.start();
        EmbeddedClusterApi.install(kube);
        capi = new ClusterApiFixtures(kube);
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        kube.close();
    }

    /** A provider whose caches hold what the tests arranged so far; the request log starts after it. */
    private ClusterApiMachineProvider provider() throws Exception {
        ClusterApiMachineProvider p = new ClusterApiMachineProvider(kube.client(), new ClusterApiSettings(NS, CLUSTER, Map.of()), clock);
        closing.add(p);
        p.start(() -> { });
        // Closed while a watch is still being opened, the API server's shutdown waits for a WebSocket nobody answers.
        await().until(p::watching);
        kube.clearRequests();
        return p;
    }

    private static String hex10(String hash) {
        return hash.substring(0, 10);
    }

    // ---- 1. refusals ----------------------------------------------------------------------------

    private static Consumer<ClusterApiFixtures> md(String mergePatch) {
        return f -> {
            f.cluster("");
            f.machineDeployment(mergePatch);
        };
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                arguments("the only labelled MachineDeployment belongs to another cluster",
                        md("metadata: {labels: {cluster.x-k8s.io/cluster-name: other}}"), "label the pool's MachineDeployment"),
                arguments("two MachineDeployments are labelled for the pool", (Consumer<ClusterApiFixtures>) f -> {
                    f.cluster("");
                    f.machineDeployment("");
                    f.machineDeploymentNamed("web-md-b", "");
                }, "label exactly one"),
                arguments("RollingUpdate", md("spec: {rollout: {strategy: {type: RollingUpdate}}}"), "set it to OnDelete"),
                arguments("no strategy, which Cluster API defaults to RollingUpdate", md("spec: {rollout: null}"), "set it to OnDelete"),
                arguments("spec.paused", md("spec: {paused: true}"), "resume it"),
                arguments("the paused annotation", md("metadata: {annotations: {cluster.x-k8s.io/paused: ''}}"), "resume it"),
                arguments("a paused Cluster", (Consumer<ClusterApiFixtures>) f -> {
                    f.cluster("spec: {paused: true}");
                    f.machineDeployment("");
                }, "Cluster default/c is paused"),
                arguments("an annotated paused Cluster", (Consumer<ClusterApiFixtures>) f -> {
                    f.cluster("metadata: {annotations: {cluster.x-k8s.io/paused: ''}}");
                    f.machineDeployment("");
                }, "Cluster default/c is paused"),
                arguments("ClusterClass topology", md("metadata: {labels: {topology.cluster.x-k8s.io/owned: ''}}"),
                        "manage the pool with a MachineDeployment of its own"),
                arguments("autoscaler min size", md("metadata: {annotations: {cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: '1'}}"),
                        "remove those annotations"),
                arguments("autoscaler max size", md("metadata: {annotations: {cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: '5'}}"),
                        "remove those annotations"),
                arguments("an infrastructure kind without a mapping",
                        md("spec: {template: {spec: {infrastructureRef: {kind: AzureMachineTemplate}}}}"),
                        "which Nightshift has no mapping for: add one under provider.clusterApi.infrastructure"));
    }

    /** What every refusal case has besides its MachineDeployment: templates, a MachineSet and a Machine with a node. */
    private void poolObjects() {
        capi.userTemplates();
        capi.machineSet(OLD_SET, 3, MD);
        capi.machine(OLD_SET + "-aaaaa", OLD_SET, "node-a");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void aRefusedPoolSaysWhatToChangeReportsNoMachinesAndNothingIsWritten(String why, Consumer<ClusterApiFixtures> arrange,
                                                                           String whatToChange) throws Exception {
        arrange.accept(capi);
        poolObjects();
        ClusterApiMachineProvider provider = provider();
        DesiredPool desired = ClusterApiFixtures.desired();

        assertThat(provider.refusal(POOL)).hasValueSatisfying(reason -> assertThat(reason).contains(whatToChange));
        assertThat(provider.machines(POOL)).isEmpty();
        assertThatThrownBy(() -> provider.create(desired, "node-a")).hasMessageContaining(whatToChange);
        assertThatThrownBy(() -> provider.delete(desired, "node-a", false)).hasMessageContaining(whatToChange);
        assertThatThrownBy(() -> provider.delete(desired, "node-a", true)).hasMessageContaining(whatToChange);
        provider.settle(POOL);
        assertThat(capi.capiWrites()).isEmpty();
    }

    @Test
    void theSameObjectsWithAnOnDeleteMachineDeploymentAreNotRefused() throws Exception {
        md("").accept(capi);
        poolObjects();
        ClusterApiMachineProvider provider = provider();

        assertThat(provider.refusal(POOL)).isEmpty();
        // Replicas 3 and one Machine: the two Cluster API owes are reported as asked for and not up.
        assertThat(provider.machines(POOL)).extracting(Machine::name).containsExactly(OLD_SET + "-aaaaa",
                MD + "-replacement-owed-1", MD + "-replacement-owed-2");
    }

    // ---- 2. a new roll hash is a new template ---------------------------------------------------

    private void onePool() {
        capi.cluster("");
        capi.userTemplates();
        capi.machineDeployment("");
        capi.machineSet(OLD_SET, 3, MD);
        capi.machine(OLD_SET + "-aaaaa", OLD_SET, "node-a");
        capi.machine(OLD_SET + "-bbbbb", OLD_SET, "node-b");
        capi.machine(OLD_SET + "-ccccc", OLD_SET, "node-c");
    }

    @Test
    void aNewRollHashClonesTheTemplatesAndRepointsTheMachineDeploymentInOnePatchThatAlsoSurges() throws Exception {
        onePool();
        JsonNode userInfrastructure = capi.json(ClusterApiResources.AWS_MACHINE_TEMPLATES, MD);
        JsonNode userBootstrap = capi.json(ClusterApiResources.KUBEADM_CONFIG_TEMPLATES, MD);
        ClusterApiMachineProvider provider = provider();
        DesiredPool desired = ClusterApiFixtures.desired();
        String infrastructure = MD + "-" + hex10(desired.rollHash().value());
        String bootstrap = MD + "-kubelet-" + hex10(desired.kubeletHash().value());

        provider.create(desired, "node-a");

        List<RecordedRequest> writes = capi.capiWrites();
        assertThat(writes).extracting(RecordedRequest::method, RecordedRequest::resourcePath).containsExactly(
                tuple("POST", AWS_TEMPLATES_PATH),
                tuple("POST", KUBEADM_TEMPLATES_PATH),
                tuple("PATCH", MD_PATH));

        JsonNode clone = capi.json(ClusterApiResources.AWS_MACHINE_TEMPLATES, infrastructure);
        assertThat(clone.at("/metadata/labels")).isEqualTo(ClusterApiFixtures.yaml("{team: web, nightshift.dev/template-of: web-md}"));
        assertThat(clone.at("/spec/template/spec")).isEqualTo(ClusterApiFixtures.yaml("""
                instanceType: m5.xlarge
                ami: {id: %s}
                rootVolume: {size: 80, type: gp3, encrypted: true}
                iamInstanceProfile: nodes.example.com
                """.formatted(AMI)));

        JsonNode kubelet = capi.json(ClusterApiResources.KUBEADM_CONFIG_TEMPLATES, bootstrap);
        assertThat(kubelet.at("/metadata/labels/nightshift.dev~1template-of").asText()).isEqualTo(MD);
        assertThat(kubelet.at("/spec/template/spec/joinConfiguration/nodeRegistration/kubeletExtraArgs")).containsExactlyInAnyOrderElementsOf(
                ClusterApiFixtures.yaml("""
                        - {name: node-labels, value: tier=web}
                        - {name: kube-reserved, value: "cpu=100m,memory=1Gi"}
                        - {name: eviction-hard, value: "memory.available<5%"}
                        """));

        JsonNode patch = body(writes.get(2));
        assertThat(patch.at("/spec/template/spec/infrastructureRef")).isEqualTo(ClusterApiFixtures.yaml(
                "{apiGroup: infrastructure.cluster.x-k8s.io, kind: AWSMachineTemplate, name: " + infrastructure + "}"));
        assertThat(patch.at("/spec/template/spec/bootstrap/configRef")).isEqualTo(ClusterApiFixtures.yaml(
                "{apiGroup: bootstrap.cluster.x-k8s.io, kind: KubeadmConfigTemplate, name: " + bootstrap + "}"));
        assertThat(patch.at("/spec/template/metadata/annotations")).isEqualTo(ClusterApiFixtures.yaml("""
                nightshift.dev/roll-hash: "%s"
                nightshift.dev/roll-hash-version: "%d"
                nightshift.dev/kubelet-hash: "%s"
                nightshift.dev/kubelet-hash-version: "%d"
                """.formatted(desired.rollHash().value(), desired.rollHash().version(), desired.kubeletHash().value(),
                desired.kubeletHash().version())));
        assertThat(patch.at("/spec/replicas").asInt()).isEqualTo(4);
        assertThat(patch.at("/metadata/annotations/nightshift.dev~1desired-replicas").asText()).isEqualTo("3");
        assertThat(SurgeRequests.read(patch.at("/metadata/annotations/nightshift.dev~1surge-requests").asText()).partners())
                .containsOnlyKeys("node-a");
        assertThat(patch.at("/metadata/resourceVersion").asText()).as("the patch is conditional on what it was computed from").isNotEmpty();

        JsonNode stored = capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD);
        assertThat(stored.at("/spec/template/spec/version").asText()).isEqualTo("v1.31.5");
        assertThat(stored.at("/spec/template/metadata/annotations/" + NodeMarks.ROLL_HASH.replace("/", "~1")).asText())
                .isEqualTo(desired.rollHash().value());
        assertThat(stored.at("/spec/template/metadata/labels/cluster.x-k8s.io~1deployment-name").asText())
                .as("the rest of the template is kept").isEqualTo(MD);
        assertThat(stored.at("/spec/replicas").asInt()).isEqualTo(4);

        assertThat(capi.json(ClusterApiResources.AWS_MACHINE_TEMPLATES, MD)).isEqualTo(userInfrastructure);
        assertThat(capi.json(ClusterApiResources.KUBEADM_CONFIG_TEMPLATES, MD)).isEqualTo(userBootstrap);
        assertThat(writes).noneMatch(w -> w.resourcePath().endsWith("templates/" + MD));
    }

    @Test
    void anAwsTemplateWithoutTheImagesProviderImageIsAnErrorNamingTheFieldAndNothingIsWritten() throws Exception {
        onePool();
        ClusterApiMachineProvider provider = provider();

        assertThatThrownBy(() -> provider.create(ClusterApiFixtures.desired("", DEFAULT_OVERRIDE), "node-a"))
                .hasMessageContaining("Cluster.spec.machineImages[name=al2023].versions[version=1631.0.0].providerImage");
        assertThat(capi.capiWrites()).isEmpty();
    }

    @Test
    void theInfrastructureTemplateOverrideIsMergedAfterTheMappedFieldsAndNullRemoves() throws Exception {
        onePool();
        ClusterApiMachineProvider provider = provider();
        DesiredPool desired = ClusterApiFixtures.desired(", providerImage: " + AMI, """
                      instanceType: m6i.large
                      rootVolume: {type: null}
                      ami: null
                """);

        provider.create(desired, "node-a");

        JsonNode clone = capi.json(ClusterApiResources.AWS_MACHINE_TEMPLATES, MD + "-" + hex10(desired.rollHash().value()));
        assertThat(clone.at("/spec/template/spec")).isEqualTo(ClusterApiFixtures.yaml("""
                instanceType: m6i.large
                rootVolume: {size: 80}
                sshKeyName: ops
                iamInstanceProfile: old-profile
                """));
    }

    // ---- 3. idempotent surge --------------------------------------------------------------------

    private static List<String> placeholdersFor(ClusterApiMachineProvider provider) {
        return provider.machines(POOL).stream().filter(m -> m.node().isEmpty() && !m.running() && m.surgeFor().isPresent())
                .map(m -> m.surgeFor().get()).toList();
    }

    @Test
    void askingAgainForTheSamePartnerChangesNothingAndASecondPartnerRaisesReplicasToFive() throws Exception {
        onePool();
        ClusterApiMachineProvider provider = provider();
        DesiredPool desired = ClusterApiFixtures.desired();
        provider.create(desired, "node-a");
        await().untilAsserted(() -> assertThat(placeholdersFor(provider)).containsExactly("node-a"));
        kube.clearRequests();

        provider.create(desired, "node-a");

        assertThat(capi.capiWrites()).as("no write at all when nothing changes").isEmpty();
        assertThat(capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD).at("/spec/replicas").asInt()).isEqualTo(4);
        assertThat(kube.client().genericKubernetesResources(ClusterApiResources.AWS_MACHINE_TEMPLATES).inNamespace(NS)
                .withLabel(MachineTemplates.CLONE_OF, MD).list().getItems()).hasSize(1);

        provider.create(desired, "node-b");

        List<RecordedRequest> writes = capi.capiWrites();
        assertThat(writes).extracting(RecordedRequest::method, RecordedRequest::resourcePath)
                .containsExactly(tuple("PATCH", MD_PATH));
        assertThat(body(writes.get(0)).at("/spec/template").isMissingNode())
                .as("the MachineDeployment is at the desired template already (its version compared without the v)").isTrue();
        JsonNode stored = capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD);
        assertThat(stored.at("/spec/replicas").asInt()).isEqualTo(5);
        assertThat(stored.at("/metadata/annotations/nightshift.dev~1desired-replicas").asText()).isEqualTo("3");
    }

    @Test
    void aRestartedProviderReportsTheRequestedSurgeAsPlaceholdersAndDefersTheirDeletion() throws Exception {
        onePool();
        DesiredPool desired = ClusterApiFixtures.desired();
        ClusterApiMachineProvider first = provider();
        first.create(desired, "node-a");
        await().untilAsserted(() -> assertThat(placeholdersFor(first)).containsExactly("node-a"));
        first.create(desired, "node-b");
        first.close();

        ClusterApiMachineProvider restarted = provider();

        assertThat(placeholdersFor(restarted)).containsExactlyInAnyOrder("node-a", "node-b");
        List<Machine> placeholders = restarted.machines(POOL).stream().filter(m -> m.surgeFor().isPresent()).toList();
        assertThat(placeholders).allSatisfy(m -> {
            assertThat(m.pool()).isEqualTo(POOL);
            assertThat(m.deleting()).isFalse();
        });
        restarted.create(desired, "node-a");
        MachineProvider.Deletion deletion = restarted.delete(desired, placeholders.get(0).name(), false);
        assertThat(deletion.started()).isFalse();
        assertThat(deletion.detail()).contains("not created yet");
        assertThat(capi.capiWrites()).isEmpty();
        assertThat(capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD).at("/spec/replicas").asInt()).isEqualTo(5);
    }

    @Test
    void aPoolResizedAfterTheLastSurgeSurgesFromItsNewSize() throws Exception {
        capi.cluster("");
        capi.userTemplates();
        // The last surge is over (no requests) and since then the pool's MachineDeployment was scaled to 5.
        capi.machineDeployment(surge(3, Map.of()));
        kube.client().genericKubernetesResources(ClusterApiResources.MACHINE_DEPLOYMENTS).inNamespace(NS).withName(MD)
                .edit(md -> {
                    md.setAdditionalProperty("spec", withReplicas(md, 5));
                    return md;
                });
        ClusterApiMachineProvider provider = provider();

        provider.create(ClusterApiFixtures.desired(), "node-a");

        JsonNode stored = capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD);
        assertThat(stored.at("/spec/replicas").asInt()).as("5 + 1 surge; 3 + 1 would remove a machine undrained").isEqualTo(6);
        assertThat(stored.at("/metadata/annotations/nightshift.dev~1desired-replicas").asText()).isEqualTo("5");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> withReplicas(GenericKubernetesResource md, int replicas) {
        Map<String, Object> spec = new LinkedHashMap<>((Map<String, Object>) md.getAdditionalProperties().get("spec"));
        spec.put("replicas", replicas);
        return spec;
    }

    @Test
    void aChangeOfTheMachineDeploymentBetweenReadAndWriteFailsTheCreateInsteadOfMixing() throws Exception {
        onePool();
        ClusterApiMachineProvider provider = provider();
        kube.changeBeforeNext("PATCH", MD_PATH, "replicas", "{\"spec\":{\"replicas\":7}}");

        assertThatThrownBy(() -> provider.create(ClusterApiFixtures.desired(), "node-a"))
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));

        JsonNode stored = capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD);
        assertThat(stored.at("/spec/replicas").asInt()).isEqualTo(7);
        assertThat(stored.at("/metadata/annotations/nightshift.dev~1surge-requests").isMissingNode()).isTrue();
    }

    // ---- 4. which Machine goes ------------------------------------------------------------------

    /**
     * MachineSet {@link #OLD_SET} (3 replicas: node-a, node-b, node-c, at the user's template) and,
     * created a second later, {@link #NEW_SET} (1 replica: node-d, a surge machine created after the
     * requests, at {@code newTemplate}); the MachineDeployment, pointed at {@code mdTemplate}, asked
     * for surge for {@code partners} a minute ago. As Cluster API leaves it once it caught up: every
     * request beyond the first has a replica in the MachineSet the MachineDeployment points at, whose
     * Machine has no node yet, so that the MachineSets' replicas add up to the MachineDeployment's.
     */
    private void twoMachineSetsAt(String mdTemplate, String newTemplate, String... partners) {
        Map<String, Instant> requests = new LinkedHashMap<>();
        for (String p : partners) {
            requests.put(p, now.minus(Duration.ofMinutes(1)));
        }
        capi.cluster("");
        capi.userTemplates();
        capi.pointedAtCurrent();
        capi.machineDeployment(surge(3, requests), "spec: {template: {spec: {infrastructureRef: {name: " + mdTemplate + "}}}}");
        int owed = Math.max(0, partners.length - 1);
        String pointedAt = mdTemplate.equals(newTemplate) ? NEW_SET : OLD_SET;
        capi.machineSet(OLD_SET, 3 + (pointedAt.equals(OLD_SET) ? owed : 0), MD);
        capi.machine(OLD_SET + "-aaaaa", OLD_SET, "node-a");
        capi.machine(OLD_SET + "-bbbbb", OLD_SET, "node-b");
        capi.machine(OLD_SET + "-ccccc", OLD_SET, "node-c");
        Instant old = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        // Creation timestamps have whole seconds: the new MachineSet must be a second younger.
        await().pollInterval(Duration.ofMillis(20)).until(() -> Instant.now().truncatedTo(ChronoUnit.SECONDS).isAfter(old));
        capi.machineSet(NEW_SET, 1 + (pointedAt.equals(NEW_SET) ? owed : 0), newTemplate);
        capi.machine(NEW_SET + "-ddddd", NEW_SET, "node-d");
        for (int i = 0; i < owed; i++) {
            capi.machine(pointedAt + "-owed" + i, pointedAt, null);
        }
    }

    /** As Cluster API leaves a roll under way: the MachineDeployment and the younger MachineSet at the new template. */
    private void twoMachineSets(String... partners) {
        twoMachineSetsAt(CURRENT_TEMPLATE, CURRENT_TEMPLATE, partners);
    }

    private Machine machine(MachineProvider provider, String name) {
        return provider.machines(POOL).stream().filter(m -> m.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void machinesReportTheirNodeTheirMachineSetsAgeTheirDeletionAndTheirHealthCheck() throws Exception {
        twoMachineSets("node-a");
        capi.status(ClusterApiResources.MACHINES, OLD_SET + "-ccccc", Map.of("nodeRef", Map.of("name", "node-c"),
                "conditions", List.of(Map.of("type", "HealthCheckSucceeded", "status", "False", "reason", "UnhealthyNode",
                        "lastTransitionTime", now.toString()))));
        kube.client().genericKubernetesResources(ClusterApiResources.MACHINES).inNamespace(NS).withName(OLD_SET + "-bbbbb").delete();
        assertThat(capi.get(ClusterApiResources.MACHINES, OLD_SET + "-bbbbb").getMetadata().getDeletionTimestamp())
                .as("the mock keeps an object with a finalizer, marked deleted").isNotNull();
        ClusterApiMachineProvider provider = provider();

        assertThat(provider.machines(POOL)).extracting(Machine::name, Machine::node, Machine::removalOrder, Machine::deleting,
                Machine::healthCheckFailed, Machine::surgeFor).containsExactlyInAnyOrder(
                tuple(OLD_SET + "-aaaaa", Optional.of("node-a"), 0, false, false, Optional.empty()),
                tuple(OLD_SET + "-bbbbb", Optional.of("node-b"), 0, true, false, Optional.empty()),
                tuple(OLD_SET + "-ccccc", Optional.of("node-c"), 0, false, true, Optional.empty()),
                tuple(NEW_SET + "-ddddd", Optional.of("node-d"), 1, false, false, Optional.of("node-a")),
                // node-b's Machine is being deleted while replicas stay 4: Cluster API owes its replacement.
                tuple(MD + "-replacement-owed-1", Optional.empty(), 2, false, false, Optional.empty()));
    }

    /**
     * Long-profile seed 57: Nightshift lowered replicas for node-a, which is still alive, and the current MachineSet is
     * making a Machine (its replicas raised, the Machine not seen yet). By the MachineDeployment's replicas nothing is
     * owed; by the MachineSets one Machine is, and it is reported, so that no surge is asked beside it.
     */
    @Test
    void aMachineAMachineSetIsMakingIsReportedOwedWhileALoweredMachineIsStillAlive() throws Exception {
        capi.cluster("");
        capi.userTemplates();
        capi.machineDeployment(surge(3, Map.of()), capi.pointedAtCurrent());
        capi.machineSet(OLD_SET, 1, MD);
        capi.machine(OLD_SET + "-aaaaa", OLD_SET, "node-a", Map.of("cluster.x-k8s.io/delete-machine", "true",
                "machine.cluster.x-k8s.io/exclude-node-draining", "true"));
        capi.machine(OLD_SET + "-bbbbb", OLD_SET, "node-b");
        capi.machineSet(NEW_SET, 2, CURRENT_TEMPLATE);
        capi.machine(NEW_SET + "-ddddd", NEW_SET, "node-d");
        ClusterApiMachineProvider provider = provider();

        assertThat(provider.machines(POOL)).extracting(Machine::name).containsExactlyInAnyOrder(OLD_SET + "-aaaaa", OLD_SET + "-bbbbb",
                NEW_SET + "-ddddd", MD + "-replacement-owed-1");
    }

    /**
     * Long-profile seed 169: Nightshift lowered replicas for node-a, which Cluster API has not removed yet, and deleted
     * node-b's Machine to replace it. The MachineDeployment's replicas count node-a out while it is alive and the
     * MachineSets count node-b in while it is being deleted, so neither shows the replacement Cluster API will make once
     * both are gone; it is reported owed, so that the pool does not look one Machine short (a lower floor for the guard).
     */
    @Test
    void aReplacementIsReportedOwedForAMachineBeingDeletedWhileALoweredMachineIsStillAlive() throws Exception {
        capi.cluster("");
        capi.userTemplates();
        capi.machineDeployment(surge(3, Map.of()), "metadata: {annotations: {nightshift.dev/leaving-machines: " + OLD_SET + "-aaaaa}}",
                capi.pointedAtCurrent());
        capi.machineSet(OLD_SET, 2, MD);
        capi.machine(OLD_SET + "-aaaaa", OLD_SET, "node-a", Map.of("cluster.x-k8s.io/delete-machine", "true",
                "machine.cluster.x-k8s.io/exclude-node-draining", "true"));
        capi.machine(OLD_SET + "-bbbbb", OLD_SET, "node-b");
        capi.machineSet(NEW_SET, 2, CURRENT_TEMPLATE);
        capi.machine(NEW_SET + "-ddddd", NEW_SET, "node-d");
        capi.machine(NEW_SET + "-eeeee", NEW_SET, "node-e");
        kube.client().genericKubernetesResources(ClusterApiResources.MACHINES).inNamespace(NS).withName(OLD_SET + "-bbbbb").delete();
        ClusterApiMachineProvider provider = provider();

        assertThat(provider.machines(POOL)).extracting(Machine::name).containsExactlyInAnyOrder(OLD_SET + "-aaaaa", OLD_SET + "-bbbbb",
                NEW_SET + "-ddddd", NEW_SET + "-eeeee", MD + "-replacement-owed-1");
    }

    /**
     * A lowering for node-a that Cluster API has not acted on, stand-ins asked for node-b and node-c, and two new
     * Machines since: one answers node-b's request, the other is Cluster API's replacement of a member lost meanwhile.
     * The lowered Machine holds no replica of the pool's, so only one of the two new Machines can answer a request;
     * node-c's stays asked for, and the pool does not read one member short.
     */
    @Test
    void aMachineLoweredForAndStillAliveLetsNoExtraMachineAnswerARequest() throws Exception {
        Instant asked = now.minusSeconds(30);
        capi.cluster("");
        capi.userTemplates();
        capi.machineDeployment(surge(3, Map.of("node-b", asked, "node-c", asked)),
                "metadata: {annotations: {nightshift.dev/leaving-machines: " + OLD_SET + "-aaaaa}}", capi.pointedAtCurrent());
        capi.machineSet(OLD_SET, 3, MD);
        capi.machine(OLD_SET + "-aaaaa", OLD_SET, "node-a", Map.of("cluster.x-k8s.io/delete-machine", "true",
                "machine.cluster.x-k8s.io/exclude-node-draining", "true"));
        capi.machine(OLD_SET + "-bbbbb", OLD_SET, "node-b");
        capi.machine(OLD_SET + "-ccccc", OLD_SET, "node-c");
        capi.machineSet(NEW_SET, 2, CURRENT_TEMPLATE);
        capi.machine(NEW_SET + "-rrrrr", NEW_SET, "node-r");
        capi.machine(NEW_SET + "-xxxxx", NEW_SET, "node-x");
        ClusterApiMachineProvider provider = provider();

        List<Machine> machines = provider.machines(POOL);
        assertThat(machines).filteredOn(m -> m.name().startsWith(NEW_SET)).as("one new Machine answers a request")
                .filteredOn(m -> m.surgeFor().isPresent()).singleElement().satisfies(m -> assertThat(m.surgeFor()).contains("node-b"));
        assertThat(machines).extracting(Machine::name).as("node-c's stand-in still asked for").contains(MD + "-requested-for-node-c");
    }

    /**
     * Long-profile seed 93: a lowering took node-a's request away while its Machine is still there. Its stand-in still
     * stands in for it by its own {@code surge-for} (never a member beside it, whatever the node's marks in a cache
     * say); a {@code surge-for} naming a node with no Machine is no partnership.
     */
    @Test
    void aStandInWhosePartnersRequestALoweringTookStandsInForItWhileItsMachineIsThere() throws Exception {
        capi.cluster("");
        capi.userTemplates();
        capi.machineDeployment(surge(3, Map.of()), capi.pointedAtCurrent());
        capi.machineSet(OLD_SET, 0, MD);
        capi.machine(OLD_SET + "-aaaaa", OLD_SET, "node-a", Map.of("cluster.x-k8s.io/delete-machine", "true",
                "machine.cluster.x-k8s.io/exclude-node-draining", "true"));
        capi.machineSet(NEW_SET, 3, CURRENT_TEMPLATE);
        capi.machine(NEW_SET + "-ddddd", NEW_SET, "node-d", Map.of(NodeMarks.SURGE_FOR, "node-a"));
        capi.machine(NEW_SET + "-eeeee", NEW_SET, "node-e");
        capi.machine(NEW_SET + "-fffff", NEW_SET, "node-f", Map.of(NodeMarks.SURGE_FOR, "node-z"));
        ClusterApiMachineProvider provider = provider();

        assertThat(machine(provider, NEW_SET + "-ddddd").surgeFor()).contains("node-a");
        assertThat(machine(provider, NEW_SET + "-fffff").surgeFor()).as("node-z has no Machine").isEmpty();
    }

    @Test
    void aPartnerInTheOldestMachineSetIsMarkedBeforeReplicasAreLoweredToTheRemainingSurge() throws Exception {
        twoMachineSets("node-a", "node-x");
        ClusterApiMachineProvider provider = provider();

        MachineProvider.Deletion deletion = provider.delete(ClusterApiFixtures.desired(), "node-a", false);

        assertThat(deletion.started()).isTrue();
        List<RecordedRequest> writes = capi.capiWrites();
        assertThat(writes).extracting(RecordedRequest::method, RecordedRequest::resourcePath).containsExactly(
                tuple("PATCH", MACHINES_PATH + OLD_SET + "-aaaaa"),
                tuple("PATCH", MD_PATH));
        assertThat(body(writes.get(0)).at("/metadata/annotations")).isEqualTo(ClusterApiFixtures.yaml(
                "{cluster.x-k8s.io/delete-machine: 'true', machine.cluster.x-k8s.io/exclude-node-draining: 'true'}"));
        JsonNode stored = capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD);
        assertThat(stored.at("/spec/replicas").asInt()).as("3 desired + node-x's request").isEqualTo(4);
        assertThat(stored.at("/metadata/annotations/nightshift.dev~1leaving-machines").asText())
                .as("recorded with the lowering, for a later agent").isEqualTo(OLD_SET + "-aaaaa");
        assertThat(SurgeRequests.read(stored.at("/metadata/annotations/nightshift.dev~1surge-requests").asText()).partners())
                .containsOnlyKeys("node-x");
        assertThat(capi.get(ClusterApiResources.MACHINES, OLD_SET + "-aaaaa").getMetadata().getDeletionTimestamp())
                .as("Cluster API, not Nightshift, deletes it").isNull();
    }

    /**
     * Issue 24 case 1: a partner's removal lowered replicas, and before Cluster API acted a new stand-in raised them
     * again. The two writes cancel (as many replicas as Machines, one marked {@code delete-machine}: Cluster API has
     * nothing to do), so the marked, drained Machine is deleted outright: its replacement, at the current template, is
     * the new stand-in, and the MachineDeployment keeps the replicas the requests say.
     */
    @Test
    void aLeavingPartnerWhoseLoweredReplicaANewStandInTookBackIsDeletedOutright() throws Exception {
        twoMachineSets("node-a");
        ClusterApiMachineProvider provider = provider();
        DesiredPool desired = ClusterApiFixtures.desired();
        assertThat(provider.delete(desired, "node-a", false).started()).isTrue();
        await().until(() -> capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD).at("/spec/replicas").asInt() == 3
                && placeholdersFor(provider).isEmpty() && provider.machines(POOL).size() == 4);
        kube.clearRequests();

        provider.create(desired, "node-b");

        assertThat(capi.capiWrites()).filteredOn(r -> !r.method().equals("POST")).as("besides the template clones")
                .extracting(RecordedRequest::method, RecordedRequest::resourcePath).containsExactly(
                tuple("PATCH", MD_PATH),
                tuple("DELETE", MACHINES_PATH + OLD_SET + "-aaaaa"));
        JsonNode stored = capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD);
        assertThat(stored.at("/spec/replicas").asInt()).as("3 desired + node-b's request").isEqualTo(4);
        assertThat(capi.get(ClusterApiResources.MACHINES, OLD_SET + "-aaaaa").getMetadata().getDeletionTimestamp()).isNotNull();
        assertThat(capi.get(ClusterApiResources.MACHINES, OLD_SET + "-bbbbb").getMetadata().getDeletionTimestamp())
                .as("no other Machine is touched").isNull();
    }

    /**
     * The same cancellation left by an agent that stopped between the two writes: the next agent's settle finds the
     * marked Machine that no lowered replica will remove, and deletes it.
     */
    @Test
    void aRestartedProviderDeletesAMarkedMachineThatNoLoweredReplicaWillRemove() throws Exception {
        twoMachineSets("node-b");
        kube.client().genericKubernetesResources(ClusterApiResources.MACHINES).inNamespace(NS).withName(OLD_SET + "-aaaaa")
                .edit(m -> {
                    Map<String, String> a = new java.util.HashMap<>(m.getMetadata().getAnnotations() == null ? Map.of()
                            : m.getMetadata().getAnnotations());
                    a.put("cluster.x-k8s.io/delete-machine", "true");
                    a.put("machine.cluster.x-k8s.io/exclude-node-draining", "true");
                    m.getMetadata().setAnnotations(a);
                    return m;
                });
        kube.client().genericKubernetesResources(ClusterApiResources.MACHINE_DEPLOYMENTS).inNamespace(NS).withName(MD)
                .edit(md -> {
                    md.getMetadata().getAnnotations().put("nightshift.dev/leaving-machines", OLD_SET + "-aaaaa");
                    return md;
                });
        ClusterApiMachineProvider provider = provider();

        provider.settle(POOL);

        assertThat(capi.capiWrites()).extracting(RecordedRequest::method, RecordedRequest::resourcePath)
                .contains(tuple("DELETE", MACHINES_PATH + OLD_SET + "-aaaaa"));
        assertThat(capi.capiWrites()).extracting(RecordedRequest::resourcePath).as("replicas untouched").doesNotContain(MD_PATH);
        assertThat(capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD).at("/spec/replicas").asInt()).isEqualTo(4);
    }

    /**
     * Replicas are lowered for a leaving partner only once Cluster API has caught up: lowered while it still owes a
     * replica (a replacement for a Machine deleted outright, a surge replica not yet given to the current MachineSet),
     * the controller counts the lowered replica as the owed one and the marked Machine stays for good (a rollout seen
     * stuck with an outdated, drained node in the end-to-end test under load).
     */
    @Test
    void aPartnerLeavesOnlyOnceTheMachineSetsHoldTheMachineDeploymentsReplicas() throws Exception {
        twoMachineSets("node-a");
        kube.client().genericKubernetesResources(ClusterApiResources.MACHINE_DEPLOYMENTS).inNamespace(NS).withName(MD)
                .edit(md -> {
                    md.getAdditionalProperties().put("spec", withReplicas(md, 5));
                    return md;
                });
        ClusterApiMachineProvider provider = provider();

        MachineProvider.Deletion owedToTheCurrentSet = provider.delete(ClusterApiFixtures.desired(), "node-a", false);

        assertThat(owedToTheCurrentSet.started()).isFalse();
        assertThat(owedToTheCurrentSet.detail()).contains("4 of the MachineDeployment's 5 replicas");
        assertThat(capi.capiWrites()).isEmpty();
    }

    @Test
    void aPartnerLeavesOnlyOnceAMachineDeletedOutrightIsTakenOffItsMachineSet() throws Exception {
        twoMachineSets("node-a");
        kube.client().genericKubernetesResources(ClusterApiResources.MACHINES).inNamespace(NS).withName(OLD_SET + "-ccccc").delete();
        kube.client().genericKubernetesResources(ClusterApiResources.MACHINES).inNamespace(NS).withName(OLD_SET + "-ccccc")
                .edit(m -> {
                    m.getMetadata().setFinalizers(List.of());
                    return m;
                });
        await().until(() -> capi.get(ClusterApiResources.MACHINES, OLD_SET + "-ccccc") == null);
        ClusterApiMachineProvider provider = provider();

        MachineProvider.Deletion notTakenOff = provider.delete(ClusterApiFixtures.desired(), "node-a", false);

        assertThat(notTakenOff.started()).isFalse();
        assertThat(notTakenOff.detail()).contains("MachineSet " + OLD_SET + " has 2 Machines for 3 replicas");
        assertThat(capi.capiWrites()).isEmpty();
    }

    private void markToLeave(String machine) {
        kube.client().genericKubernetesResources(ClusterApiResources.MACHINES).inNamespace(NS).withName(machine)
                .edit(m -> {
                    Map<String, String> a = new java.util.HashMap<>(m.getMetadata().getAnnotations() == null ? Map.of()
                            : m.getMetadata().getAnnotations());
                    a.put("cluster.x-k8s.io/delete-machine", "true");
                    a.put("machine.cluster.x-k8s.io/exclude-node-draining", "true");
                    m.getMetadata().setAnnotations(a);
                    return m;
                });
    }

    /**
     * One removal at a time per MachineSet: while another live Machine of it is marked to leave (a lowering Cluster API
     * has not acted on yet), Cluster API may remove either marked Machine for that lowering, so a second partner is
     * neither marked nor lowered for (under load, a lowering's patch refused with 409 after its mark let Cluster API
     * take the wrong Machine, and the pool ended a Machine larger).
     */
    @Test
    void aPartnerWaitsWhileAnotherMachineOfItsMachineSetIsMarkedToLeave() throws Exception {
        twoMachineSets("node-a");
        markToLeave(OLD_SET + "-bbbbb");
        ClusterApiMachineProvider provider = provider();
        kube.clearRequests();

        MachineProvider.Deletion deletion = provider.delete(ClusterApiFixtures.desired(), "node-a", false);

        assertThat(deletion.started()).isFalse();
        assertThat(deletion.detail()).contains(OLD_SET + "-bbbbb").contains("marked to leave");
        assertThat(capi.capiWrites()).isEmpty();
    }

    /**
     * A pool adopted on the user's own template, then a Machine its MachineSet made later (after a MachineHealthCheck)
     * without hashes: it is at its siblings' hashes (one MachineSet, one template), reported so and written onto it by
     * the next settle; and once every Machine carries them, the MachineDeployment's template carries them too, so that
     * a Machine made after the last sibling is gone has them from Cluster API. Neither is a rollout: metadata only.
     */
    @Test
    void aMachineMadeAfterAdoptionIsAtItsSiblingsHashesWhichGoOntoItAndOntoTheMachineDeploymentsTemplate() throws Exception {
        onePool();
        ClusterApiMachineProvider provider = provider();
        DesiredPool desired = ClusterApiFixtures.desired();
        String rollHash = "/spec/template/metadata/annotations/" + NodeMarks.ROLL_HASH.replace("/", "~1");
        provider.stamp(POOL, "node-a", desired.rollHash(), desired.kubeletHash());
        provider.stamp(POOL, "node-b", desired.rollHash(), desired.kubeletHash());
        await().until(() -> provider.machines(POOL).stream().filter(m -> m.name().endsWith("bbbbb")).allMatch(m -> desired.rollHash().equals(m.rollHash())));

        assertThat(machine(provider, OLD_SET + "-ccccc").rollHash()).as("read from its siblings").isEqualTo(desired.rollHash());
        assertThat(machine(provider, OLD_SET + "-ccccc").kubeletHash()).isEqualTo(desired.kubeletHash());
        provider.settle(POOL);
        assertThat(capi.get(ClusterApiResources.MACHINES, OLD_SET + "-ccccc").getMetadata().getAnnotations())
                .containsEntry(NodeMarks.ROLL_HASH, desired.rollHash().value());
        assertThat(capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD).at(rollHash).isMissingNode())
                .as("not while a Machine of the template is unstamped as far as the provider has seen").isTrue();

        await().untilAsserted(() -> {
            provider.settle(POOL);
            assertThat(capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD).at(rollHash).asText()).isEqualTo(desired.rollHash().value());
        });
        JsonNode md = capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD);
        assertThat(md.at("/spec/template/spec/infrastructureRef/name").asText()).as("no other change: no rollout").isEqualTo(MD);
        assertThat(md.at("/spec/replicas").asInt()).isEqualTo(3);
        assertThat(capi.capiWrites()).filteredOn(r -> r.path().contains("machinedeployments")).hasSize(1);
    }

    @Test
    void siblingsThatDisagreeLeaveAnUnstampedMachineUnstamped() throws Exception {
        onePool();
        ClusterApiMachineProvider provider = provider();
        DesiredPool desired = ClusterApiFixtures.desired();
        StampedHash other = new StampedHash(1, "9".repeat(32));
        provider.stamp(POOL, "node-a", desired.rollHash(), desired.kubeletHash());
        provider.stamp(POOL, "node-b", other, desired.kubeletHash());
        await().until(() -> other.equals(machine(provider, OLD_SET + "-bbbbb").rollHash()));

        assertThat(machine(provider, OLD_SET + "-ccccc").rollHash()).isNull();
        provider.settle(POOL);
        assertThat(capi.get(ClusterApiResources.MACHINES, OLD_SET + "-ccccc").getMetadata().getAnnotations())
                .doesNotContainKey(NodeMarks.ROLL_HASH);
    }

    /** An agent stopped between marking a partner and lowering replicas: at rest, the mark is removed, nothing deleted. */
    @Test
    void aMarkForALoweringNeverMadeIsRemovedAtRest() throws Exception {
        twoMachineSets("node-a");
        markToLeave(OLD_SET + "-bbbbb");
        ClusterApiMachineProvider provider = provider();
        kube.clearRequests();

        provider.settle(POOL);

        assertThat(capi.get(ClusterApiResources.MACHINES, OLD_SET + "-bbbbb").getMetadata().getAnnotations())
                .doesNotContainKey("cluster.x-k8s.io/delete-machine");
        assertThat(capi.capiWrites()).extracting(RecordedRequest::method).doesNotContain("DELETE");
        assertThat(capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD).at("/spec/replicas").asInt()).isEqualTo(4);
    }

    @Test
    void aPartnerInANewerMachineSetIsDeferredWithoutAWrite() throws Exception {
        twoMachineSets("node-d");
        ClusterApiMachineProvider provider = provider();

        MachineProvider.Deletion deletion = provider.delete(ClusterApiFixtures.desired(), "node-d", false);

        assertThat(deletion.started()).isFalse();
        assertThat(deletion.detail()).contains(NEW_SET).contains(OLD_SET);
        assertThat(capi.capiWrites()).isEmpty();
    }

    @Test
    void afterARollBackTheCurrentMachineSetIsOlderAndShrinksOnlyAfterTheOldOne() throws Exception {
        // The pool went back to the user's template: OLD_SET is current again, the younger NEW_SET is old.
        twoMachineSetsAt(MD, CURRENT_TEMPLATE, "node-a", "node-d");
        ClusterApiMachineProvider provider = provider();
        DesiredPool desired = ClusterApiFixtures.desired();

        assertThat(provider.machines(POOL)).filteredOn(m -> m.node().isPresent())
                .extracting(Machine::name, Machine::removalOrder).containsExactlyInAnyOrder(
                        tuple(OLD_SET + "-aaaaa", 1), tuple(OLD_SET + "-bbbbb", 1), tuple(OLD_SET + "-ccccc", 1),
                        tuple(NEW_SET + "-ddddd", 0));
        MachineProvider.Deletion current = provider.delete(desired, "node-a", false);
        assertThat(current.started()).isFalse();
        assertThat(capi.capiWrites()).as("lowering replicas now would take a machine of " + NEW_SET).isEmpty();

        MachineProvider.Deletion old = provider.delete(desired, "node-d", false);

        assertThat(old.started()).isTrue();
        assertThat(capi.capiWrites()).extracting(RecordedRequest::method, RecordedRequest::resourcePath).containsExactly(
                tuple("PATCH", MACHINES_PATH + NEW_SET + "-ddddd"),
                tuple("PATCH", MD_PATH));
        assertThat(capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD).at("/spec/replicas").asInt()).isEqualTo(4);
    }

    @Test
    void replacingWithoutSurgePointsTheMachineDeploymentFirstThenExcludesDrainingAndDeletesTheMachine() throws Exception {
        List<RecordedRequest> writes = deletedOutright(true);

        assertThat(body(writes.get(2)).at("/spec/replicas").isMissingNode()).isTrue();
        assertThat(body(writes.get(3)).at("/metadata/annotations")).isEqualTo(ClusterApiFixtures.yaml(
                "{machine.cluster.x-k8s.io/exclude-node-draining: 'true'}"));
        assertThat(capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD).at("/spec/replicas").asInt()).isEqualTo(4);
        assertThat(capi.get(ClusterApiResources.MACHINES, OLD_SET + "-bbbbb").getMetadata().getDeletionTimestamp()).isNotNull();
    }

    @Test
    void deletingWithoutReplacementAlsoPointsTheMachineDeploymentAtTheDesiredTemplateFirst() throws Exception {
        // A Machine deleted outright is made again by its MachineSet while the MachineDeployment keeps the replica (a
        // surge still asked for): at an older template, an outdated Machine would come back for each one deleted.
        deletedOutright(false);
    }

    /**
     * Node b's Machine deleted outright ({@code replace} or not): the templates cloned, the MachineDeployment pointed at
     * them, then exclude-draining and the DELETE. Returns the writes.
     */
    private List<RecordedRequest> deletedOutright(boolean replace) throws Exception {
        twoMachineSets("node-a");
        ClusterApiMachineProvider provider = provider();
        DesiredPool desired = ClusterApiFixtures.desired();

        MachineProvider.Deletion deletion = provider.delete(desired, "node-b", replace);

        assertThat(deletion.started()).isTrue();
        List<RecordedRequest> writes = capi.capiWrites();
        assertThat(writes).extracting(RecordedRequest::method, RecordedRequest::resourcePath).containsExactly(
                tuple("POST", AWS_TEMPLATES_PATH),
                tuple("POST", KUBEADM_TEMPLATES_PATH),
                tuple("PATCH", MD_PATH),
                tuple("PATCH", MACHINES_PATH + OLD_SET + "-bbbbb"),
                tuple("DELETE", MACHINES_PATH + OLD_SET + "-bbbbb"));
        assertThat(body(writes.get(2)).at("/spec/template/spec/infrastructureRef/name").asText())
                .isEqualTo(MD + "-" + hex10(desired.rollHash().value()));
        return writes;
    }

    @Test
    void aMachineThatChangesBetweenTheReadAndTheDeleteIsNotDeleted() throws Exception {
        twoMachineSets("node-a");
        ClusterApiMachineProvider provider = provider();
        String machine = MACHINES_PATH + OLD_SET + "-bbbbb";
        // Its node joining is such a change (ProviderModelIT seed 23 under load: nodeRef set 13 ms before the DELETE).
        // The interference writes the main resource, whose status the store keeps apart: an annotation stands for it.
        kube.changeBeforeNext("DELETE", machine, "", "{\"metadata\":{\"annotations\":{\"example.com/touched\":\"yes\"}}}");

        MachineProvider.Deletion deletion = provider.delete(ClusterApiFixtures.desired(), "node-b", true);

        assertThat(deletion.started()).isFalse();
        assertThat(deletion.detail()).contains("changed while it was being deleted");
        assertThat(kube.requests()).filteredOn(r -> r.method().equals("DELETE") && r.resourcePath().equals(machine))
                .extracting(RecordedRequest::status).containsExactly(409);
        assertThat(capi.get(ClusterApiResources.MACHINES, OLD_SET + "-bbbbb").getMetadata().getDeletionTimestamp()).isNull();
    }

    // ---- 5. pairing and settle ------------------------------------------------------------------

    @Test
    void newMachinesArePairedWithTheOldestRequestsOnlyAsFarAsThePoolIsAboveItsSizeAndSettleRecordsIt() throws Exception {
        capi.cluster("");
        capi.userTemplates();
        Map<String, Instant> requests = new LinkedHashMap<>();
        requests.put("node-a", now.minus(Duration.ofMinutes(1)));
        requests.put("node-b", now.minus(Duration.ofMinutes(2)));
        capi.machineDeployment(surge(3, requests), capi.pointedAtCurrent());
        capi.machineSet(OLD_SET, 2, MD);
        capi.machine(OLD_SET + "-aaaaa", OLD_SET, "node-a");
        capi.machine(OLD_SET + "-bbbbb", OLD_SET, "node-b");
        capi.machineSet(NEW_SET, 2, CURRENT_TEMPLATE);
        // node-c's replacement and one surge machine: 4 machines for 3 desired, so one is surge.
        capi.machine(NEW_SET + "-eeeee", NEW_SET, null);
        capi.machine(NEW_SET + "-fffff", NEW_SET, null);
        ClusterApiMachineProvider provider = provider();

        assertThat(provider.machines(POOL)).filteredOn(m -> m.surgeFor().isPresent())
                .extracting(Machine::name, Machine::surgeFor).containsExactlyInAnyOrder(
                        tuple(NEW_SET + "-eeeee", Optional.of("node-b")),
                        tuple(MD + "-requested-for-node-a", Optional.of("node-a")));

        provider.settle(POOL);

        List<RecordedRequest> writes = capi.capiWrites();
        assertThat(writes).extracting(RecordedRequest::method, RecordedRequest::resourcePath)
                .containsExactly(tuple("PATCH", MACHINES_PATH + NEW_SET + "-eeeee"));
        assertThat(capi.get(ClusterApiResources.MACHINES, NEW_SET + "-eeeee").getMetadata().getAnnotations())
                .containsEntry(NodeMarks.SURGE_FOR, "node-b");
        await().untilAsserted(() -> assertThat(surgeFor(provider, NEW_SET + "-eeeee")).isEqualTo("node-b"));
        kube.clearRequests();
        provider.settle(POOL);
        assertThat(capi.capiWrites()).as("settled already").isEmpty();
    }

    private String surgeFor(MachineProvider provider, String machine) {
        return machine(provider, machine).surgeFor().orElse(null);
    }

    @Test
    void aMachineCreatedBeforeTheRequestIsNotItsSurge() throws Exception {
        capi.cluster("");
        capi.userTemplates();
        capi.machineDeployment(surge(3, Map.of("node-a", now.plus(Duration.ofHours(1)))), capi.pointedAtCurrent());
        capi.machineSet(OLD_SET, 3, MD);
        capi.machine(OLD_SET + "-aaaaa", OLD_SET, "node-a");
        capi.machine(OLD_SET + "-bbbbb", OLD_SET, "node-b");
        capi.machine(OLD_SET + "-ccccc", OLD_SET, "node-c");
        capi.machineSet(NEW_SET, 1, CURRENT_TEMPLATE);
        capi.machine(NEW_SET + "-ddddd", NEW_SET, "node-d");
        ClusterApiMachineProvider provider = provider();

        assertThat(machine(provider, NEW_SET + "-ddddd").surgeFor()).isEmpty();
        assertThat(placeholdersFor(provider)).containsExactly("node-a");
        provider.settle(POOL);
        assertThat(capi.capiWrites()).isEmpty();
    }

    @Test
    void aStandInWhosePartnerWentWithoutNightshiftStandsInForTheFirstOutdatedMachineAndReplicasStay() throws Exception {
        capi.cluster("");
        capi.userTemplates();
        // node-a's stand-in runs; then a MachineHealthCheck deleted node-a's Machine and Cluster API replaced it (fffff):
        // four Machines for a pool of 3 with no partner left to remove.
        Instant asked = now.minus(Duration.ofMinutes(5));
        capi.machineDeployment(surge(3, Map.of("node-a", asked)), capi.pointedAtCurrent());
        capi.machineSet(OLD_SET, 2, MD);
        capi.machine(OLD_SET + "-ccccc", OLD_SET, "node-c");
        capi.machine(OLD_SET + "-bbbbb", OLD_SET, "node-b");
        capi.machineSet(NEW_SET, 2, CURRENT_TEMPLATE);
        capi.machine(NEW_SET + "-eeeee", NEW_SET, "node-e", Map.of(NodeMarks.SURGE_FOR, "node-a"));
        capi.machine(NEW_SET + "-fffff", NEW_SET, "node-f");
        ClusterApiMachineProvider provider = provider();
        assertThat(surgeFor(provider, NEW_SET + "-eeeee")).as("reported with its new partner before it is written: never a member")
                .isEqualTo("node-b");

        provider.settle(POOL);

        JsonNode stored = capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD);
        assertThat(stored.at("/spec/replicas").asInt()).as("never lowered: that would remove an undrained machine").isEqualTo(4);
        assertThat(stored.at("/metadata/annotations/nightshift.dev~1desired-replicas").asText()).as("the pool's size").isEqualTo("3");
        assertThat(SurgeRequests.read(stored.at("/metadata/annotations/nightshift.dev~1surge-requests").asText()).partners())
                .as("the request moved with its time, to the oldest MachineSet's first node").containsExactly(Map.entry("node-b", asked));
        assertThat(capi.get(ClusterApiResources.MACHINES, NEW_SET + "-eeeee").getMetadata().getAnnotations())
                .containsEntry(NodeMarks.SURGE_FOR, "node-b");
        await().untilAsserted(() -> assertThat(surgeFor(provider, NEW_SET + "-eeeee")).isEqualTo("node-b"));
        assertThat(provider.machines(POOL)).as("no surge owed").noneMatch(m -> m.name().contains("-requested-for-"))
                .filteredOn(m -> m.surgeFor().isPresent()).extracting(Machine::name).containsExactly(NEW_SET + "-eeeee");
        kube.clearRequests();
        provider.settle(POOL);
        assertThat(capi.capiWrites()).as("settled already").isEmpty();
    }

    /**
     * Long-profile seed 36 ({@code maxSurge: 100%}): node-a was the last old Machine without a stand-in elsewhere, so
     * its stand-in has no outdated Machine to stand in for. It stands in for the oldest registered Machine of the
     * current MachineSet instead, which is reported leaving (drained as if marked needs-update) and leaves by a lowering
     * — the old MachineSet is empty, so the current one shrinks first: the pool ends at 3, not 4.
     */
    @Test
    void aStandInWhosePartnerWentWithNoOutdatedMachineLeftStandsInForACurrentMachineWhichLeavesByALowering() throws Exception {
        capi.cluster("");
        capi.userTemplates();
        Instant asked = now.minus(Duration.ofMinutes(5));
        capi.machineDeployment(surge(3, Map.of("node-a", asked)), capi.pointedAtCurrent());
        capi.machineSet(OLD_SET, 0, MD);
        capi.machineSet(NEW_SET, 4, CURRENT_TEMPLATE);
        capi.machine(NEW_SET + "-ccccc", NEW_SET, "node-c");
        capi.machine(NEW_SET + "-ddddd", NEW_SET, "node-d");
        capi.machine(NEW_SET + "-eeeee", NEW_SET, "node-e", Map.of(NodeMarks.SURGE_FOR, "node-a"));
        capi.machine(NEW_SET + "-fffff", NEW_SET, "node-f");
        ClusterApiMachineProvider provider = provider();
        assertThat(surgeFor(provider, NEW_SET + "-eeeee")).as("reported with its new partner before it is written").isEqualTo("node-c");
        assertThat(provider.machines(POOL)).filteredOn(Machine::leaving).extracting(Machine::name).containsExactly(NEW_SET + "-ccccc");

        provider.settle(POOL);

        JsonNode stored = capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD);
        assertThat(stored.at("/spec/replicas").asInt()).as("not lowered before node-c is drained").isEqualTo(4);
        assertThat(stored.at("/metadata/annotations/nightshift.dev~1desired-replicas").asText()).as("the pool's size").isEqualTo("3");
        assertThat(SurgeRequests.read(stored.at("/metadata/annotations/nightshift.dev~1surge-requests").asText()).partners())
                .containsExactly(Map.entry("node-c", asked));
        await().untilAsserted(() -> assertThat(capi.get(ClusterApiResources.MACHINES, NEW_SET + "-eeeee").getMetadata().getAnnotations())
                .containsEntry(NodeMarks.SURGE_FOR, "node-c"));
        await().untilAsserted(() -> assertThat(provider.machines(POOL)).filteredOn(Machine::leaving).extracting(Machine::name)
                .containsExactly(NEW_SET + "-ccccc"));
        kube.clearRequests();

        assertThat(provider.delete(ClusterApiFixtures.desired(), "node-c", false).started()).isTrue();

        assertThat(capi.capiWrites()).extracting(RecordedRequest::method, RecordedRequest::resourcePath).containsExactly(
                tuple("PATCH", MACHINES_PATH + NEW_SET + "-ccccc"),
                tuple("PATCH", MD_PATH));
        JsonNode lowered = capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD);
        assertThat(lowered.at("/spec/replicas").asInt()).as("the pool's size").isEqualTo(3);
        assertThat(lowered.at("/metadata/annotations/nightshift.dev~1surge-requests").asText()).isEqualTo("{}");
    }

    /** Before any Machine of the current MachineSet joined, there is none to give the stand-in to: nothing is written. */
    @Test
    void aStandInWhosePartnerWentWaitsForACurrentMachineToJoinWithoutAWrite() throws Exception {
        capi.cluster("");
        capi.userTemplates();
        capi.machineDeployment(surge(1, Map.of("node-a", now.minus(Duration.ofMinutes(5)))), capi.pointedAtCurrent());
        capi.machineSet(OLD_SET, 0, MD);
        capi.machineSet(NEW_SET, 2, CURRENT_TEMPLATE);
        capi.machine(NEW_SET + "-eeeee", NEW_SET, "node-e", Map.of(NodeMarks.SURGE_FOR, "node-a"));
        capi.machine(NEW_SET + "-fffff", NEW_SET, null);
        ClusterApiMachineProvider provider = provider();

        provider.settle(POOL);

        assertThat(capi.capiWrites()).as("Cluster API's replacement has not joined").isEmpty();
        assertThat(provider.machines(POOL)).noneMatch(Machine::leaving);
    }

    @Test
    void settleDeletesOnlyNightshiftsClonesThatNothingUses() throws Exception {
        capi.cluster("");
        capi.userTemplates();
        var aws = ClusterApiResources.AWS_MACHINE_TEMPLATES;
        var kubeadm = ClusterApiResources.KUBEADM_CONFIG_TEMPLATES;
        capi.template(aws, "web-md-aaaaaaaaaa", MD);
        capi.template(aws, "web-md-bbbbbbbbbb", MD);
        capi.template(aws, "web-md-cccccccccc", MD);
        capi.template(aws, "web-md-dddddddddd", MD);
        capi.template(aws, "web-md-ffffffffff", MD);
        capi.template(aws, "other-md-eeeeeeeeee", "other-md");
        capi.template(kubeadm, "web-md-kubelet-0000000000", MD);
        capi.template(kubeadm, "web-md-kubelet-1111111111", MD);
        capi.template(kubeadm, "web-md-user-kubelet", null);
        capi.machineDeployment("""
                spec:
                  template:
                    spec:
                      bootstrap: {configRef: {name: web-md-kubelet-1111111111}}
                      infrastructureRef: {name: web-md-ffffffffff}
                """);
        capi.machineSet("web-md-with-replicas", 3, "web-md-aaaaaaaaaa");
        capi.machineSet("web-md-empty", 0, "web-md-bbbbbbbbbb");
        capi.machineSet("web-md-draining", 0, "web-md-dddddddddd");
        capi.machine("web-md-draining-zzzzz", "web-md-draining", "node-z");
        ClusterApiMachineProvider provider = provider();

        provider.settle(POOL);

        assertThat(capi.capiWrites()).allMatch(w -> w.method().equals("DELETE"))
                .extracting(RecordedRequest::resourcePath).containsExactlyInAnyOrder(
                        AWS_TEMPLATES_PATH + "/web-md-bbbbbbbbbb",
                        AWS_TEMPLATES_PATH + "/web-md-cccccccccc",
                        KUBEADM_TEMPLATES_PATH + "/web-md-kubelet-0000000000");
        assertThat(kube.client().genericKubernetesResources(aws).inNamespace(NS).list().getItems())
                .extracting(t -> t.getMetadata().getName()).containsExactlyInAnyOrder(
                        MD, "web-md-aaaaaaaaaa", "web-md-dddddddddd", "web-md-ffffffffff", "other-md-eeeeeeeeee");
    }

    // ---- 6. node registration through the executor ----------------------------------------------

    /**
     * Adoption stamps the node (its marks are authoritative for it) and the Machine too: Cluster API's MachineSet makes
     * the Machines that replace lost ones from the same template, and those are told apart by their siblings' records
     * (before, only the node was stamped, the Machines carried nothing, and ProviderModelIT seed 27 adopted an
     * old-template replacement at a newer spec).
     */
    @Test
    void adoptingARegisteredNodeStampsItsMachineToo() throws Exception {
        String node = "ip-10-0-1-6.ec2.internal";
        capi.cluster("");
        capi.userTemplates();
        capi.machineDeployment("");
        capi.machineSet(OLD_SET, 1, MD);
        capi.machine(OLD_SET + "-eeeee", OLD_SET, node);
        kube.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(node).addToLabels(NodeMarks.POOL, POOL)
                .endMetadata().build()).create();
        Acting acting = acting();
        ClusterObserver observer = acting.observer();
        StepExecutor executor = acting.executor();
        DesiredPool desired = ClusterApiFixtures.desired();
        await().until(() -> observer.node(node).isPresent());

        executor.execute(new Step.Stamp(node, POOL, desired.rollHash(), desired.kubeletHash(), true));

        assertThat(NodeMarks.rollHash(NodeMarks.annotations(kube.client().nodes().withName(node).get()))).contains(desired.rollHash());
        assertThat(capi.get(ClusterApiResources.MACHINES, OLD_SET + "-eeeee").getMetadata().getAnnotations())
                .containsEntry(NodeMarks.ROLL_HASH, desired.rollHash().value())
                .containsEntry(NodeMarks.KUBELET_HASH, desired.kubeletHash().value());
    }

    @Test
    void aMachinesNodeGetsThePoolLabelAndTheMachinesHashesWithoutLosingItsOwnMarks() throws Exception {
        String node = "ip-10-0-1-5.ec2.internal";
        capi.cluster("");
        capi.userTemplates();
        capi.machineDeployment("");
        capi.machineSet(NEW_SET, 1, MD);
        capi.machine(NEW_SET + "-ddddd", NEW_SET, node, Map.of(
                NodeMarks.ROLL_HASH, "1".repeat(32), NodeMarks.ROLL_HASH_VERSION, "1",
                NodeMarks.KUBELET_HASH, "2".repeat(32), NodeMarks.KUBELET_HASH_VERSION, "1"));
        kube.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(node)
                .addToLabels("kubernetes.io/hostname", node)
                .addToAnnotations(NodeMarks.ROLL_HASH, "3".repeat(32)).endMetadata().build()).create();
        Acting acting = acting();
        ClusterObserver observer = acting.observer();
        StepExecutor executor = acting.executor();
        DesiredPool desired = ClusterApiFixtures.desired();
        kube.clearRequests();

        executor.settle(desired, observer.unmarked(POOL));

        Node registered = kube.client().nodes().withName(node).get();
        assertThat(registered.getMetadata().getLabels()).containsEntry(NodeMarks.POOL, POOL);
        assertThat(registered.getMetadata().getAnnotations())
                .containsEntry(NodeMarks.ROLL_HASH, "3".repeat(32))
                .containsEntry(NodeMarks.KUBELET_HASH, "2".repeat(32))
                .containsEntry(NodeMarks.KUBELET_HASH_VERSION, "1");
        // Besides the node: its Machine's hashes go onto the MachineDeployment's template (recorded adoption).
        assertThat(kube.requests()).filteredOn(RecordedRequest::isWrite).extracting(RecordedRequest::method, RecordedRequest::resourcePath)
                .containsExactlyInAnyOrder(tuple("PATCH", "/api/v1/nodes/" + node), tuple("PATCH", MD_PATH));

        await().untilAsserted(() -> assertThat(observer.unmarked(POOL)).isEmpty());
        assertThat(capi.json(ClusterApiResources.MACHINE_DEPLOYMENTS, MD).at("/spec/template/metadata/annotations").path(NodeMarks.ROLL_HASH)
                .asText()).isEqualTo("1".repeat(32));
        // The provider's copy of the MachineDeployment catches up with its own patch; then a settle writes nothing.
        await().untilAsserted(() -> {
            kube.clearRequests();
            executor.settle(desired, observer.unmarked(POOL));
            assertThat(kube.requests()).filteredOn(RecordedRequest::isWrite).isEmpty();
        });
    }

    /** The cluster-api provider has no node updates of its own. */
    /** The provider as the agent's executor drives it: its observer and executor, started and watching. */
    private record Acting(ClusterObserver observer, StepExecutor executor) {
    }

    private Acting acting() throws Exception {
        ClusterApiMachineProvider provider = new ClusterApiMachineProvider(kube.client(), new ClusterApiSettings(NS, CLUSTER, Map.of()), clock);
        ClusterObserver observer = new ClusterObserver(kube.client(), "nightshift-system", provider, () -> { }, clock);
        closing.add(observer);
        Evictor evictor = new Evictor(kube.client().getConfiguration());
        closing.add(evictor);
        StepExecutor executor = new StepExecutor(kube.client(), evictor, observer, provider, new NoNodeUpdates(),
                clock, new EventRecorder(kube.client(), clock, EventRecorder.COMPONENT));
        observer.start();
        await().until(() -> observer.watching() && provider.watching());
        return new Acting(observer, executor);
    }

    private static final class NoNodeUpdates implements NodeUpdater {
        @Override
        public void updateInPlace(DesiredPool pool, String node) {
            throw new UnsupportedOperationException("no in-place updates");
        }

        @Override
        public void restartKubelet(DesiredPool pool, String node) {
            throw new UnsupportedOperationException("no kubelet restarts");
        }
    }
}
