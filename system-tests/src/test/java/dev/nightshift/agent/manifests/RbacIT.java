package dev.nightshift.agent.manifests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.git.GitDaemon;
import dev.nightshift.agent.git.GitWork;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import dev.nightshift.agent.run.Agent;
import dev.nightshift.agent.run.TestAgentConfig;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * The manifests' RBAC is sufficient and least-privilege: {@code manifests/overlays/simulated} as {@code kubectl
 * kustomize} renders it (the base's RBAC plus the simulated provider's). The real agent (and the simulated provider
 * it runs with) does a whole life in the embedded cluster: adopts two pools, rolls an image bump with
 * drains (evictions allowed, of a Deployment's and a StatefulSet's pods that the pool's {@code workloadsAvailable} check
 * then reads, and one refused by a PodDisruptionBudget until the pod is force-deleted),
 * writes the pools' status ConfigMaps (one of them changed by another client meanwhile, so read again after a 409),
 * records on each replaced node why (counted again when its
 * machine goes), reports an invalid commit as an Event, and counts it again after a restart. Every request the agent made is then checked against the rules the manifests
 * bind to the Deployment's ServiceAccount, and every verb the rules grant must have been used.
 *
 * <p>The agent's client has a User-Agent of its own; the request log records it, so the test's own
 * set-up and reads (through {@link EmbeddedKubernetes#client()}) never count as the agent's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RbacIT {

    private static final String AGENT = "nightshift-agent-under-rbac-test";
    private static final String NS = Agent.NAMESPACE;
    private static final String RECORDS = "/api/v1/namespaces/" + NS + "/configmaps";
    /** Granted on purpose although this scenario does not use them, each with its reason. */
    private static final Map<String, String> UNUSED_ON_PURPOSE = Map.of();

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: rbac}
            spec:
              kubernetes: {version: "1.31.4"}
            """;

    private static String web(String version) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: rbac}
                spec:
                  minimum: 2
                  maximum: 3
                  maxSurge: 1
                  maxUnavailable: 0
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                  rollout:
                    healthChecks:
                    - name: evicted-workloads-back
                      workloadsAvailable: {within: 5m}
                """.formatted(version);
    }

    private static String db(String version) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: db, cluster: rbac}
                spec:
                  minimum: 1
                  maximum: 2
                  maxSurge: 0
                  maxUnavailable: 1
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                  machineControllerManager: {maxEvictRetries: 1, onEvictionBlocked: ForceDelete}
                """.formatted(version);
    }

    @TempDir
    static Path tmp;

    private Rbac rbac;
    /** The agent's requests, in order. */
    private List<RecordedRequest> agentLog;
    private List<ApiRequest> agentRequests;
    /** How many requests the test itself made while the agent ran: proof that the filter had something to filter. */
    private long testRequests;

    @BeforeAll
    void runTheAgentThroughARollout() throws Exception {
        // The agent runs with the simulated provider here, so its overlay is what it would be deployed with.
        List<Manifests.Document> applied = Manifests.overlayRendered("simulated");
        rbac = Rbac.forAgent(applied, applied);

        Path served = Files.createDirectories(tmp.resolve("served"));
        ScheduledExecutorService cloud = Executors.newScheduledThreadPool(2);
        try (GitDaemon daemon = new GitDaemon(served);
             EmbeddedKubernetes kube = EmbeddedKubernetes.start();
             KubernetesClient agentClient = new KubernetesClientBuilder()
                     .withConfig(new ConfigBuilder(kube.config()).withUserAgent(AGENT).build()).build()) {
            GitWork work = GitWork.create(served, "specs.git", daemon.url("specs.git"), tmp.resolve("work"));
            // The simulated cloud runs inside the agent, with the agent's identity.
            SimulatedMachineProvider provider = new SimulatedMachineProvider(agentClient, cloud, Clock.systemUTC(), new Random(3),
                    p -> false, new SimulatedMachineProvider.Behaviour(Duration.ofMillis(800), Duration.ofMillis(800),
                    Duration.ofMillis(300), 0, 0));
            provider.seed("web", "web-1", Optional.empty(), Optional.empty());
            provider.seed("web", "web-2", Optional.empty(), Optional.empty());
            provider.seed("db", "db-1", Optional.empty(), Optional.empty());
            KubernetesClient test = kube.client();
            // The web pool's drains evict a Deployment's pod and a StatefulSet's: its workloadsAvailable check reads both.
            test.apps().deployments().inNamespace("shop").resource(new DeploymentBuilder().withNewMetadata().withName("web")
                    .withNamespace("shop").endMetadata().withNewSpec().withReplicas(1).endSpec().withNewStatus()
                    .withAvailableReplicas(1).endStatus().build()).create();
            test.apps().statefulSets().inNamespace("shop").resource(new StatefulSetBuilder().withNewMetadata().withName("cache")
                    .withNamespace("shop").endMetadata().withNewSpec().withReplicas(1).endSpec().withNewStatus()
                    .withReadyReplicas(1).endStatus().build()).create();
            test.pods().inNamespace("shop").resource(owned(pod("web-0", "web", "web-1"), "ReplicaSet", "web-7c9d8", "7c9d8")).create();
            test.pods().inNamespace("shop").resource(owned(pod("cache-0", "cache", "web-2"), "StatefulSet", "cache", null)).create();
            test.pods().inNamespace("shop").resource(pod("db-0", "db", "db-1")).create();
            test.policy().v1().podDisruptionBudget().inNamespace("shop").resource(new PodDisruptionBudgetBuilder()
                    .withNewMetadata().withName("db-pdb").withNamespace("shop").endMetadata().withNewSpec()
                    .withMaxUnavailable(new IntOrString(0)).withNewSelector().addToMatchLabels("app", "db").endSelector().endSpec()
                    .build()).create();
            work.write("cluster.yaml", CLUSTER);
            work.write("pools/web.yaml", web("1631.0.0"));
            work.write("pools/db.yaml", db("1631.0.0"));
            work.commitAndPush("initial");
            kube.clearRequests();

            Agent agent = startAgent(agentClient, provider, daemon);
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> adopted(test, "web", 2) && adopted(test, "db", 1)
                        && test.configMaps().inNamespace(NS).withLabel(PoolStatusRecords.LABEL).list().getItems().size() == 2);
                String webAdopted = hash(nodes(test, "web").get(0));
                String dbAdopted = hash(nodes(test, "db").get(0));
                // Another client's write to web's record (as `nightshift pause` writes its annotation) lands between the
                // agent's observation of the record and its next patch: that patch meets a 409, and the record is read.
                kube.changeBeforeNext("PATCH", RECORDS + "/" + PoolStatusRecords.name("web"), "",
                        "{\"metadata\": {\"annotations\": {\"example.com/touched\": \"yes\"}}}");

                work.write("pools/web.yaml", web("1632.0.0"));
                work.write("pools/db.yaml", db("1632.0.0"));
                work.commitAndPush("image bump");
                await().atMost(Duration.ofSeconds(120)).until(() -> replaced(test, "web", 2, webAdopted, Set.of("web-1", "web-2"))
                        && replaced(test, "db", 1, dbAdopted, Set.of("db-1")));

                work.write("pools/web.yaml", web("1632.0.0").replace("maxSurge: 1", "maxSurge: lots"));
                String broken = work.commitAndPush("broken");
                Agent first = agent;
                await().atMost(Duration.ofSeconds(30)).until(() -> first.status().contains(broken) && !first.specErrors().isEmpty()
                        && eventWrites(kube) >= 1);
            } finally {
                agent.close();
            }
            // Restarted like a pod while the head is still the invalid commit: the same Event again.
            long before = eventWrites(kube);
            agent = startAgent(agentClient, provider, daemon);
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> eventWrites(kube) > before);
            } finally {
                agent.close();
            }
            List<RecordedRequest> log = kube.requests();
            agentLog = log.stream().filter(r -> r.userAgent().equals(AGENT)).toList();
            testRequests = log.size() - agentLog.size();
            agentRequests = agentLog.stream().map(r -> ApiRequest.of(r.method(), r.path())).toList();
        } finally {
            cloud.shutdownNow();
        }
    }

    private Agent startAgent(KubernetesClient client, SimulatedMachineProvider provider, GitDaemon daemon) throws Exception {
        AgentConfig config = TestAgentConfig.of(daemon.url("specs.git"), "rbac", Files.createTempDirectory(tmp, "cache"))
                // As deployed: two replicas elect a leader, so the lease's verbs are part of what is proven.
                .with(new AgentConfig.LeaderElection(true, "nightshift-leader", Duration.ofSeconds(2), "rbac-test"));
        Agent agent = new Agent(config, client, provider, Clock.systemUTC(), r -> { });
        agent.start();
        return agent;
    }

    private static Pod pod(String name, String app, String node) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("shop").addToLabels("app", app).endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName(app).withImage(app).endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build();
    }

    /** The pod as its controller makes it: owned by {@code kind}/{@code owner}, a ReplicaSet's pod with its template hash. */
    private static Pod owned(Pod pod, String kind, String owner, String templateHash) {
        PodBuilder b = new PodBuilder(pod).editMetadata().addNewOwnerReference().withApiVersion("apps/v1").withKind(kind)
                .withName(owner).withUid(owner + "-uid").withController(true).endOwnerReference().endMetadata();
        return templateHash == null ? b.build() : b.editMetadata().addToLabels("pod-template-hash", templateHash).endMetadata().build();
    }

    private static List<Node> nodes(KubernetesClient client, String pool) {
        return client.nodes().withLabel(NodeMarks.POOL, pool).list().getItems();
    }

    private static String annotation(Node n, String key) {
        return n.getMetadata().getAnnotations() == null ? "" : n.getMetadata().getAnnotations().getOrDefault(key, "");
    }

    private static String hash(Node n) {
        return annotation(n, NodeMarks.ROLL_HASH);
    }

    /** Stamped and labelled: adoption's last write has landed. */
    private static boolean adopted(KubernetesClient client, String pool, int count) {
        List<Node> nodes = nodes(client, pool);
        return nodes.size() == count && nodes.stream().noneMatch(n -> hash(n).isEmpty() || annotation(n, NodeMarks.MANAGED_LABELS).isEmpty());
    }

    private static boolean replaced(KubernetesClient client, String pool, int count, String oldHash, Set<String> oldNodes) {
        List<Node> nodes = nodes(client, pool);
        return nodes.size() == count && nodes.stream().noneMatch(n -> hash(n).isEmpty() || hash(n).equals(oldHash)
                || oldNodes.contains(n.getMetadata().getName()));
    }

    /** The agent's accepted writes of Events in its namespace (the invalid-spec Event). */
    private static long eventWrites(EmbeddedKubernetes kube) {
        return kube.requests().stream().filter(r -> r.userAgent().equals(AGENT) && r.isWrite() && r.succeeded()
                && r.resourcePath().startsWith("/api/v1/namespaces/" + NS + "/events")).count();
    }

    private boolean used(Rbac.Grant grant) {
        return agentRequests.stream().anyMatch(grant::allows);
    }

    @Test
    void theScenarioTookEveryPathThatNeedsAPermission() {
        String events = "/api/v1/namespaces/" + NS + "/events";
        String records = "/api/v1/namespaces/" + NS + "/configmaps";
        Map<String, Predicate<RecordedRequest>> expected = new LinkedHashMap<>();
        expected.put("a watch", r -> r.path().contains("watch=true") && r.status() == 101);
        expected.put("an eviction", r -> r.resourcePath().equals("/api/v1/namespaces/shop/pods/web-0/eviction") && r.status() == 201);
        expected.put("an eviction refused by the budget",
                r -> r.resourcePath().equals("/api/v1/namespaces/shop/pods/db-0/eviction") && r.status() == 429);
        expected.put("the force-delete", r -> r.method().equals("DELETE") && r.resourcePath().equals("/api/v1/namespaces/shop/pods/db-0"));
        expected.put("a node Event", r -> r.method().equals("POST") && r.resourcePath().equals("/api/v1/namespaces/default/events"));
        expected.put("a node Event counted again (Replacing node: at the cordon, then at the machine's deletion)",
                r -> r.method().equals("PATCH") && r.resourcePath().startsWith("/api/v1/namespaces/default/events/") && r.succeeded());
        expected.put("the invalid-spec Event", r -> r.method().equals("POST") && r.resourcePath().equals(events) && r.status() == 201);
        expected.put("the invalid-spec Event again", r -> r.method().equals("POST") && r.resourcePath().equals(events)
                && r.status() == 409);
        expected.put("the invalid-spec Event counted again", r -> r.method().equals("PATCH") && r.resourcePath().startsWith(events + "/")
                && r.succeeded());
        expected.put("a status record created", r -> r.method().equals("POST") && r.resourcePath().equals(records));
        expected.put("a status record changed", r -> r.method().equals("PATCH") && r.resourcePath().startsWith(records + "/"));
        expected.put("a status record read after its patch met someone else's write (409)", r -> r.method().equals("GET")
                && r.resourcePath().equals(records + "/" + PoolStatusRecords.name("web")) && r.status() == 200);
        expected.put("the API server's version", r -> r.resourcePath().equals("/version"));
        expected.put("the evicted pod's Deployment read (workloadsAvailable)", r -> r.method().equals("GET")
                && r.resourcePath().equals("/apis/apps/v1/namespaces/shop/deployments/web") && r.status() == 200);
        expected.put("the evicted pod's StatefulSet read (workloadsAvailable)", r -> r.method().equals("GET")
                && r.resourcePath().equals("/apis/apps/v1/namespaces/shop/statefulsets/cache") && r.status() == 200);

        assertThat(testRequests).as("the test's own requests were in the log and left out").isPositive();
        assertThat(expected.entrySet().stream().filter(e -> agentLog.stream().noneMatch(e.getValue())).map(Map.Entry::getKey))
                .as("requests missing from the agent's part of the log (told apart by its User-Agent)").isEmpty();
    }

    @Test
    void everyRequestTheAgentMadeIsAllowedByTheManifests() {
        Map<String, List<Long>> denied = new TreeMap<>();
        for (int i = 0; i < agentRequests.size(); i++) {
            if (!rbac.allows(agentRequests.get(i))) {
                denied.computeIfAbsent(agentRequests.get(i).toString(), k -> new ArrayList<>()).add(agentLog.get(i).sequence());
            }
        }
        assertThat(denied).as("requests the ServiceAccount may not make (request -> sequence numbers in the log); grants: %s",
                rbac.grants()).isEmpty();
    }

    @Test
    void everyPermissionTheManifestsGrantWasUsedOrIsListedWithItsReason() {
        List<String> unused = rbac.grants().stream().filter(g -> !used(g) && !UNUSED_ON_PURPOSE.containsKey(g.key()))
                .map(Rbac.Grant::toString).toList();
        assertThat(unused).as("granted but never used by the agent: remove them, or list them in UNUSED_ON_PURPOSE with a reason")
                .isEmpty();
        Map<String, Boolean> listed = rbac.grants().stream().filter(g -> UNUSED_ON_PURPOSE.containsKey(g.key()))
                .collect(Collectors.toMap(Rbac.Grant::key, this::used, (a, b) -> a || b));
        assertThat(listed).as("every entry of UNUSED_ON_PURPOSE is granted, and still unused (else remove the entry)")
                .containsOnlyKeys(UNUSED_ON_PURPOSE.keySet()).doesNotContainValue(true);
    }

    @Test
    void noPermissionIsGrantedTwice() {
        List<Rbac.Grant> grants = rbac.grants();
        List<String> twice = new ArrayList<>();
        for (int i = 0; i < grants.size(); i++) {
            for (int j = i + 1; j < grants.size(); j++) {
                if (grants.get(i).overlaps(grants.get(j))) {
                    twice.add(grants.get(i) + " and " + grants.get(j));
                }
            }
        }
        assertThat(twice).as("a permission granted twice hides which grant is needed").isEmpty();
    }
}
