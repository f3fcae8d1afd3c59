package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.provider.http.ApiMachine;
import dev.nightshift.agent.provider.http.MachineState;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import dev.nightshift.sandbox.machineapi.MachineLog;

/**
 * Provider {@code http} when the cloud fails machines: a machine the machine API reports {@code failed} counts against
 * the pool at once and is deleted, and another is asked for, until the rollout completes; an update the machine API
 * fails marks the node's update failed with the adapter's message and stops the pool.
 */
class MachineApiFailuresIT {

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
              machineImages:
              - name: gardenlinux
                versions:
                - {version: 1631.0.0, inPlaceUpdates: {supported: true, minVersionForUpdate: 1630.0.0}}
                - {version: 1632.0.0, inPlaceUpdates: {supported: true, minVersionForUpdate: 1630.0.0}}
            """;

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    private static String pool(String strategy, String version, int maxSurge, int maxUnavailable) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: e2e}
                spec:
                  minimum: 2
                  maximum: 4
                  maxSurge: %d
                  maxUnavailable: %d
                  updateStrategy: %s
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(maxSurge, maxUnavailable, strategy, version);
    }

    private void start(SimulatedMachineProvider.Behaviour cloud, String poolSpec) throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 2, RolloutBackend.HTTP, cloud);
        h.work.write("cluster.yaml", CLUSTER);
        h.work.write("pools/web.yaml", poolSpec);
        h.work.commitAndPush("initial");
        h.startAgent("e2e");
        h.awaitAdopted("web", 2);
    }

    @Test
    void failedMachinesAreDeletedAtOnceAndAskedForAgainUntilTheRolloutCompletes() throws Exception {
        // Three machines in four the cloud creates fail before they run (seeded: the same ones in every run).
        start(new SimulatedMachineProvider.Behaviour(Duration.ofMillis(400), Duration.ofMillis(400), Duration.ofMillis(200), 0.75, 0),
                pool("AutoRollingUpdate", "1631.0.0", 1, 0));
        String old = AgentHarness.annotation(h.nodes("web").get(0), NodeMarks.ROLL_HASH);

        h.work.write("pools/web.yaml", pool("AutoRollingUpdate", "1632.0.0", 1, 0));
        h.work.commitAndPush("image bump");
        h.agent.pollNow();

        await("the rollout's end").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            Set<String> hashes = h.nodes("web").stream().map(n -> AgentHarness.annotation(n, NodeMarks.ROLL_HASH)).collect(Collectors.toSet());
            assertThat(h.nodes("web")).hasSize(2);
            assertThat(hashes).hasSize(1).doesNotContain(old, "");
            assertThat(h.machineApi.cloud().list("web")).hasSize(2).allMatch(m -> m.state() == MachineState.RUNNING);
        });
        List<MachineLog.Entry> log = h.machineLog.entries();
        List<String> failed = log.stream().filter(e -> e.event() == MachineLog.Event.FAILED).map(MachineLog.Entry::machine).toList();
        assertThat(failed).as("machines the cloud failed (seeded)").isNotEmpty();
        for (String machine : failed) {
            assertThat(log).as("failed machine %s deleted by the agent", machine)
                    .anyMatch(e -> e.machine().equals(machine) && e.event() == MachineLog.Event.DELETING);
        }
        long created = log.stream().filter(e -> e.event() == MachineLog.Event.CREATED).count();
        assertThat(created).as("a machine asked for again for each one that failed").isGreaterThanOrEqualTo(2 + failed.size());
    }

    @Test
    void anUpdateTheMachineApiFailsMarksTheNodeFailedWithItsMessageAndStopsThePool() throws Exception {
        // Every in-place update fails.
        start(new SimulatedMachineProvider.Behaviour(Duration.ofMillis(400), Duration.ofMillis(400), Duration.ofMillis(200), 0, 1),
                pool("AutoInPlaceUpdate", "1631.0.0", 0, 1));

        h.work.write("pools/web.yaml", pool("AutoInPlaceUpdate", "1632.0.0", 0, 1));
        h.work.commitAndPush("in-place image bump");
        h.agent.pollNow();

        await("a node's update failed").atMost(Duration.ofSeconds(60)).until(() -> h.nodes("web").stream()
                .anyMatch(n -> "true".equals(AgentHarness.annotation(n, NodeMarks.IN_PLACE_FAILED))));
        var failedNode = h.nodes("web").stream().filter(n -> "true".equals(AgentHarness.annotation(n, NodeMarks.IN_PLACE_FAILED)))
                .findFirst().orElseThrow();
        assertThat(AgentHarness.annotation(failedNode, NodeMarks.IN_PLACE_FAILED_REASON)).as("the adapter's message on the node")
                .startsWith("machine m-web-").contains("failed its update");
        Map<String, ApiMachine> byNode = h.machineApi.cloud().list("web").stream()
                .collect(Collectors.toMap(ApiMachine::nodeName, m -> m));
        assertThat(byNode.get(failedNode.getMetadata().getName()).state()).isEqualTo(MachineState.FAILED);
        // The pool stops: the other node is never updated.
        h.idleThroughReconciles(failedNode.getMetadata().getName(), 3);
        assertThat(h.machineLog.entries().stream().filter(e -> e.event() == MachineLog.Event.UPDATE_STARTED).count())
                .as("updates started: the failed one only").isEqualTo(1);
        assertThat(h.agent.status()).contains("failedUpdates");
    }
}
