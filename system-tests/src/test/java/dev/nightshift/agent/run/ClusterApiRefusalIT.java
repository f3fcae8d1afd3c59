package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.git.GitDaemon;
import dev.nightshift.agent.git.GitWork;
import dev.nightshift.agent.provider.NoNodeUpdates;
import dev.nightshift.agent.provider.capi.ClusterApiMachineProvider;
import dev.nightshift.agent.provider.capi.ClusterApiSettings;
import dev.nightshift.sandbox.capi.Behaviour;
import dev.nightshift.sandbox.capi.ClusterApiControllers;
import dev.nightshift.sandbox.capi.ClusterApiResources;
import dev.nightshift.sandbox.capi.ClusterApiSeeding;
import dev.nightshift.sandbox.capi.EmbeddedClusterApi;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * The agent with the {@code cluster-api} provider on a pool whose MachineDeployment it must not
 * manage: the pool is reported in {@code /status} with what to change, and an image bump pushed
 * meanwhile touches nothing: no write by the agent to any Cluster API object, and none to a node.
 */
class ClusterApiRefusalIT {

    private static final String AGENT = "nightshift-agent-under-refusal-test";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MD = "c-web";

    /** What is wrong with the pool's MachineDeployment, and the words /status must use about it. */
    enum Refusal {
        ROLLING_UPDATE("RollingUpdate", k -> editMd(k, md -> spec(md).put("rollout", Map.of("strategy", Map.of("type", "RollingUpdate"))))),
        PAUSED_CLUSTER("is paused", k -> k.genericKubernetesResources(ClusterApiResources.CLUSTERS).inNamespace("default").withName("c")
                .edit(c -> {
                    c.setAdditionalProperty("spec", new java.util.HashMap<>(Map.of("paused", true)));
                    return c;
                })),
        CLUSTER_CLASS_OWNED("ClusterClass", k -> editMd(k, md -> md.getMetadata().getLabels().put("topology.cluster.x-k8s.io/owned", ""))),
        AUTOSCALED("cluster autoscaler", k -> editMd(k, md -> {
            md.getMetadata().setAnnotations(new java.util.HashMap<>(Map.of("cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size", "2",
                    "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size", "5")));
        })),
        NO_MACHINE_DEPLOYMENT("no MachineDeployment", k -> editMd(k, md -> md.getMetadata().getLabels().remove("nightshift.dev/pool"))),
        TWO_MACHINE_DEPLOYMENTS("label exactly one", k -> {
            GenericKubernetesResource copy = k.genericKubernetesResources(ClusterApiResources.MACHINE_DEPLOYMENTS).inNamespace("default")
                    .withName(MD).get();
            copy.getMetadata().setName(MD + "-twin");
            copy.getMetadata().setResourceVersion(null);
            copy.getMetadata().setUid(null);
            copy.getAdditionalProperties().remove("status");
            spec(copy).put("replicas", 0);
            k.genericKubernetesResources(ClusterApiResources.MACHINE_DEPLOYMENTS).inNamespace("default").resource(copy).create();
        });

        final String said;
        final Consumer<KubernetesClient> apply;

        Refusal(String said, Consumer<KubernetesClient> apply) {
            this.said = said;
            this.apply = apply;
        }
    }

    @TempDir
    Path tmp;

    private final ScheduledExecutorService threads = Executors.newScheduledThreadPool(2);
    private GitDaemon daemon;
    private EmbeddedKubernetes kube;
    private KubernetesClient agentClient;
    private ClusterApiControllers controllers;
    private GitWork work;

    @BeforeEach
    void aPoolOfTwoMachinesOnClusterApi() throws Exception {
        daemon = new GitDaemon(Files.createDirectories(tmp.resolve("served")));
        kube = EmbeddedKubernetes.start();
        agentClient = new KubernetesClientBuilder().withConfig(new ConfigBuilder(kube.config()).withUserAgent(AGENT).build()).build();
        EmbeddedClusterApi.install(kube);
        controllers = new ClusterApiControllers(kube.client(), "default", threads, Clock.systemUTC(), new Random(9), Behaviour.fast());
        controllers.start();
        kube.client().genericKubernetesResources(ClusterApiResources.CLUSTERS).inNamespace("default").resource(JSON.convertValue(
                Map.of("apiVersion", "cluster.x-k8s.io/v1beta2", "kind", "Cluster", "metadata", Map.of("name", "c", "namespace", "default"),
                        "spec", Map.of("paused", false)), GenericKubernetesResource.class)).create();
        ClusterApiSeeding.seed(kube.client(), ClusterApiSeeding.PoolSeed.of("c", "web", 2, "1.31.4"), Duration.ofSeconds(60));
        work = GitWork.create(tmp.resolve("served"), "specs.git", daemon.url("specs.git"), tmp.resolve("work"));
        work.write("cluster.yaml", """
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: c}
                spec:
                  kubernetes: {version: "1.31.4"}
                """);
        work.write("pools/web.yaml", pool("1.31.4"));
        work.commitAndPush("initial");
    }

    private static String pool(String version) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: c}
                spec:
                  minimum: 2
                  maximum: 2
                  maxSurge: 1
                  maxUnavailable: 0
                  interval: 0s
                  machine: {type: docker, image: {name: kindest-node, version: %s}}
                """.formatted(version);
    }

    @AfterEach
    void stop() {
        controllers.close();
        threads.shutdownNow();
        agentClient.close();
        kube.close();
        daemon.close();
    }

    @ParameterizedTest
    @EnumSource(Refusal.class)
    void aRefusedPoolIsReportedWithWhatToChangeAndNothingIsWritten(Refusal refusal) throws Exception {
        AgentConfig config = TestAgentConfig.of(daemon.url("specs.git"), "c", Files.createTempDirectory(tmp, "cache"))
                .with(new AgentConfig.Provider(AgentConfig.Provider.CLUSTER_API))
                .with(new AgentConfig.NodeUpdates(Optional.of(AgentConfig.NodeUpdates.NONE)));
        try (Agent agent = new Agent(config, agentClient, new ClusterApiMachineProvider(agentClient,
                new ClusterApiSettings("default", "c", Map.of()), Clock.systemUTC()), new NoNodeUpdates(), Clock.systemUTC(), r -> { })) {
            agent.start();
            // First managed: the nodes are labelled, adopted and stamped; only then does the MachineDeployment go wrong.
            await().atMost(Duration.ofSeconds(30)).until(() -> kube.client().nodes().withLabel("nightshift.dev/pool", "web").list()
                    .getItems().stream().filter(n -> n.getMetadata().getAnnotations().containsKey("nightshift.dev/roll-hash")).count() == 2);
            refusal.apply.accept(kube.client());
            // Cleared only once a pass has seen the refusal: a pass that began before it may still
            // finish the stamping it started (the managed-labels patch follows the roll-hash one).
            await().atMost(Duration.ofSeconds(30)).until(() -> reason(agent).contains(refusal.said));
            kube.clearRequests();
            work.write("pools/web.yaml", pool("1.31.5"));
            String bump = work.commitAndPush("image bump");
            agent.pollNow();
            await().atMost(Duration.ofSeconds(30)).until(() -> JSON.readTree(agent.status()).path("revision").asText().equals(bump)
                    && reason(agent).contains(refusal.said));

            JsonNode status = JSON.readTree(agent.status());
            assertThat(status.path("notices").toString()).contains("web: ").contains(refusal.said);
            List<RecordedRequest> writes = kube.requests().stream().filter(r -> r.userAgent().equals(AGENT) && r.isWrite()
                    && (r.resourcePath().contains("cluster.x-k8s.io") || r.resourcePath().startsWith("/api/v1/nodes"))).toList();
            assertThat(writes).as("the agent's writes to Cluster API objects and nodes").isEmpty();
        }
    }

    private static String reason(Agent agent) throws Exception {
        for (JsonNode pool : JSON.readTree(agent.status()).path("pools")) {
            if (pool.path("pool").asText().equals("web")) {
                return pool.path("progressing").asBoolean(true) ? "" : pool.path("progressReason").asText("");
            }
        }
        return "";
    }

    /**
     * The person's edit, made again from a fresh read when refused with 409: the agent may be writing the
     * MachineDeployment at that moment (the hashes of the Machines it just adopted go onto its template).
     */
    private static void editMd(KubernetesClient k, Consumer<GenericKubernetesResource> change) {
        await().atMost(Duration.ofSeconds(10)).ignoreExceptionsMatching(e -> e instanceof io.fabric8.kubernetes.client.KubernetesClientException c
                && c.getCode() == 409).until(() -> {
                    k.genericKubernetesResources(ClusterApiResources.MACHINE_DEPLOYMENTS).inNamespace("default").withName(MD).edit(md -> {
                        change.accept(md);
                        return md;
                    });
                    return true;
                });
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(GenericKubernetesResource md) {
        Map<String, Object> spec = new java.util.HashMap<>((Map<String, Object>) md.getAdditionalProperties().get("spec"));
        md.setAdditionalProperty("spec", spec);
        return spec;
    }
}
