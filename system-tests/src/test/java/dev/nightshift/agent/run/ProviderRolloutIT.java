package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.run.RolloutInvariants.Limits;
import dev.nightshift.agent.run.RolloutInvariants.Start;
import dev.nightshift.sandbox.demo.DemoWorkloads;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.sandbox.machineapi.MachineLog;
import io.fabric8.kubernetes.api.model.Node;

/**
 * The agent's rollout scenarios, each run with the simulated cloud and with the {@code cluster-api} provider against
 * the embedded Cluster API: a pool of three nodes, each running a pod of an application whose budget allows one
 * disruption at a time (evicted pods start again on another node), rolled to a new image. Every scenario ends with
 * the guarantees checked from the embedded API server's request log ({@link RolloutInvariants}) and the end state:
 * every node (and Machine) at the new spec and, with Cluster API, no template of Nightshift's left unused.
 */
class ProviderRolloutIT {

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    private static final String POOL = "web";
    private static final int NODES = 3;
    /** A new machine is a Ready node this long after it is asked for. */
    private static final Duration MACHINE = Duration.ofMillis(400);
    private static final Duration ROLLOUT = Duration.ofSeconds(90);

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
            """;

    private static String pool(String version, int maxSurge, int maxUnavailable) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: e2e}
                spec:
                  minimum: %d
                  maximum: %d
                  maxSurge: %d
                  maxUnavailable: %d
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(NODES, NODES + 3, maxSurge, maxUnavailable, version);
    }

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    @AutoClose
    private DemoWorkloads workloads;

    /** The pool adopted at 1631.0.0 with its workload; the request log cleared and the cluster read. */
    private Start adopted(RolloutBackend backend, String poolSpec) throws Exception {
        return adopted(backend, poolSpec, CLUSTER, MACHINE);
    }

    private Start adopted(RolloutBackend backend, String poolSpec, String clusterSpec, Duration machineDelay) throws Exception {
        h = new AgentHarness(tmp, "e2e", POOL, NODES, backend, machineDelay);
        h.work.write("cluster.yaml", clusterSpec);
        h.work.write("pools/web.yaml", poolSpec);
        h.work.commitAndPush("initial");
        h.startAgent("e2e");
        h.awaitAdopted(POOL, NODES);
        workloads = new DemoWorkloads(h.kube.client());
        workloads.deploy(POOL, "app", h.nodes(POOL).stream().map(n -> n.getMetadata().getName()).sorted().toList(), 1);
        workloads.startRescheduling();
        return RolloutInvariants.clearAndSnapshot(h, POOL);
    }

    private void push(String poolSpec, String message) throws Exception {
        h.work.write("pools/web.yaml", poolSpec);
        h.work.commitAndPush(message);
        h.agent.pollNow();
    }

    /** Waits for the end state, then checks the request log and, with Cluster API, the templates; returns the final roll hash. */
    private String rolledOutWithin(Limits limits, Start start) {
        AtomicReference<String> hash = new AtomicReference<>();
        try {
            await("the rollout's end").atMost(ROLLOUT).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> hash.set(RolloutInvariants.assertRolledOut(h, POOL, limits, start)));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "\nthe agent's /status: " + h.agent.status() + "\nthe writes:"
                    + RolloutInvariants.writes(h.kube.requests()), e);
        }
        RolloutInvariants.assertHeld(h, POOL, limits, start);
        if (h.backend == RolloutBackend.CLUSTER_API) {
            await("no template of Nightshift's left unused").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> RolloutInvariants.assertNoUnusedTemplate(h, POOL, start));
        }
        return hash.get();
    }

    @ParameterizedTest
    @EnumSource(RolloutBackend.class)
    void anImageBumpWithSurgeReplacesEveryNodeWithinTheLimits(RolloutBackend backend) throws Exception {
        Limits limits = new Limits(NODES, 1, 0);
        Start start = adopted(backend, pool("1631.0.0", 1, 0));

        push(pool("1632.0.0", 1, 0), "image bump");

        rolledOutWithin(limits, start);
        assertThat(h.nodes(POOL)).extracting(n -> n.getMetadata().getName()).as("every old node replaced")
                .doesNotContainAnyElementsOf(names(start.nodes()));
    }

    @ParameterizedTest
    @EnumSource(RolloutBackend.class)
    void anImageBumpWithoutSurgeReplacesEveryNodeOneAtATime(RolloutBackend backend) throws Exception {
        Limits limits = new Limits(NODES, 0, 1);
        Start start = adopted(backend, pool("1631.0.0", 0, 1));

        push(pool("1632.0.0", 0, 1), "image bump");

        rolledOutWithin(limits, start);
        assertThat(h.nodes(POOL)).extracting(n -> n.getMetadata().getName()).doesNotContainAnyElementsOf(names(start.nodes()));
    }

    @ParameterizedTest
    @EnumSource(RolloutBackend.class)
    void theCanaryIsAvailableBeforeASecondOldNodeIsDisrupted(RolloutBackend backend) throws Exception {
        // Wide limits: after the canary, two surge machines and one node down at a time.
        Limits limits = new Limits(NODES, 2, 1);
        Start start = adopted(backend, pool("1631.0.0", 2, 1));

        push(pool("1632.0.0", 2, 1), "image bump");

        rolledOutWithin(limits, start);
        Set<String> old = names(start.nodes());
        List<RecordedRequest> log = h.kube.requests();
        ClusterTimeline timeline = ClusterTimeline.replay(start.nodes(), log);
        ClusterTimeline.Moment canary = timeline.first(m -> m.nodes().keySet().stream()
                .anyMatch(n -> !old.contains(n) && m.readyAndSchedulable(n))).orElseThrow();
        Set<String> disrupted = new java.util.TreeSet<>();
        log.stream().filter(r -> r.sequence() <= canary.request().sequence() && SeenRequests.isCordon(r))
                .map(r -> r.resourcePath().substring("/api/v1/nodes/".length())).filter(old::contains).forEach(disrupted::add);
        surgeAsked(log, start).entrySet().stream().filter(e -> !e.getValue().isAfter(canary.request().time()))
                .forEach(e -> disrupted.add(e.getKey()));
        assertThat(disrupted).as("old nodes cordoned or given a surge machine before the first new node was available (%s)%s",
                canary, RolloutInvariants.writes(log)).hasSize(1);
    }

    /** The cluster with these daily windows, each {@code (opening, length)} in whole seconds, UTC. */
    private static String clusterWithWindows(java.time.Instant... openAndClose) {
        StringBuilder windows = new StringBuilder();
        for (int i = 0; i < openAndClose.length; i += 2) {
            java.time.ZonedDateTime t = openAndClose[i].atZone(java.time.ZoneOffset.UTC);
            windows.append("      - {schedule: \"%d %d %d * * ?\", duration: %ds, timeZone: UTC}\n".formatted(t.getSecond(), t.getMinute(),
                    t.getHour(), Duration.between(openAndClose[i], openAndClose[i + 1]).toSeconds()));
        }
        return CLUSTER + "  maintenance:\n    windows:\n" + windows;
    }

    @ParameterizedTest
    @EnumSource(RolloutBackend.class)
    void aWindowClosingMidRolloutStartsNoNodeUntilTheNextWindowWhichFinishesIt(RolloutBackend backend) throws Exception {
        Limits limits = new Limits(NODES, 1, 0);
        java.time.Instant tonight = java.time.Instant.now().plus(Duration.ofHours(12)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        // Machines come 3 s after they are asked for: one node takes a little longer, so a 4 s window ends mid-rollout.
        Start start = adopted(backend, pool("1631.0.0", 1, 0), clusterWithWindows(tonight, tonight.plus(Duration.ofHours(1))),
                Duration.ofSeconds(3));
        java.time.Instant open1 = java.time.Instant.now().plus(Duration.ofSeconds(4)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        java.time.Instant close1 = open1.plus(Duration.ofSeconds(4));
        java.time.Instant open2 = close1.plus(Duration.ofSeconds(8));
        h.work.write("cluster.yaml", clusterWithWindows(open1, close1, open2, open2.plus(Duration.ofSeconds(60))));
        push(pool("1632.0.0", 1, 0), "image bump, a short window now and another a little later");

        rolledOutWithin(limits, start);

        // When each old node was first disrupted: its surge machine asked for, or it cordoned.
        List<RecordedRequest> log = h.kube.requests();
        java.util.Map<String, java.time.Instant> first = new java.util.TreeMap<>(surgeAsked(log, start));
        Set<String> old = names(start.nodes());
        log.stream().filter(SeenRequests::isCordon).forEach(r -> {
            String node = r.resourcePath().substring("/api/v1/nodes/".length());
            if (old.contains(node)) {
                first.merge(node, r.time(), (a, b) -> a.isBefore(b) ? a : b);
            }
        });
        // A reconcile that read the clock just before the close may send its steps just after it.
        java.time.Instant decided = close1.plus(Duration.ofMillis(1500));
        String writes = RolloutInvariants.writes(log);
        assertThat(first).as("every old node disrupted").hasSize(NODES);
        assertThat(first.values()).as("nothing started before the first window, nor between the windows: %s%s", first, writes)
                .allMatch(t -> (!t.isBefore(open1) && t.isBefore(decided)) || !t.isBefore(open2));
        assertThat(first.values()).as("the first window closed mid-rollout: %s", first)
                .anyMatch(t -> t.isBefore(close1)).anyMatch(t -> !t.isBefore(open2));
    }

    /** The old nodes a surge machine was asked for, with when: from the cloud's record, or the MachineDeployment's annotation. */
    private java.util.Map<String, java.time.Instant> surgeAsked(List<RecordedRequest> log, Start start) throws Exception {
        java.util.Map<String, java.time.Instant> asked = new java.util.TreeMap<>();
        if (h.backend != RolloutBackend.CLUSTER_API) {
            h.machineRequests.requests().stream().filter(q -> !q.time().isBefore(start.at()) && q.surgeFor().isPresent())
                    .forEach(q -> asked.putIfAbsent(q.surgeFor().get(), q.time()));
            return asked;
        }
        for (RecordedRequest r : log) {
            if (r.method().equals("PATCH") && r.succeeded() && r.resourcePath().contains("/machinedeployments/")) {
                com.fasterxml.jackson.databind.JsonNode surge = JSON.readTree(r.body()).at("/metadata/annotations")
                        .path("nightshift.dev/surge-requests");
                if (surge.isTextual()) {
                    JSON.readTree(surge.asText()).fieldNames().forEachRemaining(partner -> asked.putIfAbsent(partner, r.time()));
                }
            }
        }
        return asked;
    }

    @ParameterizedTest
    @EnumSource(RolloutBackend.class)
    void aSecondCommitMidRolloutBringsEveryMachineToTheSecondSpec(RolloutBackend backend) throws Exception {
        Limits limits = new Limits(NODES, 1, 0);
        Start start = adopted(backend, pool("1631.0.0", 1, 0));

        push(pool("1632.0.0", 1, 0), "image bump");
        String first = await("a node at the first bump's hash").atMost(ROLLOUT).pollInterval(Duration.ofMillis(20))
                .until(() -> h.nodes(POOL).stream().map(ProviderRolloutIT::rollHash)
                        .filter(hash -> !hash.isEmpty() && !hash.equals(start.oldRollHash())).findFirst().orElse(null), x -> x != null);
        push(pool("1633.0.0", 1, 0), "a second image bump before the first is rolled out");

        String last = rolledOutWithin(limits, start);
        assertThat(last).as("every node at the second commit's hash").isNotEqualTo(first);
    }

    /** Where the agent is stopped, as the request log (or the cloud's record) shows it. */
    enum Point {
        /** A surge machine was asked for (a MachineDeployment raised above its size, or the cloud asked). */
        SURGE_REQUESTED,
        /** An old node's drain started: the agent marked it. */
        MID_DRAIN,
        /** A machine was deleted: an old node's (simulated) or a Machine (Cluster API). */
        AFTER_DELETION
    }

    private boolean reached(Point point, Start start) {
        List<RecordedRequest> log = h.kube.requests();
        return switch (point) {
            case SURGE_REQUESTED -> h.backend != RolloutBackend.CLUSTER_API
                    ? h.machineRequests.requests().stream().anyMatch(q -> !q.time().isBefore(start.at()))
                    : log.stream().anyMatch(r -> r.method().equals("PATCH") && r.succeeded() && r.resourcePath().contains("/machinedeployments/")
                            && r.body().contains("\"replicas\":" + (NODES + 1)));
            case MID_DRAIN -> log.stream().anyMatch(r -> r.method().equals("PATCH") && r.succeeded()
                    && r.body().contains(NodeMarks.DRAIN_STARTED_AT + "\":\""));
            case AFTER_DELETION -> h.backend == RolloutBackend.HTTP
                    ? h.machineLog.entries().stream().anyMatch(e -> e.event() == MachineLog.Event.DELETING)
                    : log.stream().anyMatch(r -> r.method().equals("DELETE") && r.succeeded()
                    && (h.backend == RolloutBackend.SIMULATED ? r.resourcePath().startsWith("/api/v1/nodes/")
                    : r.resourcePath().contains("/machines/")));
        };
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> restarts() {
        return java.util.Arrays.stream(RolloutBackend.values()).flatMap(b -> java.util.Arrays.stream(Point.values())
                .map(p -> org.junit.jupiter.params.provider.Arguments.of(b, p)));
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("restarts")
    void anAgentRestartedMidRolloutFinishesItWithoutRepeatingWork(RolloutBackend backend, Point point) throws Exception {
        Limits limits = new Limits(NODES, 1, 0);
        Start start = adopted(backend, pool("1631.0.0", 1, 0));
        // The API server refuses the first evictions as overloaded: each drain takes several passes, so that the
        // agent can be caught in the middle of one.
        h.kube.throttleEvictions(4);

        push(pool("1632.0.0", 1, 0), "image bump");
        await("the agent at " + point).atMost(ROLLOUT).pollInterval(Duration.ofMillis(10)).until(() -> reached(point, start));
        h.stopAgent();
        h.startAgent("e2e");

        rolledOutWithin(limits, start);
        if (backend == RolloutBackend.SIMULATED) {
            assertThat(h.provider.machines(POOL)).as("no machine left over in the cloud").hasSize(NODES);
        }
        if (backend == RolloutBackend.HTTP) {
            assertThat(h.machineApi.cloud().list(POOL)).as("no machine left over in the machine API").hasSize(NODES);
        }
    }

    @ParameterizedTest
    @EnumSource(RolloutBackend.class)
    void aDrainBlockedByABudgetWaitsAndGoesOnOnceTheBudgetAllows(RolloutBackend backend) throws Exception {
        Limits limits = new Limits(NODES, 1, 0);
        String blocking = pool("1631.0.0", 1, 0) + "  machineControllerManager: {maxEvictRetries: 2, onEvictionBlocked: Wait}\n";
        Start start = adopted(backend, blocking);
        budget(0);

        push(blocking.replace("1631.0.0", "1632.0.0"), "image bump");
        await("evictions refused by the budget").atMost(ROLLOUT).pollInterval(Duration.ofMillis(50))
                .until(() -> h.kube.requests().stream().filter(r -> r.resourcePath().endsWith("/eviction") && r.status() == 429).count() >= 3);
        assertThat(h.kube.requests()).as("nothing deleted while the budget refuses" + RolloutInvariants.writes(h.kube.requests()))
                .noneMatch(r -> r.method().equals("DELETE") && r.succeeded() && (r.resourcePath().startsWith("/api/v1/nodes/")
                        || r.resourcePath().contains("/machines/") || r.resourcePath().contains("/pods/")));
        assertThat(h.kube.client().pods().inNamespace(DemoWorkloads.NAMESPACE).list().getItems()).as("every pod still runs").hasSize(NODES);

        budget(1);

        rolledOutWithin(limits, start);
    }

    /**
     * Cluster API: a partner's Machine deleted behind the agent's back (a MachineHealthCheck) while its stand-in runs
     * and its drain waits on a budget. Cluster API replaces the Machine, so the stand-in is one too many; it stands in
     * for the next outdated Machine instead, which leaves in its place, and the pool ends at its size (seeds 12 and 38
     * of the long profile ended one Machine larger).
     */
    @org.junit.jupiter.api.Test
    void aStandInWhosePartnerIsLostBehindTheAgentsBackTakesTheNextOldMachinesPlaceAndThePoolKeepsItsSize() throws Exception {
        Limits limits = new Limits(NODES, 1, 0);
        Start start = adopted(RolloutBackend.CLUSTER_API, pool("1631.0.0", 1, 0));
        budget(0);

        push(pool("1632.0.0", 1, 0), "image bump");
        Node partner = await("a partner draining, its stand-in Ready").atMost(ROLLOUT).pollInterval(Duration.ofMillis(50)).until(() -> {
            Set<String> standingIn = h.nodes(POOL).stream().filter(n -> !annotation(n, NodeMarks.SURGE_FOR).isEmpty())
                    .filter(n -> n.getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("Ready")
                            && c.getStatus().equals("True"))).map(n -> annotation(n, NodeMarks.SURGE_FOR)).collect(Collectors.toSet());
            return h.nodes(POOL).stream().filter(n -> standingIn.contains(n.getMetadata().getName())
                    && !annotation(n, NodeMarks.DRAIN_STARTED_AT).isEmpty()).findFirst().orElse(null);
        }, n -> n != null);
        losePartnerThenRollOut(partner, limits, start);
    }

    /**
     * Cluster API, long-profile seed 36: every old Machine has a stand-in ({@code maxSurge} as large as the pool, in one
     * wave) when a partner's Machine is deleted behind the agent's back. No outdated Machine is left to give its stand-in
     * to, so it stands in for a registered Machine of the current MachineSet (Cluster API's replacement of the lost one),
     * which is drained and leaves by a lowering once the old MachineSet is empty: the pool ends at its size, not one larger.
     */
    @org.junit.jupiter.api.Test
    void aStandInWhosePartnerIsLostWhenEveryOldMachineHasOneStandsInForACurrentMachineAndThePoolKeepsItsSize() throws Exception {
        Limits limits = new Limits(NODES, NODES, 0);
        String oneWave = "  rollout: {waves: [\"100%\"]}\n";
        Start start = adopted(RolloutBackend.CLUSTER_API, pool("1631.0.0", NODES, 0) + oneWave);
        budget(0);

        push(pool("1632.0.0", NODES, 0) + oneWave, "image bump");
        Node partner = await("every partner draining, each stand-in Ready").atMost(ROLLOUT).pollInterval(Duration.ofMillis(50)).until(() -> {
            Set<String> standingIn = h.nodes(POOL).stream().filter(n -> !annotation(n, NodeMarks.SURGE_FOR).isEmpty())
                    .filter(n -> n.getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("Ready")
                            && c.getStatus().equals("True"))).map(n -> annotation(n, NodeMarks.SURGE_FOR)).collect(Collectors.toSet());
            List<Node> draining = h.nodes(POOL).stream().filter(n -> standingIn.contains(n.getMetadata().getName())
                    && !annotation(n, NodeMarks.DRAIN_STARTED_AT).isEmpty()).sorted(java.util.Comparator.comparing(n -> n.getMetadata().getName()))
                    .toList();
            return draining.size() == NODES ? draining.get(0) : null;
        }, n -> n != null);
        losePartnerThenRollOut(partner, limits, start);
    }

    /**
     * Deletes {@code partner}'s Machine behind the agent's back (as a MachineHealthCheck would), lets drains go on, and
     * checks from the request log that the rollout ends with the pool and its MachineDeployment at their size.
     */
    private void losePartnerThenRollOut(Node partner, Limits limits, Start start) {
        String lost = partner.getMetadata().getName();
        // Deleted without Cluster API's own drain, which the budget would block as it blocks the agent's.
        var machine = h.kube.client().genericKubernetesResources(dev.nightshift.sandbox.capi.ClusterApiResources.MACHINES)
                .inNamespace(dev.nightshift.sandbox.embedded.EmbeddedKubernetes.NAMESPACE).withName(annotation(partner, "cluster.x-k8s.io/machine"));
        machine.edit(m -> {
            m.getMetadata().getAnnotations().put("machine.cluster.x-k8s.io/exclude-node-draining", "true");
            return m;
        });
        machine.delete();
        await("the lost partner's node gone").atMost(ROLLOUT).until(() -> h.kube.client().nodes().withName(lost).get() == null);
        budget(1);

        try {
            await("the rollout's end").atMost(ROLLOUT).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> RolloutInvariants.assertRolledOut(h, POOL, limits, start));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "\nthe agent's /status: " + h.agent.status(), e);
        }
        RolloutInvariants.assertHeld(h, POOL, limits, start, Set.of(lost));
        JsonNode md = JSON.valueToTree(h.kube.client().genericKubernetesResources(dev.nightshift.sandbox.capi.ClusterApiResources.MACHINE_DEPLOYMENTS)
                .inNamespace(dev.nightshift.sandbox.embedded.EmbeddedKubernetes.NAMESPACE).list().getItems().get(0));
        assertThat(md.at("/spec/replicas").asInt()).as("the MachineDeployment at the pool's size").isEqualTo(NODES);
    }

    private void budget(int maxUnavailable) {
        h.kube.client().policy().v1().podDisruptionBudget().inNamespace(DemoWorkloads.NAMESPACE).withName("app").edit(pdb -> {
            pdb.getSpec().setMaxUnavailable(new io.fabric8.kubernetes.api.model.IntOrString(maxUnavailable));
            return pdb;
        });
    }

    private static Set<String> names(List<Node> nodes) {
        return nodes.stream().map(n -> n.getMetadata().getName()).collect(Collectors.toSet());
    }

    static String rollHash(Node n) {
        return annotation(n, NodeMarks.ROLL_HASH);
    }
}
