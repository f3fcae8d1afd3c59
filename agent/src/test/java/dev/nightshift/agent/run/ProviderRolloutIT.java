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

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.run.RolloutInvariants.Limits;
import dev.nightshift.agent.run.RolloutInvariants.Start;
import dev.nightshift.agent.sandbox.demo.DemoWorkloads;
import io.fabric8.kubernetes.api.model.Node;

/**
 * The agent's rollout scenarios, each run with the simulated cloud and with the {@code cluster-api} provider against
 * the embedded Cluster API: a pool of three nodes, each running a pod of an application whose budget allows one
 * disruption at a time (evicted pods start again on another node), rolled to a new image. Every scenario ends with
 * the guarantees checked from the embedded API server's request log ({@link RolloutInvariants}) and the end state:
 * every node (and Machine) at the new spec and, with Cluster API, no template of Nightshift's left unused.
 */
class ProviderRolloutIT {

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
        h = new AgentHarness(tmp, "e2e", POOL, NODES, backend, MACHINE);
        h.work.write("cluster.yaml", CLUSTER);
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
        await("the rollout's end").atMost(ROLLOUT).pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> hash.set(RolloutInvariants.assertRolledOut(h, POOL, limits, start)));
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

    private static Set<String> names(List<Node> nodes) {
        return nodes.stream().map(n -> n.getMetadata().getName()).collect(Collectors.toSet());
    }

    static String rollHash(Node n) {
        return annotation(n, NodeMarks.ROLL_HASH);
    }
}
