package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.agent.report.RevisionHistory;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import dev.nightshift.sandbox.machineapi.MachineLog;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;

/**
 * Issue 26's rollout in waves, end to end: a real Prometheus scrapes an exporter the test controls, and the agent
 * judges each wave by a check on it. A failing canary halts the pool with no second node touched; healthy waves
 * each start at least {@code soak} after the previous one became available (judged from the API server's request
 * log); Prometheus stopped mid-rollout starts nothing new, then halts after the soak; machines that never register
 * halt the pool after {@code maxFailedMachines}, no more created; a rollback says so in an Event of its own; the
 * workloads a halted pool's drains evicted survive an agent restart and still hold the pool after a resume.
 */
// The tests without Prometheus run first, while the class's Prometheus waits for its first sample; the one that stops
// it runs last, so that no test after it waits for a new one (about 6 s).
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WavesIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String METRIC = "nightshift_test_error_ratio";

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
            """;

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;
    /** The commits {@link #start} pushed: the pool adopted, then the image bump. */
    private String initialCommit;
    private String bumpCommit;

    /** The error ratio the exporter serves, and the one Prometheus of the class scraping it. */
    @RegisterExtension
    static final ScrapedGauge ERROR_RATIO = new ScrapedGauge(METRIC);

    /**
     * Pool web of {@code nodes}, one node at a time (no surge), at {@code version}, rolled as {@code rollout} says. At the
     * first image a long creationTimeout: the machine API's seeded machines were made before the agent started, and one
     * whose node it has not labelled yet must not pass for a machine that never came up. At the bump, 2 s.
     */
    private static String pool(int nodes, String version, String rollout) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: e2e}
                spec:
                  minimum: %d
                  maximum: %d
                  maxSurge: 0
                  maxUnavailable: 1
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                  machineControllerManager: {creationTimeout: %s}
                  rollout:
                %s
                """.formatted(nodes, nodes + 2, version, version.equals("1631.0.0") ? "10m" : "2s", rollout.indent(4).stripTrailing());
    }

    private static String checked(String waves, String soak) {
        return """
                waves: %s
                soak: %s
                healthChecks:
                - name: error-rate
                  prometheus: {query: '%s', max: 0.01}""".formatted(waves, soak, METRIC);
    }

    /** The agent asking the class's Prometheus, which scrapes the exporter the test controls (at 0 to begin with). */
    private List<Node> startWithPrometheus(int nodes, String rollout) throws Exception {
        URI prometheus = ERROR_RATIO.prometheus().url();
        return start(nodes, rollout, AgentHarness.CLOUD, RolloutBackend.SIMULATED,
                c -> c.with(c.health().withPrometheusUrl(prometheus)));
    }

    /** Pool web adopted at 1631.0.0, then the image bump pushed; the nodes before the bump. */
    private List<Node> start(int nodes, String rollout, SimulatedMachineProvider.Behaviour cloud, RolloutBackend backend,
                             java.util.function.UnaryOperator<AgentConfig> config) throws Exception {
        return start(nodes, rollout, cloud, backend, config, harness -> { });
    }

    /** As above, with {@code beforeBump} done to the world once the pool is adopted and before the bump is pushed. */
    private List<Node> start(int nodes, String rollout, SimulatedMachineProvider.Behaviour cloud, RolloutBackend backend,
                             java.util.function.UnaryOperator<AgentConfig> config, java.util.function.Consumer<AgentHarness> beforeBump)
            throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", nodes, backend, cloud);
        h.work.write("cluster.yaml", CLUSTER);
        h.work.write("pools/web.yaml", pool(nodes, "1631.0.0", rollout));
        initialCommit = h.work.commitAndPush("initial");
        h.startAgent("e2e", config);
        h.awaitAdopted("web", nodes);
        List<Node> before = h.nodes("web");
        beforeBump.accept(h);
        h.kube.clearRequests();
        h.work.write("pools/web.yaml", pool(nodes, "1632.0.0", rollout));
        bumpCommit = h.work.commitAndPush("image bump");
        return before;
    }

    private JsonNode web() throws Exception {
        for (JsonNode pool : JSON.readTree(h.http("/status")).path("pools")) {
            if (pool.path("pool").asText().equals("web")) {
                return pool;
            }
        }
        return JSON.createObjectNode();
    }

    /** The pool's nodes that were not there before the bump and are Ready. */
    private List<String> newReadyNodes(List<Node> before) {
        Set<String> old = names(before);
        return h.nodes("web").stream().filter(n -> !old.contains(n.getMetadata().getName()) && ready(n))
                .map(n -> n.getMetadata().getName()).sorted().toList();
    }

    private static boolean ready(Node n) {
        return n.getStatus() != null && n.getStatus().getConditions() != null && n.getStatus().getConditions().stream()
                .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
    }

    private static Set<String> names(List<Node> nodes) {
        return nodes.stream().map(n -> n.getMetadata().getName()).collect(Collectors.toSet());
    }

    /** The nodes of {@code before} that were ever cordoned or deleted, by the request log. */
    private List<String> touched(List<Node> before) {
        ClusterTimeline timeline = ClusterTimeline.replay(before, h.kube.requests());
        return before.stream().map(n -> n.getMetadata().getName())
                .filter(name -> timeline.first(m -> m.unschedulable(name) || !m.exists(name)).isPresent()).sorted().toList();
    }

    private JsonNode awaitHalted(Duration within) {
        return await("pool web HALTED").atMost(within).pollInterval(Duration.ofMillis(200))
                .until(this::web, p -> p.path("phase").asText().equals("HALTED"));
    }

    @Test
    void aCanaryThatRaisesTheErrorRatioHaltsThePoolAndNoSecondNodeIsTouched() throws Exception {
        List<Node> before = startWithPrometheus(3, checked("[1, \"100%\"]", "5s"));

        await("the canary at the new image Ready").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> newReadyNodes(before).size() == 1);
        ERROR_RATIO.set(0.07);

        JsonNode pool = awaitHalted(Duration.ofSeconds(20));
        assertThat(pool.path("healthFailure").path("check").asText()).isEqualTo("error-rate");
        assertThat(pool.path("healthFailure").path("value").asText()).isEqualTo("0.07");
        assertThat(pool.path("healthFailure").path("threshold").asText()).isEqualTo("<= 0.01");
        assertThat(pool.path("healthFailure").path("wave").asInt()).isEqualTo(1);
        // Past the end of the canary's soak: the second wave never starts.
        Thread.sleep(6_000);
        assertThat(touched(before)).as("old nodes cordoned or deleted").hasSize(1);
        assertThat(web().path("phase").asText()).isEqualTo("HALTED");
        assertThat(new Scrape(h.http("/metrics")).valueOrZero("nightshift_pool_halted", Map.of("pool", "web"))).isEqualTo(1.0);
        // The pool's history (nightshift history): the initial revision current, the bump halted, with why.
        RevisionHistory history = RevisionHistory.read(h.kube.client().configMaps().inNamespace(Agent.NAMESPACE)
                .withName(PoolStatusRecords.name("web")).get().getData().get(PoolStatusRecords.HISTORY));
        assertThat(history.entries()).extracting(RevisionHistory.Entry::outcome)
                .containsExactly(RevisionHistory.Outcome.CURRENT, RevisionHistory.Outcome.HALTED);
        assertThat(history.entries().get(1).note()).isEqualTo("error-rate (0.07, must be <= 0.01) in wave 1");
        assertThat(h.kube.client().v1().events().inNamespace(Agent.NAMESPACE).list().getItems())
                .anySatisfy(e -> assertThat(e.getReason() + " " + e.getMessage()).startsWith("RolloutHalted Pool web halted")
                        .contains("error-rate (0.07, must be <= 0.01)"));
    }

    @Test
    void withRollbackAFailingCanaryIsBroughtBackAndTheFailedRevisionRefusedUntilTheSpecChanges() throws Exception {
        List<Node> before = startWithPrometheus(3, checked("[1, \"100%\"]", "5s") + "\nonFailure: Rollback");
        String good = AgentHarness.rollHash(before.get(0));

        await("the canary at the new image Ready").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> newReadyNodes(before).size() == 1);
        ERROR_RATIO.set(0.07);

        // The canary is replaced again, at the revision the pool was current and healthy at; the rest never moved.
        await("every node back at the first revision").atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200))
                .until(() -> h.nodes("web").size() == 3 && h.nodes("web").stream().allMatch(n -> AgentHarness.rollHash(n).equals(good)
                        && ready(n) && !Boolean.TRUE.equals(n.getSpec().getUnschedulable())) && web().path("outdated").asInt() == 0);
        assertThat(touched(before)).as("old nodes cordoned or deleted").hasSize(1);
        JsonNode status = JSON.readTree(h.http("/status"));
        assertThat(status.path("rejectedChanges").toString()).contains("web: held at ", " refused: canary failed error-rate (0.07, must be <= 0.01) in wave 1");
        assertThat(h.kube.client().configMaps().inNamespace(Agent.NAMESPACE).withName(PoolStatusRecords.name("web")).get().getData())
                .containsKey(PoolStatusRecords.REFUSED);
        // One Event of its own, beside the halt's: the revision refused and the one the pool went back to.
        assertThat(h.kube.client().v1().events().inNamespace(Agent.NAMESPACE).list().getItems())
                .filteredOn(e -> e.getReason().equals("RolledBack")).singleElement().satisfies(e -> {
                    assertThat(e.getType()).isEqualTo("Warning");
                    assertThat(e.getMessage()).isEqualTo("Pool web rolled back to " + initialCommit.substring(0, 7) + ": "
                            + bumpCommit.substring(0, 7) + " refused: canary failed error-rate (0.07, must be <= 0.01) in wave 1;"
                            + " revert or fix it in Git (a commit that changes the pool's spec lifts the refusal)");
                    assertThat(e.getCount()).as("told once").isEqualTo(1);
                });

        // A commit that offers the failed revision again (another file changed) leaves the pool where it is.
        h.work.write("notes.txt", "unrelated\n");
        String again = h.work.commitAndPush("unrelated change");
        await("the agent took the new commit").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> JSON.readTree(h.http("/status")).path("revision").asText().equals(again));
        Thread.sleep(2_000);
        assertThat(h.nodes("web")).allSatisfy(n -> assertThat(AgentHarness.rollHash(n)).isEqualTo(good));
    }

    @Test
    void healthyWavesEachStartAtLeastTheSoakAfterThePreviousWaveBecameAvailable() throws Exception {
        Duration soak = Duration.ofSeconds(3);
        List<Node> before = startWithPrometheus(4, checked("[1, \"50%\", \"100%\"]", "3s"));

        await("every node replaced").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> newReadyNodes(before).size() == 4 && h.nodes("web").size() == 4 && web().path("outdated").asInt() == 0);

        ClusterTimeline timeline = ClusterTimeline.replay(before, h.kube.requests());
        Set<String> old = names(before);
        // When each old node was first cordoned, in order; when each new node was first Ready, in order.
        List<Instant> cordons = before.stream().map(n -> n.getMetadata().getName())
                .map(name -> timeline.first(m -> m.unschedulable(name) || !m.exists(name)).orElseThrow().request().time())
                .sorted().toList();
        List<Instant> readies = new ArrayList<>();
        for (ClusterTimeline.Moment m : timeline.moments()) {
            long ready = m.pool("web").stream().filter(n -> !old.contains(n) && m.ready(n)).count();
            while (readies.size() < ready) {
                readies.add(m.request().time());
            }
        }
        assertThat(readies).hasSize(4);
        // Waves of 4 nodes: 1, then up to 2 (50%), then 4. Wave 2's first cordon comes a soak after the canary was
        // Ready; wave 3's a soak after the second new node was Ready.
        assertThat(Duration.between(readies.get(0), cordons.get(1))).as("wave 2 after wave 1 soaked").isGreaterThanOrEqualTo(soak);
        assertThat(Duration.between(readies.get(1), cordons.get(2))).as("wave 3 after wave 2 soaked").isGreaterThanOrEqualTo(soak);
        assertThat(web().path("healthFailure").isNull()).isTrue();
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void prometheusStoppedMidRolloutStartsNothingNewThenHaltsAfterTheSoak() throws Exception {
        Duration soak = Duration.ofSeconds(5);
        List<Node> before = startWithPrometheus(3, checked("[1, \"100%\"]", "5s"));

        await("the canary at the new image Ready").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> newReadyNodes(before).size() == 1);
        Instant stopped = Instant.now();
        ERROR_RATIO.stop();

        JsonNode pool = awaitHalted(Duration.ofSeconds(30));
        assertThat(pool.path("healthFailure").path("value").asText()).isEqualTo("unknown");
        assertThat(pool.path("healthFailure").path("threshold").asText()).contains("unreachable");
        // The soak counts from the canary's Ready, which the test sees up to one poll (100 ms) before it stops Prometheus:
        // the halt comes a soak after that (CI once measured 4.993 s from the stop).
        assertThat(Duration.between(stopped, Instant.parse(pool.path("healthFailure").path("at").asText())))
                .isGreaterThanOrEqualTo(soak.minusMillis(200));
        assertThat(touched(before)).as("old nodes cordoned or deleted").hasSize(1);
    }

    /**
     * Deployment shop in namespace shop with a pod on each of web's nodes, two of three available: a pod that a drain
     * evicts never comes back (no controller runs here), so the check following it fails once its time is up.
     */
    private static void shopOnEveryNode(AgentHarness harness) {
        harness.kube.client().apps().deployments().inNamespace("shop").resource(new DeploymentBuilder().withNewMetadata()
                .withName("shop").withNamespace("shop").endMetadata().withNewSpec().withReplicas(3).endSpec()
                .withNewStatus().withAvailableReplicas(2).endStatus().build()).create();
        for (Node n : harness.nodes("web")) {
            harness.kube.client().pods().inNamespace("shop").resource(new PodBuilder().withNewMetadata()
                    .withName("shop-7c9d8-" + n.getMetadata().getName()).withNamespace("shop").addToLabels("pod-template-hash", "7c9d8")
                    .addNewOwnerReference().withApiVersion("apps/v1").withKind("ReplicaSet").withName("shop-7c9d8").withUid("rs-uid")
                    .withController(true).endOwnerReference().endMetadata()
                    .withNewSpec().withNodeName(n.getMetadata().getName()).addNewContainer().withName("shop").withImage("shop")
                    .endContainer().endSpec().withNewStatus().withPhase("Running").endStatus().build()).create();
        }
    }

    @Test
    void theWorkloadsAHaltedPoolEvictedSurviveARestartAndStillHoldItAfterAResume() throws Exception {
        List<Node> before = start(3, """
                waves: [1, "100%"]
                soak: 5s
                healthChecks:
                - name: evicted-workloads-back
                  workloadsAvailable: {within: 2s}""", AgentHarness.CLOUD, RolloutBackend.SIMULATED, c -> c, WavesIT::shopOnEveryNode);

        JsonNode halted = awaitHalted(Duration.ofSeconds(30));
        assertThat(halted.path("healthFailure").path("check").asText()).isEqualTo("evicted-workloads-back");
        assertThat(halted.path("healthFailure").path("value").asText()).startsWith("shop/Deployment/shop 2/3 available after ");
        JsonNode followed = halted.path("evictedWorkloads");
        assertThat(followed).hasSize(1);
        assertThat(followed.get(0).path("name").asText()).isEqualTo("shop");
        assertThat(h.kube.client().configMaps().inNamespace(Agent.NAMESPACE).withName(PoolStatusRecords.name("web")).get().getData())
                .containsKey(PoolStatusRecords.EVICTED_WORKLOADS);

        // A new agent, with no memory but the records: it shows the same workload, evicted at the same moment.
        h.stopAgent();
        h.startAgent("e2e", c -> c);
        JsonNode restarted = await("the restarted agent reports web").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(this::web, p -> p.path("phase").asText().equals("HALTED"));
        assertThat(restarted.path("evictedWorkloads")).isEqualTo(followed);

        // Resumed: the wave soaks again and the check judges again what the last agent followed, so the pool halts again.
        Instant firstHalt = Instant.parse(halted.path("healthFailure").path("at").asText());
        assertThat(dev.nightshift.cli.Main.commandLine().execute("resume", "web", "--kubeconfig",
                h.kube.writeKubeconfig(tmp.resolve("kubeconfig")).toString())).isZero();
        JsonNode again = await("web halted again after the resume").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(this::web, p -> p.path("phase").asText().equals("HALTED")
                        && Instant.parse(p.path("healthFailure").path("at").asText()).isAfter(firstHalt));
        assertThat(again.path("healthFailure").path("check").asText()).isEqualTo("evicted-workloads-back");
        assertThat(touched(before)).as("old nodes cordoned or deleted").hasSize(1);
    }

    private static String maxFailed() {
        return "maxFailedMachines: 3";
    }

    /** Every new machine never registers: a surge of one at a time. */
    private static final SimulatedMachineProvider.Behaviour NEVER_REGISTERS = new SimulatedMachineProvider.Behaviour(
            Duration.ofMillis(300), Duration.ofMillis(300), Duration.ofMillis(300), 1.0, 0);

    @Test
    @Order(1)
    void machinesThatNeverRegisterHaltThePoolAfterMaxFailedMachinesOnTheSimulatedCloud() throws Exception {
        Set<String> old = names(start(2, maxFailed(), NEVER_REGISTERS, RolloutBackend.SIMULATED, c -> c));

        JsonNode pool = awaitHalted(Duration.ofSeconds(40));
        assertThat(pool.path("healthFailure").path("check").asText()).isEqualTo("maxFailedMachines");
        // More than a creation timeout later: none created after the halt.
        Thread.sleep(3_000);
        // Machines made since the bump: those withdrawn unregistered, and the new ones still there.
        long present = h.provider.machines("web").stream().filter(m -> !old.contains(m.name())).count();
        assertThat(h.machineRequests.withdrawn().size() + present).as("machines created").isEqualTo(3);
    }

    @Test
    @Order(1)
    void machinesThatNeverRegisterHaltThePoolAfterMaxFailedMachinesThroughTheMachineApi() throws Exception {
        start(2, maxFailed(), NEVER_REGISTERS, RolloutBackend.HTTP, c -> c);

        JsonNode pool = awaitHalted(Duration.ofSeconds(40));
        assertThat(pool.path("healthFailure").path("check").asText()).isEqualTo("maxFailedMachines");
        Thread.sleep(3_000);
        assertThat(h.machineLog.entries().stream().filter(e -> e.event() == MachineLog.Event.CREATED).count()).isEqualTo(3);
    }
}
