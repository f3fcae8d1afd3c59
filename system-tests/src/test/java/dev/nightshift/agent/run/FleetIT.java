package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;

/**
 * Issue 27's fleets against the real agent on the embedded cluster, judged from the API server's request log replayed
 * request by request ({@link ClusterTimeline}): pools of one role rolling at once within the cluster's budget, a held
 * pool holding only the pools after it and later roles, control-plane pools done before node pools start, and a zone
 * outage repaired no faster than the per-zone limit.
 */
class FleetIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Machines register 0.3 s after they are asked for. */
    private static final SimulatedMachineProvider.Behaviour QUICK_CLOUD = new SimulatedMachineProvider.Behaviour(
            Duration.ofMillis(300), Duration.ofMillis(300), Duration.ofMillis(300), 0, 0);

    /** Longer ago than the default healthTimeout of 10 minutes. */
    private static final Instant LONG_AGO = Instant.now().minus(Duration.ofMinutes(20));

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    private static String cluster(String concurrency) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: e2e}
                spec:
                  kubernetes: {version: "1.31.4"}
                  rollout: {concurrency: %s}
                """.formatted(concurrency);
    }

    private record Pool(String name, String role, int nodes, String limits, String after) {

        String yaml(String version) {
            return """
                    apiVersion: nightshift.dev/v1alpha1
                    kind: WorkerPool
                    metadata: {name: %s, cluster: e2e}
                    spec:
                      role: %s
                      minimum: %d
                      maximum: %d
                      %s
                      interval: 0s
                      machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                    %s""".formatted(name, role, nodes, nodes + 3, limits, version,
                    after.isEmpty() ? "" : "  rollout: {after: [" + after + "]}\n");
        }
    }

    /** Every pool seeded in the simulated cloud, the specs pushed at 1631.0.0, the agent started and every pool adopted. */
    private void start(String concurrency, List<Pool> pools) throws Exception {
        h = new AgentHarness(tmp, "e2e", pools.get(0).name(), pools.get(0).nodes(), QUICK_CLOUD);
        for (Pool p : pools.subList(1, pools.size())) {
            for (int i = 1; i <= p.nodes(); i++) {
                h.provider.seed(p.name(), p.name() + "-" + i, Optional.empty(), Optional.empty());
            }
        }
        h.work.write("cluster.yaml", cluster(concurrency));
        pools.forEach(p -> write(p, "1631.0.0"));
        h.work.commitAndPush("initial");
        h.startAgent("e2e");
        pools.forEach(p -> h.awaitAdopted(p.name(), p.nodes()));
    }

    private void write(Pool p, String version) {
        try {
            h.work.write("pools/" + p.name() + ".yaml", p.yaml(version));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Pushes every pool at 1632.0.0 in one commit; returns the sequence of the last request before it. */
    private long bump(List<Pool> pools) throws Exception {
        List<RecordedRequest> before = h.kube.requests();
        pools.forEach(p -> write(p, "1632.0.0"));
        h.work.commitAndPush("image bump");
        h.agent.pollNow();
        return before.get(before.size() - 1).sequence();
    }

    private boolean rolled(Pool p, String oldHash) {
        return h.nodes(p.name()).size() == p.nodes() && h.nodes(p.name()).stream().allMatch(n -> {
            String hash = AgentHarness.rollHash(n);
            return !hash.isEmpty() && !hash.equals(oldHash) && !Boolean.TRUE.equals(n.getSpec().getUnschedulable());
        });
    }

    private static String hash(JsonNode node) {
        return node.path("metadata").path("annotations").path(NodeMarks.ROLL_HASH).asText("");
    }

    /** The pool's nodes not Ready and schedulable at that moment, and those missing from its count. */
    private static int unavailable(ClusterTimeline.Moment m, Pool p) {
        return p.nodes() - m.readyAndSchedulableCount(p.name());
    }

    private JsonNode status(String pool) throws Exception {
        for (JsonNode p : JSON.readTree(h.http("/status")).path("pools")) {
            if (pool.equals(p.path("pool").asText())) {
                return p;
            }
        }
        throw new AssertionError("no pool " + pool + " in /status");
    }

    @Test
    void twoPoolsOfOneRollAtOnceWithinTheClustersBudget() throws Exception {
        // Each pool alone could take 2 nodes down; the cluster allows 2 of its 6 at once.
        List<Pool> pools = List.of(new Pool("a", "node", 3, "maxSurge: 0\n  maxUnavailable: 2", ""),
                new Pool("b", "node", 3, "maxSurge: 0\n  maxUnavailable: 2", ""));
        start("{pools: 2, maxUnavailableNodes: 2}", pools);
        String oldHash = AgentHarness.rollHash(h.nodes("a").get(0));

        long pushed = bump(pools);

        await().atMost(Duration.ofSeconds(40)).until(() -> pools.stream().allMatch(p -> rolled(p, oldHash)));
        ClusterTimeline timeline = ClusterTimeline.replay(List.of(), h.kube.requests()).after(pushed);
        List<String> over = new ArrayList<>();
        boolean together = false;
        for (ClusterTimeline.Moment m : timeline.moments()) {
            int a = unavailable(m, pools.get(0));
            int b = unavailable(m, pools.get(1));
            if (a + b > 2) {
                over.add(a + b + " unavailable after " + m);
            }
            together |= a > 0 && b > 0;
        }
        assertThat(over).as("moments with more than maxUnavailableNodes 2 of the cluster's nodes unavailable").isEmpty();
        assertThat(together).as("a moment at which both pools had a node out: they rolled at once").isTrue();
    }

    @Test
    void aHeldPoolHoldsOnlyThePoolsAfterItAndLaterRoles() throws Exception {
        Pool api = new Pool("api", "apiserver", 2, "maxSurge: 1\n  maxUnavailable: 0", "");
        Pool apiB = new Pool("api-b", "apiserver", 2, "maxSurge: 1\n  maxUnavailable: 0", "");
        Pool gateway = new Pool("gateway", "apiserver", 2, "maxSurge: 1\n  maxUnavailable: 0", "api");
        Pool web = new Pool("web", "node", 2, "maxSurge: 1\n  maxUnavailable: 0", "");
        List<Pool> pools = List.of(api, apiB, gateway, web);
        start("{pools: 4}", pools);
        String oldHash = AgentHarness.rollHash(h.nodes("api").get(0));
        Path kubeconfig = h.kube.writeKubeconfig(tmp.resolve("kubeconfig"));
        // Paused: one of FAILED, HALTED and paused, which the fleet's schedule holds alike (FleetScheduleTest).
        assertThat(dev.nightshift.cli.Main.commandLine().execute("pause", "--pool", "api", "--kubeconfig", kubeconfig.toString()))
                .isZero();
        await().atMost(Duration.ofSeconds(20)).until(() -> h.agent.status().contains("\"paused\" : true")
                || status("api").path("phase").asText().equals("PAUSED") || status("api").path("phase").asText().equals("CURRENT"));

        long pushed = bump(pools);

        await().atMost(Duration.ofSeconds(40)).until(() -> rolled(apiB, oldHash));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(status("api").path("phase").asText()).isEqualTo("PAUSED");
            assertThat(status("gateway").path("waitingFor").path("reason").asText()).isEqualTo("after");
            assertThat(status("gateway").path("waitingFor").path("pool").asText()).isEqualTo("api");
            assertThat(status("web").path("waitingFor").path("reason").asText()).isEqualTo("role-order");
            assertThat(status("web").path("waitingFor").path("pool").asText()).isEqualTo("api");
            assertThat(status("api-b").path("waitingFor").isNull()).isTrue();
        });
        ClusterTimeline timeline = ClusterTimeline.replay(List.of(), h.kube.requests()).after(pushed);
        for (Pool held : List.of(api, gateway, web)) {
            assertThat(timeline.moments()).as("%s untouched: its nodes all there, Ready, schedulable, at the old image", held.name())
                    .allSatisfy(m -> {
                        assertThat(m.pool(held.name())).hasSize(held.nodes());
                        assertThat(m.readyAndSchedulableCount(held.name())).isEqualTo(held.nodes());
                        assertThat(m.pool(held.name())).allSatisfy(n -> assertThat(hash(m.nodes().get(n))).isEqualTo(oldHash));
                    });
        }
    }

    @Test
    void controlPlanePoolsFinishBeforeNodePoolsStart() throws Exception {
        Pool masters = new Pool("masters", "control-plane", 2, "maxSurge: 0\n  maxUnavailable: 1", "");
        Pool web = new Pool("web", "node", 2, "maxSurge: 1\n  maxUnavailable: 0", "");
        List<Pool> pools = List.of(masters, web);
        start("{pools: 10}", pools);
        String oldHash = AgentHarness.rollHash(h.nodes("web").get(0));

        long pushed = bump(pools);

        await().atMost(Duration.ofSeconds(40)).until(() -> pools.stream().allMatch(p -> rolled(p, oldHash)));
        ClusterTimeline timeline = ClusterTimeline.replay(List.of(), h.kube.requests()).after(pushed);
        Predicate<ClusterTimeline.Moment> mastersDone = m -> m.pool("masters").size() == 2
                && m.readyAndSchedulableCount("masters") == 2 && m.pool("masters").stream().noneMatch(n -> hash(m.nodes().get(n)).equals(oldHash));
        Predicate<ClusterTimeline.Moment> webStarted = m -> m.pool("web").size() != 2 || m.readyAndSchedulableCount("web") != 2
                || m.pool("web").stream().anyMatch(n -> !hash(m.nodes().get(n)).equals(oldHash));
        ClusterTimeline.Moment done = timeline.first(mastersDone).orElseThrow();
        ClusterTimeline.Moment started = timeline.first(webStarted).orElseThrow();
        assertThat(started.request().sequence()).as("web's first change (%s) after every control-plane node was current (%s)",
                started, done).isGreaterThan(done.request().sequence());
    }

    /** Sets a node's Ready condition, as a kubelet that stopped posting would leave it. */
    private void notReadySinceLongAgo(String node) {
        NodeCondition ready = new NodeConditionBuilder().withType("Ready").withStatus("Unknown").withReason("NodeStatusUnknown")
                .withLastTransitionTime(LONG_AGO.toString()).withLastHeartbeatTime(LONG_AGO.toString()).build();
        h.kube.client().nodes().withName(node).editStatus(n -> {
            List<NodeCondition> conditions = new ArrayList<>(n.getStatus().getConditions());
            conditions.removeIf(c -> c.getType().equals("Ready"));
            conditions.add(ready);
            n.getStatus().setConditions(conditions);
            return n;
        });
    }

    @Test
    void aZoneOutageIsRepairedNoFasterThanThePerZoneLimit() throws Exception {
        // Three pools of three nodes, one in each zone: zone eu-1a's three nodes go Unknown, a third of every pool.
        // A machine not Ready within creationTimeout is judged by creation, not health: the seeded ones are seconds old.
        String limits = "maxSurge: 1\n  maxUnavailable: 1\n  machineControllerManager: {creationTimeout: 1s}";
        List<Pool> pools = List.of(new Pool("api", "node", 3, limits, ""), new Pool("db", "node", 3, limits, ""),
                new Pool("web", "node", 3, limits, ""));
        // No cluster budget: only the outage rule limits the zone's repairs (with "50%" its share, 4 × 3/9, would be 1 too).
        start("{pools: 3}", pools);
        List<String> zoneA = new ArrayList<>();
        for (Pool p : pools) {
            for (int i = 1; i <= 3; i++) {
                String node = p.name() + "-" + i;
                String zone = "eu-1" + "abc".charAt(i - 1);
                h.kube.client().nodes().withName(node).edit(n -> {
                    n.getMetadata().getLabels().put("topology.kubernetes.io/zone", zone);
                    return n;
                });
                if (i == 1) {
                    zoneA.add(node);
                }
            }
        }
        long before = h.kube.requests().get(h.kube.requests().size() - 1).sequence();

        zoneA.forEach(this::notReadySinceLongAgo);

        await().atMost(Duration.ofSeconds(40)).until(() -> zoneA.stream().allMatch(n -> h.kube.client().nodes().withName(n).get() == null));
        ClusterTimeline timeline = ClusterTimeline.replay(List.of(), h.kube.requests()).after(before);
        int most = 0;
        for (ClusterTimeline.Moment m : timeline.moments()) {
            most = Math.max(most, (int) zoneA.stream().filter(m::unschedulable).count());
        }
        // 3 of 3 of the zone's nodes failing is an outage: one repair at a time there, though each pool (maxUnavailable 1)
        // would allow three at once.
        assertThat(most).as("zone eu-1a's nodes under repair at once").isEqualTo(1);
        await("every pool back to its 3 nodes").atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(pools).allSatisfy(p -> assertThat(h.nodes(p.name())).as(p.name()).hasSize(3)));
    }

}
