package dev.nightshift.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.nightshift.sandbox.MachineApiLogs.MachineEvent;
import dev.nightshift.sandbox.MachineApiLogs.Request;

/** The crash test's checks on hand-made logs: a clean rollout passes, and each kind of harm is named. */
class CrashJudgeTest {

    private static final CrashJudge JUDGE = new CrashJudge(List.of(new CrashJudge.PoolLimits("surge", 3, 1, 0),
            new CrashJudge.PoolLimits("swap", 3, 0, 1)));

    private final List<MachineEvent> machines = new ArrayList<>();
    private final List<Request> requests = new ArrayList<>();
    private final List<NodeEvent> nodes = new ArrayList<>();

    @Test
    void aCleanSurgeAndSwapRolloutHasNoViolations() {
        seedBoth();
        // surge: a machine for surge-1, then surge-1 cordoned, drained, deleted
        create("m-surge-4", "surge", "surge-a", "k1", null);
        node(NodeEvent.Type.ADDED, "surge-a", "surge", true, false, null);
        node(NodeEvent.Type.MODIFIED, "surge-1", "surge", true, true, "t1");
        machine("deleting", "m-surge-1", "surge", "surge-1", null, null);
        machine("gone", "m-surge-1", "surge", "surge-1", null, null);
        node(NodeEvent.Type.DELETED, "surge-1", "surge", true, true, "t1");
        // swap: swap-1 cordoned, drained, replaced in one call
        node(NodeEvent.Type.MODIFIED, "swap-1", "swap", true, true, "t2");
        replace("m-swap-1", "swap-1", "m-swap-4", "swap-a", "k2");
        node(NodeEvent.Type.DELETED, "swap-1", "swap", true, true, "t2");
        node(NodeEvent.Type.ADDED, "swap-a", null, true, false, null);

        assertThat(JUDGE.violations(requests, machines, nodes)).isEmpty();
    }

    @Test
    void aNodeCordonedAgainAfterItWasUncordonedIsDrainedTwice() {
        seedBoth();
        node(NodeEvent.Type.MODIFIED, "swap-2", "swap", true, true, "t1");
        node(NodeEvent.Type.MODIFIED, "swap-2", "swap", true, false, null);
        node(NodeEvent.Type.MODIFIED, "swap-2", "swap", true, true, "t1");

        assertThat(JUDGE.nodesDrainedTwice(nodes)).containsExactly("node swap-2 was cordoned 2 times (drained twice)");
    }

    @Test
    void aDrainMarkSetAgainWithAnotherTimeIsADrainStartedTwice() {
        seedBoth();
        node(NodeEvent.Type.MODIFIED, "swap-2", "swap", true, true, "t1");
        node(NodeEvent.Type.MODIFIED, "swap-2", "swap", true, true, "t2");

        assertThat(JUDGE.nodesDrainedTwice(nodes)).singleElement().asString().contains("swap-2", "2 times", "[t1, t2]");
    }

    @Test
    void aSecondSurgeMachineWhileTheFirstIsUpIsASurplusMachine() {
        seedBoth();
        create("m-surge-4", "surge", "surge-a", "k1", null);
        create("m-surge-5", "surge", "surge-b", "k2", null);

        assertThat(JUDGE.machinesBeyondSurge(machines)).singleElement().asString()
                .contains("pool surge had 5 machines not being deleted (limit 4)", "m-surge-5");
    }

    @Test
    void aMachineBeingDeletedNoLongerCountsAgainstTheSurge() {
        seedBoth();
        create("m-surge-4", "surge", "surge-a", "k1", null);
        machine("deleting", "m-surge-1", "surge", "surge-1", null, null);
        create("m-surge-5", "surge", "surge-b", "k2", null);

        assertThat(JUDGE.machinesBeyondSurge(machines)).isEmpty();
    }

    @Test
    void aKeyRepeatedAfterACrashThatMadeASecondMachineIsNamed() {
        seedBoth();
        create("m-surge-4", "surge", "surge-a", "k1", null);
        machine("deleting", "m-surge-1", "surge", "surge-1", null, null);
        create("m-surge-5", "surge", "surge-b", "k1", null);

        assertThat(JUDGE.keysWithSecondMachine(requests, machines))
                .containsExactly("Idempotency-Key k1 created 2 machines: [m-surge-4, m-surge-5]");
    }

    @Test
    void aMachineReplacedTwiceHasTwoReplacements() {
        seedBoth();
        replace("m-swap-1", "swap-1", "m-swap-4", "swap-a", "k1");
        create("m-swap-5", "swap", "swap-b", "k2", "m-swap-1");

        assertThat(JUDGE.replacementsNotOne(machines)).containsExactly("machine m-swap-1 was replaced by 2 machines: [m-swap-4, m-swap-5]");
    }

    @Test
    void twoNodesCordonedAtOnceInAPoolThatMayLoseOneAreTooFewAvailable() {
        seedBoth();
        node(NodeEvent.Type.MODIFIED, "swap-1", "swap", true, true, "t1");
        node(NodeEvent.Type.MODIFIED, "swap-2", "swap", true, true, "t2");

        assertThat(JUDGE.availableBelowLimit(nodes, machines)).singleElement().asString()
                .contains("pool swap had 1 available nodes (at least 2 required)", "swap-2");
    }

    @Test
    void anUnlabelledNodeCountsForThePoolOfItsMachineAndANotReadyOneDoesNot() {
        seedBoth();
        create("m-surge-4", "surge", "surge-a", "k1", null);
        node(NodeEvent.Type.ADDED, "surge-a", null, false, false, null);
        node(NodeEvent.Type.MODIFIED, "surge-1", "surge", true, true, "t1");

        assertThat(JUDGE.availableBelowLimit(nodes, machines)).singleElement().asString()
                .contains("pool surge had 2 available nodes (at least 3 required)");
    }

    @Test
    void aThirdMachineObjectOfAPoolOfTwoWithSurgeOneIsBeyondTheSurgeUntilOneIsGone() {
        CrashJudge judge = new CrashJudge(List.of(new CrashJudge.PoolLimits("web", 2, 1, 0)));
        List<ClusterApiWatch.MachineEvent> events = new ArrayList<>();
        for (String machine : List.of("md-a", "md-b", "md-c")) {
            events.add(capiMachine(events.size() + 1, NodeEvent.Type.ADDED, machine, false));
        }
        // Being deleted, md-a still takes its place: the fourth comes too early.
        events.add(capiMachine(events.size() + 1, NodeEvent.Type.MODIFIED, "md-a", true));
        assertThat(judge.machineObjectsBeyondSurge("md", "web", events)).isEmpty();
        events.add(capiMachine(events.size() + 1, NodeEvent.Type.ADDED, "md-d", false));

        assertThat(judge.machineObjectsBeyondSurge("md", "web", events)).singleElement().asString()
                .contains("md had 4 Machines (at most 3)", "md-d");
        events.remove(events.size() - 1);
        events.add(capiMachine(events.size() + 1, NodeEvent.Type.DELETED, "md-a", true));
        events.add(capiMachine(events.size() + 1, NodeEvent.Type.ADDED, "md-d", false));
        assertThat(judge.machineObjectsBeyondSurge("md", "web", events)).isEmpty();
    }

    private static ClusterApiWatch.MachineEvent capiMachine(long sequence, NodeEvent.Type type, String machine, boolean deleting) {
        return new ClusterApiWatch.MachineEvent(sequence, Instant.EPOCH, type, machine, "md", null, deleting, false, null);
    }

    @Test
    void aSecondMachineForTheSameSurgePartnerAndHashIsASurgeMadeTwice() {
        List<CrashJudge.ListedMachine> listed = List.of(new CrashJudge.ListedMachine("m-surge-4", "surge-1", "h2"),
                new CrashJudge.ListedMachine("m-surge-5", "surge-2", "h2"), new CrashJudge.ListedMachine("m-surge-6", "surge-1", "h3"),
                new CrashJudge.ListedMachine("m-surge-1", null, "h1"), new CrashJudge.ListedMachine("m-surge-7", "surge-1", "h2"));

        assertThat(JUDGE.surgeMachinesMadeTwice(listed))
                .containsExactly("surge partner surge-1 at roll hash h2 got 2 machines: [m-surge-4, m-surge-7]");
    }

    private void seedBoth() {
        for (String pool : List.of("surge", "swap")) {
            for (int i = 1; i <= 3; i++) {
                machine("seeded", "m-" + pool + "-" + i, pool, pool + "-" + i, null, null);
                node(NodeEvent.Type.ADDED, pool + "-" + i, pool, true, false, null);
            }
        }
    }

    private void create(String id, String pool, String node, String key, String replaces) {
        requests.add(new Request(requests.size() + 1, "POST", "/v1/pools/" + pool + "/machines", "createMachine", 1, key, 201, id,
                "answered"));
        machines.add(new MachineEvent(machines.size() + 1, "created", id, pool, node, key, replaces, null));
    }

    private void replace(String old, String oldNode, String id, String node, String key) {
        requests.add(new Request(requests.size() + 1, "POST", "/v1/machines/" + old + "/replace", "replaceMachine", 1, key, 202, id,
                "answered"));
        String pool = old.split("-")[1];
        machines.add(new MachineEvent(machines.size() + 1, "created", id, pool, node, key, old, null));
        machines.add(new MachineEvent(machines.size() + 1, "replaced", old, pool, oldNode, key, null, id));
    }

    private void machine(String event, String id, String pool, String node, String key, String replacedBy) {
        machines.add(new MachineEvent(machines.size() + 1, event, id, pool, node, key, null, replacedBy));
    }

    private void node(NodeEvent.Type type, String node, String pool, boolean ready, boolean cordoned, String drainStartedAt) {
        nodes.add(new NodeEvent(nodes.size() + 1, Instant.EPOCH, type, node, pool, ready, cordoned, drainStartedAt, null));
    }
}
