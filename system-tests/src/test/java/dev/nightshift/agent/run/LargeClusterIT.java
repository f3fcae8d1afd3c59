package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * The agent in a cluster of 520 nodes in four pools and 10,400 pods, made through the API as a cluster's own
 * controllers would: what the cluster saw of it at start, under churn that cannot change a plan, and during a drain.
 * The structural properties that let it run at 5,000 nodes and 100,000 pods, at a size the suite affords. The tests
 * share one cluster and agent and run in order: the last one rolls a pool.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LargeClusterIT {

    private static final List<String> POOLS = List.of("web", "api", "batch", "cache");
    private static final int NODES_PER_POOL = 130;
    private static final int PODS_PER_NODE = 20;
    /** The agent's informers' page size: more nodes than this, so that the nodes' first list is paged too. */
    private static final int PAGE = 500;
    private static final Duration IDLE_RESYNC = Duration.ofSeconds(30);

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
            """;

    private AgentHarness h;
    /** What the cluster saw from the agent's start until every pool was adopted. */
    private List<RecordedRequest> start;
    /** Each pod's node, as created. */
    private final Map<String, String> podNodes = new ConcurrentHashMap<>();

    private static String pool(String name, String version) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: %s, cluster: e2e}
                spec:
                  minimum: %d
                  maximum: %d
                  maxSurge: 1
                  maxUnavailable: 1
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(name, NODES_PER_POOL, NODES_PER_POOL + 1, version);
    }

    @BeforeAll
    void aLargeClusterWithTheAgentRunning(@TempDir Path tmp) throws Exception {
        h = new AgentHarness(tmp, "e2e", POOLS.get(0), NODES_PER_POOL);
        for (String pool : POOLS.subList(1, POOLS.size())) {
            for (int i = 1; i <= NODES_PER_POOL; i++) {
                h.provider.seed(pool, pool + "-" + i, Optional.empty(), Optional.empty());
            }
        }
        createPods(h.kube.client());
        h.work.write("cluster.yaml", CLUSTER);
        for (String pool : POOLS) {
            h.work.write("pools/" + pool + ".yaml", pool(pool, "1631.0.0"));
        }
        h.work.commitAndPush("initial");
        h.kube.clearRequests();

        h.startAgent("e2e");
        for (String pool : POOLS) {
            h.awaitAdopted(pool, NODES_PER_POOL);
            h.awaitPoolRecord(pool);
        }
        start = agentRequests();
    }

    /** 20 pods a node in ten namespaces, two of them a DaemonSet's, as a cluster's controllers would have made them. */
    private void createPods(KubernetesClient client) throws Exception {
        ExecutorService creators = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> created = new ArrayList<>();
            for (String pool : POOLS) {
                for (int i = 1; i <= NODES_PER_POOL; i++) {
                    String node = pool + "-" + i;
                    created.add(creators.submit(() -> {
                        for (int j = 0; j < PODS_PER_NODE; j++) {
                            Pod pod = pod(node, j);
                            client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
                            podNodes.put(pod.getMetadata().getName(), node);
                        }
                    }));
                }
            }
            for (Future<?> f : created) {
                f.get();
            }
        } finally {
            creators.shutdownNow();
        }
    }

    private static Pod pod(String node, int j) {
        PodBuilder pod = new PodBuilder().withNewMetadata().withName(node + "-pod-" + j).withNamespace("team-" + (j % 10))
                .addToLabels("app", "app-" + (j % 10)).endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("app").withImage("registry.example/app:1.0")
                .endContainer().endSpec()
                .withNewStatus().withPhase("Running").addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus();
        if (j < 2) {
            pod.editMetadata().addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName("node-agent-" + j)
                    .withUid("ds-" + j).withController(true).endOwnerReference().endMetadata();
        }
        return pod.build();
    }

    @AfterAll
    void stop() {
        if (h != null) {
            h.close();
        }
    }

    private List<RecordedRequest> agentRequests() {
        return h.kube.requests().stream().filter(r -> r.userAgent().equals(AgentHarness.AGENT)).toList();
    }

    @Test
    @Order(1)
    void theFirstListsOfPodsAndNodesComeInPages() {
        List<RecordedRequest> podLists = start.stream().filter(r -> SeenRequests.isList(r) && r.resourcePath().equals("/api/v1/pods"))
                .toList();
        List<RecordedRequest> nodeLists = start.stream().filter(r -> SeenRequests.isList(r) && r.resourcePath().equals("/api/v1/nodes")
                && r.query().contains("labelSelector=" + NodeMarks.POOL.replace("/", "%2F"))).toList();

        int pods = POOLS.size() * NODES_PER_POOL * PODS_PER_NODE;
        assertThat(podLists).as("the agent's LISTs of all pods").hasSize((pods + PAGE - 1) / PAGE)
                .allSatisfy(r -> assertThat(r.query()).contains("limit=" + PAGE))
                .allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
        assertThat(podLists.subList(1, podLists.size())).as("every page after the first continues the list")
                .allSatisfy(r -> assertThat(r.query()).contains("continue="));
        assertThat(nodeLists).as("the agent's LISTs of the pools' nodes").hasSize(2)
                .allSatisfy(r -> assertThat(r.query()).contains("limit=" + PAGE));
        assertThat(nodeLists.get(1).query()).contains("continue=");
    }

    @Test
    @Order(2)
    void podChurnAndHeartbeatsOnNodesNotInFlightCauseNoReconcile() throws Exception {
        // Right after a reconcile the agent's next timed one is IDLE_RESYNC away: any other comes from the churn.
        h.idleThroughReconciles("cache-1", 1);
        Instant begin = Instant.now();
        double reconciles = h.reconciles();
        Scrape before = new Scrape(h.http("/metrics"));

        churn(50, 50, "a");
        await().atMost(Duration.ofSeconds(30)).until(() -> seen(new Scrape(h.http("/metrics")), "pod") >= seen(before, "pod") + 50
                && seen(new Scrape(h.http("/metrics")), "node") >= seen(before, "node") + 50);

        long timed = Duration.between(begin, Instant.now()).plusSeconds(1).toMillis() / IDLE_RESYNC.toMillis();
        assertThat(h.reconciles() - reconciles).as("reconciles during the churn, beyond the %d timed ones", timed)
                .isLessThanOrEqualTo(timed);
        Scrape after = new Scrape(h.http("/metrics"));
        assertThat(events(after, "pod", "reconcile")).as("pod events that asked for a reconcile")
                .isEqualTo(events(before, "pod", "reconcile"));
        assertThat(events(after, "node", "reconcile")).as("node events that asked for a reconcile")
                .isEqualTo(events(before, "node", "reconcile"));
    }

    @Test
    @Order(3)
    void aLabelChangeOnANodeCausesAReconcile() throws Exception {
        double reconciles = h.reconciles();
        double asked = events(new Scrape(h.http("/metrics")), "node", "reconcile");

        h.kube.client().nodes().withName("cache-2").edit(n -> {
            n.getMetadata().getLabels().put("example.com/rack", "r7");
            return n;
        });

        await().atMost(Duration.ofSeconds(20)).until(() -> h.reconciles() > reconciles);
        assertThat(events(new Scrape(h.http("/metrics")), "node", "reconcile")).isGreaterThan(asked);
    }

    @Test
    @Order(4)
    void inSteadyStateTheAgentListsNothing() throws Exception {
        h.kube.clearRequests();

        churn(50, 50, "b");
        // Reconciles happen in steady state too; they read the caches.
        h.idleThroughReconciles("cache-3", 3);

        assertThat(h.kube.requests()).as("the log holds the churn: it saw the window").anyMatch(r -> r.method().equals("PATCH")
                && r.resourcePath().equals("/api/v1/namespaces/team-5/pods/batch-50-pod-5"));
        assertThat(agentRequests()).as("the agent's requests in steady state").noneMatch(SeenRequests::isList)
                .noneMatch(r -> r.method().equals("GET") && r.resourcePath().contains("/pods"));
    }

    @Test
    @Order(5)
    void aDrainReadsNoPodsFromTheApiAndEvictsOnlyItsNodesPods() throws Exception {
        h.kube.clearRequests();
        h.work.write("pools/api.yaml", pool("api", "1632.0.0"));
        h.work.commitAndPush("image bump for api");

        // The first node drained: its pods evicted, the drain seen done (the pods' deletions asked for a reconcile) and
        // the node's machine deleted.
        await().atMost(Duration.ofSeconds(60)).until(() -> drainedAndDeleted().isPresent());
        String drained = drainedAndDeleted().orElseThrow();

        List<RecordedRequest> podRequests = agentRequests().stream().filter(r -> r.resourcePath().contains("/pods")).toList();
        assertThat(podRequests).as("the agent's requests on pods during the rollout: evictions only").isNotEmpty()
                .allSatisfy(r -> assertThat(r.method()).isEqualTo("POST"))
                .allSatisfy(r -> assertThat(r.resourcePath()).endsWith("/eviction"));
        List<String> evicted = podRequests.stream().map(r -> r.resourcePath().split("/")[6]).toList();
        assertThat(evicted).as("pods evicted: those of the nodes drained").allSatisfy(p -> assertThat(podNodes.get(p)).startsWith("api-"))
                .containsAll(podNodes.entrySet().stream().filter(e -> e.getValue().equals(drained))
                        .map(Map.Entry::getKey).filter(p -> !p.endsWith("-pod-0") && !p.endsWith("-pod-1")).toList())
                .noneMatch(p -> p.endsWith("-pod-0") || p.endsWith("-pod-1"));
        assertThat(agentRequests()).as("LISTs by the agent during the rollout").noneMatch(SeenRequests::isList);
    }

    /** A node of pool api whose pods the agent evicted and that is gone since. */
    private Optional<String> drainedAndDeleted() {
        List<String> present = h.nodes("api").stream().map(n -> n.getMetadata().getName()).toList();
        return agentRequests().stream().filter(r -> r.method().equals("POST") && r.resourcePath().endsWith("/eviction"))
                .map(r -> podNodes.get(r.resourcePath().split("/")[6])).filter(n -> n != null && !present.contains(n)).findFirst();
    }

    /**
     * Churn that cannot change a plan: {@code pods} pods of pool batch get a new label (one per node), and {@code nodes}
     * nodes of pool web post a kubelet heartbeat (only Ready's {@code lastHeartbeatTime} moves on).
     */
    private void churn(int pods, int nodes, String round) {
        KubernetesClient client = h.kube.client();
        for (int i = 1; i <= pods; i++) {
            String node = "batch-" + i;
            client.pods().inNamespace("team-5").withName(node + "-pod-5").patch(PatchContext.of(PatchType.JSON_MERGE),
                    "{\"metadata\":{\"labels\":{\"churn\":\"" + round + i + "\"}}}");
        }
        for (int i = 1; i <= nodes; i++) {
            String heartbeat = Instant.now().toString();
            client.nodes().withName("web-" + i).edit(n -> {
                n.getStatus().getConditions().forEach(c -> c.setLastHeartbeatTime(heartbeat));
                return n;
            });
        }
        assertThat(annotation(client.nodes().withName("web-1").get(), NodeMarks.DRAIN_STARTED_AT)).as("not in flight").isEmpty();
    }

    private static double events(Scrape scrape, String kind, String effect) {
        return scrape.valueOrZero("nightshift_watch_events_total", Map.of("kind", kind, "effect", effect));
    }

    private static double seen(Scrape scrape, String kind) {
        return events(scrape, kind, "reconcile") + events(scrape, kind, "ignored");
    }
}
