package dev.nightshift.agent.manifests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.git.GitDaemon;
import dev.nightshift.agent.git.GitWork;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.nodeupdate.JobSettings;
import dev.nightshift.agent.run.Agent;
import dev.nightshift.agent.run.TestAgentConfig;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.jobs.Behaviour;
import dev.nightshift.sandbox.jobs.JobControllers;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * The RBAC for node updates by Job ({@code manifests/node-updates/job-updater.yaml}) proven by recorded requests, as
 * RbacIT proves the rest: the agent, with {@code nodeUpdates.type: job} and the Job controller double running its
 * Jobs, restarts every kubelet for a Kubernetes patch, updates every node in place for an image bump, restarts the
 * kubelets for a reservation split and again for the split back (whose Job name was used before: the finished Job is
 * deleted and replaced), and finally meets a failing Job, whose pod's termination message it reads. Every request it
 * made is allowed by the applied manifests ({@code overlays/simulated}, rendered) plus that file, and every permission of that file's Role was used.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JobUpdaterRbacIT {

    private static final String AGENT = "nightshift-agent-under-job-rbac-test";
    private static final Path JOB_UPDATER_RBAC = Manifests.directory().resolve("node-updates/job-updater.yaml");
    private static final String NAMESPACE = "nightshift-node-updates";
    private static final String FAILURE = "apt-get: package kubelet=1.31.5-1.1 not found";

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: rbac}
            spec:
              kubernetes: {version: "%s", kubelet: {kubeReserved: {cpu: %s}, systemReserved: {cpu: %s}}}
              machineImages:
              - name: gardenlinux
                versions:
                - {version: 1631.0.0, inPlaceUpdates: {supported: true}}
                - {version: 1632.0.0, inPlaceUpdates: {supported: true, minVersionForUpdate: 1631.0.0}}
            """;

    private static String web(String version) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: rbac}
                spec:
                  minimum: 2
                  maximum: 3
                  maxSurge: 0
                  maxUnavailable: 1
                  updateStrategy: AutoInPlaceUpdate
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(version);
    }

    @TempDir
    static Path tmp;

    private Rbac rbac;
    private List<Rbac.Grant> jobUpdaterGrants;
    private List<ApiRequest> agentRequests;

    @BeforeAll
    void runTheAgentThroughNodeUpdatesByJob() throws Exception {
        // The agent runs with the simulated provider here: its overlay, plus the node-updates file.
        List<Manifests.Document> documents = new ArrayList<>(Manifests.overlayRendered("simulated"));
        List<Manifests.Document> jobDocuments = Manifests.read(JOB_UPDATER_RBAC);
        documents.addAll(jobDocuments);
        rbac = Rbac.forAgent(documents, documents);
        jobUpdaterGrants = Rbac.forAgent(documents, jobDocuments).grants();

        Path served = Files.createDirectories(tmp.resolve("served"));
        ScheduledExecutorService threads = Executors.newScheduledThreadPool(2);
        try (GitDaemon daemon = new GitDaemon(served);
             EmbeddedKubernetes kube = EmbeddedKubernetes.start();
             KubernetesClient agentClient = new KubernetesClientBuilder()
                     .withConfig(new ConfigBuilder(kube.config()).withUserAgent(AGENT).build()).build()) {
            KubernetesClient test = kube.client();
            test.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build()).create();
            // The simulated cloud runs inside the agent, with the agent's identity; it updates no node here.
            SimulatedMachineProvider provider = new SimulatedMachineProvider(agentClient, threads, Clock.systemUTC(), new Random(3),
                    p -> false, new SimulatedMachineProvider.Behaviour(Duration.ofMillis(800), Duration.ofMillis(800),
                    Duration.ofMillis(300), 0, 0));
            provider.seed("web", "web-1", Optional.empty(), Optional.empty());
            provider.seed("web", "web-2", Optional.empty(), Optional.empty());
            try (JobControllers jobs = new JobControllers(test, NAMESPACE, threads, Clock.systemUTC(),
                    RandomGeneratorFactory.of("L64X128MixRandom").create(11), Behaviour.fast())) {
                jobs.start();
                GitWork work = GitWork.create(served, "specs.git", daemon.url("specs.git"), tmp.resolve("work"));
                work.write("cluster.yaml", CLUSTER.formatted("1.31.4", "100m", "100m"));
                work.write("pools/web.yaml", web("1631.0.0"));
                work.commitAndPush("initial");
                kube.clearRequests();

                AgentConfig config = TestAgentConfig.of(daemon.url("specs.git"), "rbac", Files.createTempDirectory(tmp, "cache"))
                        .with(new AgentConfig.LeaderElection(true, "nightshift-leader", Duration.ofSeconds(2), "job-rbac-test"))
                        .with(AgentConfig.NodeUpdates.job(new JobSettings(NAMESPACE, "registry.example.com/node-updater:1.4",
                                List.of("/bin/update-node"), "nightshift-node-updater", Optional.empty())));
                try (Agent agent = new Agent(config, agentClient, provider, Clock.systemUTC(), r -> { })) {
                    agent.start();
                    await().atMost(Duration.ofSeconds(60)).until(() -> stamped(test));
                    change(work, test, CLUSTER.formatted("1.31.5", "100m", "100m"), web("1631.0.0"), NodeMarks.KUBELET_HASH);
                    change(work, test, CLUSTER.formatted("1.31.5", "100m", "100m"), web("1632.0.0"), NodeMarks.ROLL_HASH);
                    change(work, test, CLUSTER.formatted("1.31.5", "50m", "150m"), web("1632.0.0"), NodeMarks.KUBELET_HASH);
                    // Back to a kubelet target the nodes had: the finished Jobs of that name are deleted and replaced.
                    change(work, test, CLUSTER.formatted("1.31.5", "100m", "100m"), web("1632.0.0"), NodeMarks.KUBELET_HASH);
                    List.of("web-1", "web-2").forEach(n -> jobs.failOn(n, FAILURE));
                    work.write("cluster.yaml", CLUSTER.formatted("1.31.5", "150m", "50m"));
                    work.commitAndPush("a reservation split the updater fails on");
                    await().atMost(Duration.ofSeconds(60)).until(() -> nodes(test).stream()
                            .anyMatch(n -> annotation(n, NodeMarks.IN_PLACE_FAILED_REASON).contains(FAILURE)));
                }
                agentRequests = kube.requests().stream().filter(r -> r.userAgent().equals(AGENT))
                        .map(r -> ApiRequest.of(r.method(), r.path())).toList();
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /** Pushes the specs and waits until both nodes carry a new {@code mark} (a hash) and wait for no Job. */
    private static void change(GitWork work, KubernetesClient test, String cluster, String pool, String mark) throws Exception {
        Set<String> before = nodes(test).stream().map(n -> annotation(n, mark)).collect(Collectors.toSet());
        work.write("cluster.yaml", cluster);
        work.write("pools/web.yaml", pool);
        work.commitAndPush("change of " + mark);
        await().atMost(Duration.ofSeconds(60)).until(() -> nodes(test).size() == 2 && nodes(test).stream()
                .allMatch(n -> !before.contains(annotation(n, mark)) && annotation(n, NodeMarks.UPDATE_JOB).isEmpty()));
    }

    @Test
    void everyRequestTheAgentMadeWithTheJobUpdaterIsAllowed() {
        Map<String, Long> denied = agentRequests.stream().filter(r -> !rbac.allows(r))
                .collect(Collectors.groupingBy(ApiRequest::toString, TreeMap::new, Collectors.counting()));
        assertThat(agentRequests).as("the agent's requests").isNotEmpty();
        assertThat(denied).as("requests the ServiceAccount may not make; grants: %s", rbac.grants()).isEmpty();
    }

    @Test
    void everyPermissionOfTheJobUpdaterFileWasUsed() {
        assertThat(jobUpdaterGrants).as("the Role of %s", JOB_UPDATER_RBAC).isNotEmpty();
        List<String> unused = jobUpdaterGrants.stream().filter(g -> agentRequests.stream().noneMatch(g::allows))
                .map(Rbac.Grant::toString).toList();
        assertThat(unused).as("granted by %s but never used by the agent: remove them", JOB_UPDATER_RBAC).isEmpty();
    }

    @Test
    void theScenarioCreatedReplacedAndReadJobsThroughTheGrantedVerbs() {
        List<String> used = agentRequests.stream().filter(r -> NAMESPACE.equals(r.namespace()))
                .map(r -> r.verb() + " " + r.resource()).distinct().sorted().toList();
        assertThat(used).contains("create jobs", "delete jobs", "get jobs", "list jobs", "list pods");
    }

    private static List<Node> nodes(KubernetesClient client) {
        return client.nodes().withLabel(NodeMarks.POOL, "web").list().getItems();
    }

    private static String annotation(Node n, String key) {
        return n.getMetadata().getAnnotations() == null ? "" : n.getMetadata().getAnnotations().getOrDefault(key, "");
    }

    private static boolean stamped(KubernetesClient client) {
        List<Node> nodes = nodes(client);
        return nodes.size() == 2 && nodes.stream().noneMatch(n -> annotation(n, NodeMarks.ROLL_HASH).isEmpty());
    }
}
