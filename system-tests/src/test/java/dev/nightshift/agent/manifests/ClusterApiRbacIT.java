package dev.nightshift.agent.manifests;

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
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.git.GitDaemon;
import dev.nightshift.agent.git.GitWork;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.provider.NoNodeUpdates;
import dev.nightshift.agent.provider.capi.ClusterApiMachineProvider;
import dev.nightshift.agent.provider.capi.ClusterApiSettings;
import dev.nightshift.agent.run.Agent;
import dev.nightshift.agent.run.TestAgentConfig;
import dev.nightshift.sandbox.capi.Behaviour;
import dev.nightshift.sandbox.capi.ClusterApiControllers;
import dev.nightshift.sandbox.capi.ClusterApiResources;
import dev.nightshift.sandbox.capi.ClusterApiSeeding;
import dev.nightshift.sandbox.capi.EmbeddedClusterApi;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * The {@code cluster-api} provider's RBAC ({@code manifests/overlays/cluster-api/rbac-cluster-api.yaml}) proven by
 * recorded requests, as RbacIT proves the rest: the agent, with that provider, adopts two pools of
 * the embedded Cluster API (one surging, one not) and replaces every machine after an image bump.
 * Every request it made is allowed by the manifests it would run with ({@code overlays/cluster-api} as
 * {@code kubectl kustomize} renders it), and every permission of the Cluster API file was used.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterApiRbacIT {

    private static final String AGENT = "nightshift-agent-under-capi-rbac-test";
    private static final Path CLUSTER_API_RBAC = Manifests.overlay("cluster-api").resolve("rbac-cluster-api.yaml");

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: rbac}
            spec:
              kubernetes: {version: "1.31.4", kubelet: {kubeReserved: {cpu: 100m}}}
            """;

    private static String pool(String name, String version, String limits) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: %s, cluster: rbac}
                spec:
                  minimum: 2
                  maximum: 2
                  %s
                  interval: 0s
                  machine: {type: docker, image: {name: kindest-node, version: %s}}
                """.formatted(name, limits, version);
    }

    @TempDir
    static Path tmp;

    private Rbac rbac;
    private List<Rbac.Grant> clusterApiGrants;
    private List<ApiRequest> agentRequests;

    @BeforeAll
    void runTheAgentThroughARolloutOnClusterApi() throws Exception {
        List<Manifests.Document> documents = Manifests.overlayRendered("cluster-api");
        List<Manifests.Document> clusterApiDocuments = Manifests.read(CLUSTER_API_RBAC);
        rbac = Rbac.forAgent(documents, documents);
        clusterApiGrants = Rbac.forAgent(documents, clusterApiDocuments).grants();

        Path served = Files.createDirectories(tmp.resolve("served"));
        ScheduledExecutorService threads = Executors.newScheduledThreadPool(2);
        try (GitDaemon daemon = new GitDaemon(served);
             EmbeddedKubernetes kube = EmbeddedKubernetes.start();
             KubernetesClient agentClient = new KubernetesClientBuilder()
                     .withConfig(new ConfigBuilder(kube.config()).withUserAgent(AGENT).build()).build()) {
            EmbeddedClusterApi.install(kube);
            try (ClusterApiControllers controllers = new ClusterApiControllers(kube.client(), "default", threads, Clock.systemUTC(),
                    new Random(5), Behaviour.fast())) {
                controllers.start();
                ClusterApiSeeding.seed(kube.client(), ClusterApiSeeding.PoolSeed.of("rbac", "web", 2, "1.31.4"), Duration.ofSeconds(60));
                ClusterApiSeeding.seed(kube.client(), ClusterApiSeeding.PoolSeed.of("rbac", "db", 2, "1.31.4"), Duration.ofSeconds(60));
                GitWork work = GitWork.create(served, "specs.git", daemon.url("specs.git"), tmp.resolve("work"));
                work.write("cluster.yaml", CLUSTER);
                work.write("pools/web.yaml", pool("web", "1.31.4", "maxSurge: 1\n  maxUnavailable: 0"));
                work.write("pools/db.yaml", pool("db", "1.31.4", "maxSurge: 0\n  maxUnavailable: 1"));
                work.commitAndPush("initial");
                kube.clearRequests();

                AgentConfig config = TestAgentConfig.of(daemon.url("specs.git"), "rbac", Files.createTempDirectory(tmp, "cache"))
                        .with(new AgentConfig.LeaderElection(true, "nightshift-leader", Duration.ofSeconds(2), "capi-rbac-test"))
                        .with(new AgentConfig.Provider(AgentConfig.Provider.CLUSTER_API))
                        .with(new AgentConfig.NodeUpdates(Optional.of(AgentConfig.NodeUpdates.NONE)));
                KubernetesClient test = kube.client();
                try (Agent agent = new Agent(config, agentClient, new ClusterApiMachineProvider(agentClient,
                        new ClusterApiSettings("default", "rbac", Map.of()), Clock.systemUTC()), new NoNodeUpdates(), Clock.systemUTC(),
                        r -> { })) {
                    agent.start();
                    await().atMost(Duration.ofSeconds(60)).until(() -> stamped(test, "web", 2) && stamped(test, "db", 2));
                    bump(work, test, "1.31.5", "100m");
                    // Again, with new kubelet settings too: both first clones fall out of use and are deleted.
                    bump(work, test, "1.31.6", "200m");
                    await().atMost(Duration.ofSeconds(30)).until(() -> clones(test, ClusterApiResources.DEV_MACHINE_TEMPLATES) == 2
                            && clones(test, ClusterApiResources.KUBEADM_CONFIG_TEMPLATES) == 2);
                }
                List<RecordedRequest> agentLog = kube.requests().stream().filter(r -> r.userAgent().equals(AGENT)).toList();
                agentRequests = agentLog.stream().map(r -> ApiRequest.of(r.method(), r.path())).toList();
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /** Pushes the image version and the cluster's kubelet CPU reservation and waits until every node of both pools is replaced. */
    private static void bump(GitWork work, KubernetesClient test, String version, String cpu) throws Exception {
        Set<String> before = names(test);
        String old = hash(nodes(test, "web").get(0));
        work.write("cluster.yaml", CLUSTER.replace("100m", cpu));
        work.write("pools/web.yaml", pool("web", version, "maxSurge: 1\n  maxUnavailable: 0"));
        work.write("pools/db.yaml", pool("db", version, "maxSurge: 0\n  maxUnavailable: 1"));
        work.commitAndPush("image " + version + ", kubelet cpu " + cpu);
        await().atMost(Duration.ofSeconds(150)).until(() -> replaced(test, "web", before, old) && replaced(test, "db", before, old));
    }

    /** Nightshift's template clones of this kind. */
    private static int clones(KubernetesClient client, io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext kind) {
        return client.genericKubernetesResources(kind).inNamespace("default").withLabel("nightshift.dev/template-of").list().getItems().size();
    }

    @Test
    void everyRequestTheAgentMadeWithTheClusterApiProviderIsAllowed() {
        Map<String, Long> denied = agentRequests.stream().filter(r -> !rbac.allows(r))
                .collect(Collectors.groupingBy(ApiRequest::toString, TreeMap::new, Collectors.counting()));
        assertThat(agentRequests).as("the agent's requests").isNotEmpty();
        assertThat(denied).as("requests the ServiceAccount may not make; grants: %s", rbac.grants()).isEmpty();
    }

    @Test
    void everyPermissionOfTheClusterApiFileWasUsed() {
        List<String> unused = clusterApiGrants.stream().filter(g -> agentRequests.stream().noneMatch(g::allows))
                .map(Rbac.Grant::toString).toList();
        assertThat(unused).as("granted by %s but never used by the agent: remove them", CLUSTER_API_RBAC).isEmpty();
    }

    @Test
    void theScenarioChangedClusterApiObjectsThroughTheGrantedVerbs() {
        List<String> writes = agentRequests.stream().filter(r -> r.apiGroup().endsWith("cluster.x-k8s.io")
                && Set.of("create", "patch", "delete").contains(r.verb())).map(r -> r.verb() + " " + r.resource()).distinct().sorted().toList();
        assertThat(writes).contains("patch machinedeployments", "patch machines", "delete machines", "create devmachinetemplates",
                "create kubeadmconfigtemplates", "delete devmachinetemplates", "delete kubeadmconfigtemplates");
    }

    private static List<Node> nodes(KubernetesClient client, String pool) {
        return client.nodes().withLabel(NodeMarks.POOL, pool).list().getItems();
    }

    private static Set<String> names(KubernetesClient client) {
        return client.nodes().list().getItems().stream().map(n -> n.getMetadata().getName()).collect(Collectors.toSet());
    }

    private static String hash(Node n) {
        return n.getMetadata().getAnnotations() == null ? "" : n.getMetadata().getAnnotations().getOrDefault(NodeMarks.ROLL_HASH, "");
    }

    private static boolean stamped(KubernetesClient client, String pool, int count) {
        List<Node> nodes = nodes(client, pool);
        return nodes.size() == count && nodes.stream().noneMatch(n -> hash(n).isEmpty());
    }

    private static boolean replaced(KubernetesClient client, String pool, Set<String> oldNodes, String oldHash) {
        List<Node> nodes = nodes(client, pool);
        return nodes.size() == 2 && nodes.stream().noneMatch(n -> hash(n).isEmpty() || hash(n).equals(oldHash)
                || oldNodes.contains(n.getMetadata().getName()));
    }
}
