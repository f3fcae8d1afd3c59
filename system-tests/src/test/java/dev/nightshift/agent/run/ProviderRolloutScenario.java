package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.run.RolloutInvariants.Limits;
import dev.nightshift.agent.run.RolloutInvariants.Start;
import dev.nightshift.sandbox.demo.DemoWorkloads;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.Node;

/**
 * The agent's rollout scenarios, each run with the simulated cloud, with the {@code cluster-api} provider against the
 * embedded Cluster API and with the {@code http} provider against the sandbox's machine API: a pool of three nodes, each
 * running a pod of an application whose budget allows one disruption at a time (evicted pods start again on another
 * node), rolled to a new image. Every scenario ends with the guarantees checked from the embedded API server's request
 * log ({@link RolloutInvariants}) and the end state: every node (and Machine) at the new spec and, with Cluster API, no
 * template of Nightshift's left unused. The scenarios are in three classes (rollouts, restarts, waits) so that the
 * suite's test JVMs share them out.
 */
abstract class ProviderRolloutScenario {

    static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();
    static final String POOL = "web";
    static final int NODES = 3;
    /** A new machine is a Ready node this long after it is asked for. */
    static final Duration MACHINE = Duration.ofMillis(400);
    static final Duration ROLLOUT = Duration.ofSeconds(90);

    static final String CLUSTER = ScenarioSpecs.CLUSTER;

    /** Pool {@code web} of {@link #NODES} (to 6) at image {@code version}, with these limits and no pause. */
    static String pool(String version, int maxSurge, int maxUnavailable) {
        return ScenarioSpecs.web().with("maxSurge", String.valueOf(maxSurge)).with("maxUnavailable", String.valueOf(maxUnavailable))
                .with("interval", "0s").withImage(version).yaml();
    }

    @TempDir
    Path tmp;

    @AutoClose
    AgentHarness h;

    @AutoClose
    DemoWorkloads workloads;

    /** The pool adopted at 1631.0.0 with its workload; the request log cleared and the cluster read. */
    Start adopted(RolloutBackend backend, String poolSpec) throws Exception {
        return adopted(backend, poolSpec, CLUSTER, MACHINE);
    }

    Start adopted(RolloutBackend backend, String poolSpec, String clusterSpec, Duration machineDelay) throws Exception {
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

    void push(String poolSpec, String message) throws Exception {
        h.work.write("pools/web.yaml", poolSpec);
        h.work.commitAndPush(message);
        h.agent.pollNow();
    }

    /** Waits for the end state, then checks the request log and, with Cluster API, the templates; returns the final roll hash. */
    String rolledOutWithin(Limits limits, Start start) {
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

    /** The cluster with these daily windows, each {@code (opening, length)} in whole seconds, UTC. */
    static String clusterWithWindows(java.time.Instant... openAndClose) {
        StringBuilder windows = new StringBuilder();
        for (int i = 0; i < openAndClose.length; i += 2) {
            java.time.ZonedDateTime t = openAndClose[i].atZone(java.time.ZoneOffset.UTC);
            windows.append("      - {schedule: \"%d %d %d * * ?\", duration: %ds, timeZone: UTC}\n".formatted(t.getSecond(), t.getMinute(),
                    t.getHour(), Duration.between(openAndClose[i], openAndClose[i + 1]).toSeconds()));
        }
        return CLUSTER + "  maintenance:\n    windows:\n" + windows;
    }

    /** The old nodes a surge machine was asked for, with when: from the cloud's record, or the MachineDeployment's annotation. */
    java.util.Map<String, java.time.Instant> surgeAsked(List<RecordedRequest> log, Start start) throws Exception {
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

    void budget(int maxUnavailable) {
        h.kube.client().policy().v1().podDisruptionBudget().inNamespace(DemoWorkloads.NAMESPACE).withName("app").edit(pdb -> {
            pdb.getSpec().setMaxUnavailable(new io.fabric8.kubernetes.api.model.IntOrString(maxUnavailable));
            return pdb;
        });
    }

    static Set<String> names(List<Node> nodes) {
        return nodes.stream().map(n -> n.getMetadata().getName()).collect(Collectors.toSet());
    }

    static String rollHash(Node n) {
        return annotation(n, NodeMarks.ROLL_HASH);
    }
}
