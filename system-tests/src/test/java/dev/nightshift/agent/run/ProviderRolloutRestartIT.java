package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.run.RolloutInvariants.Limits;
import dev.nightshift.agent.run.RolloutInvariants.Start;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.sandbox.machineapi.MachineLog;

/**
 * The agent stopped and started again at a point of a rollout the request log shows (a surge asked for, mid-drain,
 * after a deletion), with each machine provider ({@link ProviderRolloutScenario}): the new agent finishes the rollout
 * without repeating work (no node cordoned or drained twice, one new machine per old node, never more than count +
 * maxSurge machines) and leaves no machine over.
 */
class ProviderRolloutRestartIT extends ProviderRolloutScenario {

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
        assertThat(machinesMade(start)).as("one new machine per old node, the restart's included" + RolloutInvariants.writes(h.kube.requests()))
                .isEqualTo(NODES);
    }

    /** The machines made since {@code start}, as the cloud saw them: nodes registered, the machine API's creates, Machines created. */
    private long machinesMade(Start start) {
        List<RecordedRequest> log = h.kube.requests();
        return switch (h.backend) {
            case SIMULATED -> log.stream().filter(r -> r.method().equals("POST") && r.succeeded() && r.resourcePath().equals("/api/v1/nodes"))
                    .count();
            case HTTP -> h.machineLog.entries().stream().filter(e -> e.event() == MachineLog.Event.CREATED && !e.time().isBefore(start.at()))
                    .count();
            case CLUSTER_API -> log.stream().filter(r -> r.method().equals("POST") && r.succeeded()
                    && r.resourcePath().startsWith(RolloutInvariants.CAPI_API) && r.resourcePath().endsWith("/machines")).count();
        };
    }
}
