package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;

/**
 * The agent stopped at several points of a surge rollout and started again with no memory: the
 * rollout completes, no node is drained twice, no extra machine is created, and the pool never
 * holds more than count + maxSurge nodes — all read from what the cluster saw.
 */
class RestartIT {

    /** Three nodes replaced one at a time, each new one Ready before an old one goes. */
    private static final ScenarioSpecs.Pool WEB = ScenarioSpecs.web().surgingOneAtATime();

    /** Where the agent is stopped, as the cluster and the cloud show it. */
    enum Point {
        /** A surge machine was requested from the cloud and has not registered as a node yet. */
        SURGE_REQUESTED(h -> h.provider.machines("web").size() > h.nodes("web").size()),
        /** An old node is being drained. */
        MID_DRAIN(h -> h.nodes("web").stream().anyMatch(n -> !annotation(n, NodeMarks.DRAIN_STARTED_AT).isEmpty())),
        /** The first old node is gone and the others still wait. */
        AFTER_FIRST_REPLACEMENT(h -> h.kube.requests().stream().anyMatch(r -> r.method().equals("DELETE")
                && r.resourcePath().startsWith("/api/v1/nodes/")));

        final Predicate<AgentHarness> reached;

        Point(Predicate<AgentHarness> reached) {
            this.reached = reached;
        }
    }

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    private List<RecordedRequest> nodeWrites() {
        return h.kube.requests().stream().filter(r -> r.isWrite() && r.resourcePath().startsWith("/api/v1/nodes")).toList();
    }

    private Map<String, Long> perNode(Predicate<RecordedRequest> which) {
        return nodeWrites().stream().filter(which).collect(Collectors.groupingBy(RecordedRequest::resourcePath, Collectors.counting()));
    }

    @ParameterizedTest
    @EnumSource(Point.class)
    void aRestartedAgentFinishesTheRolloutWithoutRepeatingWork(Point point) throws Exception {
        // Machines take 2 s to register, so that a requested machine can be caught before it is a node.
        h = new AgentHarness(tmp, "e2e", "web", 3, new SimulatedMachineProvider.Behaviour(Duration.ofSeconds(2),
                Duration.ofSeconds(2), Duration.ofMillis(300), 0, 0));
        // A pod on every node, and the API server refusing the first evictions as overloaded: each
        // drain takes several passes, so that the agent can be caught in the middle of one.
        for (int i = 1; i <= 3; i++) {
            h.kube.client().pods().inNamespace("shop").resource(new PodBuilder().withNewMetadata().withName("app-" + i)
                    .withNamespace("shop").endMetadata().withNewSpec().withNodeName("web-" + i).addNewContainer().withName("app")
                    .withImage("app").endContainer().endSpec().withNewStatus().withPhase("Running").endStatus().build()).create();
        }
        h.startAndAdopt(ScenarioSpecs.CLUSTER, WEB, 3);
        h.kube.throttleEvictions(6);
        List<Node> start = h.nodes("web");
        List<String> old = start.stream().map(n -> "/api/v1/nodes/" + n.getMetadata().getName()).toList();
        String oldHash = annotation(start.get(0), NodeMarks.ROLL_HASH);
        h.kube.clearRequests();

        h.push("image bump", WEB.withImage("1632.0.0"));
        h.agent.pollNow();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> point.reached.test(h));
        h.stopAgent();
        h.startAgent("e2e");

        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(h.nodes("web")).hasSize(3)
                .allSatisfy(n -> assertThat(annotation(n, NodeMarks.ROLL_HASH)).isNotEqualTo(oldHash)));
        String log = "\n" + nodeWrites().stream().map(r -> r.time() + " " + r.method() + " " + r.resourcePath())
                .collect(Collectors.joining("\n"));
        assertThat(perNode(r -> r.body().contains("\"unschedulable\":true"))).as("each old node cordoned once" + log)
                .containsOnlyKeys(old).allSatisfy((node, count) -> assertThat(count).isOne());
        assertThat(perNode(r -> r.body().contains(NodeMarks.DRAIN_STARTED_AT + "\":\""))).as("each old node's drain started once" + log)
                .containsOnlyKeys(old).allSatisfy((node, count) -> assertThat(count).isOne());
        assertThat(perNode(r -> r.method().equals("DELETE"))).as("each old node deleted once" + log)
                .containsOnlyKeys(old).allSatisfy((node, count) -> assertThat(count).isOne());
        assertThat(nodeWrites().stream().filter(r -> r.method().equals("POST")).count()).as("one machine per old node" + log)
                .isEqualTo(3);
        assertThat(h.provider.machines("web")).as("no machine left over in the cloud").hasSize(3);
        ClusterTimeline.Moment fullest = ClusterTimeline.replay(start, h.kube.requests()).mostNodes("web");
        assertThat(fullest.pool("web")).as("never more than count + maxSurge nodes; the fullest moment: %s%s", fullest, log)
                .hasSizeLessThanOrEqualTo(4);
    }
}
