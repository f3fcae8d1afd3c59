package dev.nightshift.sandbox.machineapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGeneratorFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.nightshift.agent.provider.http.ApiMachine;
import dev.nightshift.agent.provider.http.MachineApiException;
import dev.nightshift.agent.provider.http.MachineRequest;
import dev.nightshift.agent.provider.http.MachineSpec;
import dev.nightshift.agent.provider.http.MachineState;
import dev.nightshift.agent.provider.http.UpdateRequest;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;

/** The machine-API cloud driven directly, its machines judged from the nodes of the embedded Kubernetes API. */
class MachineApiCloudIT {

    static final MachineSpec SPEC = new MachineSpec("m5.large", new MachineSpec.Image("gardenlinux", "1631.0.0"), null, "containerd",
            "1.31.4", Map.of(), Map.of());
    static final MachineRequest REQUEST = new MachineRequest(Map.of("nightshift.dev/pool", "web", "tier", "front"),
            Map.of("nightshift.dev/roll-hash", "r1", "nightshift.dev/kubelet-hash", "k1"),
            List.of(new MachineRequest.Taint("dedicated", "web", "NoSchedule"), new MachineRequest.Taint("spot", null, "PreferNoSchedule")),
            SPEC);
    /** Long enough that a state asserted right after a call is still the one it began (on a loaded machine too). */
    static final MachineApiCloud.Behaviour QUICK = new MachineApiCloud.Behaviour(Duration.ofSeconds(1), Duration.ofSeconds(1),
            Duration.ofSeconds(1), Duration.ofMillis(300), 0, 0);

    private final EmbeddedKubernetes cluster = EmbeddedKubernetes.start();
    private final KubernetesClient client = cluster.client();
    private final ScheduledExecutorService threads = Executors.newScheduledThreadPool(2);
    private final MachineLog log = new MachineLog(Optional.empty());

    @AfterEach
    void stop() {
        threads.shutdownNow();
        cluster.close();
    }

    private MachineApiCloud cloud(MachineApiCloud.Behaviour behaviour) {
        return new MachineApiCloud(client, threads, Clock.systemUTC(), RandomGeneratorFactory.of("L64X128MixRandom").create(3), behaviour,
                log);
    }

    @Test
    void aCreatedMachineRegistersAsAReadyNodeWithExactlyTheAskedLabelsAndTaintsAndKeepsItsAnnotationsToItself() {
        MachineApiCloud cloud = cloud(QUICK);

        ApiMachine machine = cloud.create("web", "key-create-web-0001", REQUEST);

        assertThat(machine.state()).isEqualTo(MachineState.CREATING);
        assertThat(machine.nodeName()).as("known at creation").startsWith("web-");
        assertThat(machine.annotations()).isEqualTo(REQUEST.annotations());
        await().atMost(Duration.ofSeconds(10)).until(() -> state(cloud, "web", machine.id()) == MachineState.RUNNING);
        Node node = client.nodes().withName(machine.nodeName()).get();
        assertThat(node.getMetadata().getLabels()).isEqualTo(Map.of("nightshift.dev/pool", "web", "tier", "front",
                "kubernetes.io/hostname", machine.nodeName()));
        assertThat(node.getSpec().getTaints()).extracting(Taint::getKey, Taint::getValue, Taint::getEffect)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("dedicated", "web", "NoSchedule"),
                        org.assertj.core.groups.Tuple.tuple("spot", null, "PreferNoSchedule"));
        assertThat(node.getMetadata().getAnnotations()).as("the hashes stay on the machine: the agent copies them").isNullOrEmpty();
        assertThat(node.getStatus().getConditions()).anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
        assertThat(log.entries()).extracting(MachineLog.Entry::event).containsExactly(MachineLog.Event.CREATED, MachineLog.Event.REGISTERED);
        assertThat(log.entries().get(0).idempotencyKey()).isEqualTo("key-create-web-0001");
    }

    @Test
    void aKeySeenBeforeAnswersTheMachineItsFirstRequestMadeAndMakesNoOther() {
        MachineApiCloud cloud = cloud(QUICK);

        MachineApiCloud.Outcome first = cloud.createMachine("web", "key-create-web-0001", REQUEST);
        MachineApiCloud.Outcome again = cloud.createMachine("web", "key-create-web-0001", REQUEST);

        assertThat(first.repeated()).isFalse();
        assertThat(again.repeated()).isTrue();
        assertThat(again.machine().id()).isEqualTo(first.machine().id());
        assertThat(cloud.list("web")).hasSize(1);
        assertThat(log.entries()).filteredOn(e -> e.event() == MachineLog.Event.CREATED).hasSize(1);
    }

    @Test
    void aKeyFirstUsedForAnotherOperationIsRefused() {
        MachineApiCloud cloud = cloud(QUICK);
        ApiMachine machine = cloud.create("web", "key-create-web-0001", REQUEST);

        assertThatThrownBy(() -> cloud.replace(machine.id(), "key-create-web-0001", REQUEST)).isInstanceOf(MachineApiException.class)
                .hasMessageContaining("first used for a create").extracting(e -> ((MachineApiException) e).status()).isEqualTo(409);
    }

    @Test
    void aDeletedMachineIsDeletingThenItsNodeAndItAreGoneAndItsKeyMakesANewMachine() {
        MachineApiCloud cloud = cloud(QUICK);
        ApiMachine machine = cloud.create("web", "key-create-web-0001", REQUEST);
        await().atMost(Duration.ofSeconds(10)).until(() -> client.nodes().withName(machine.nodeName()).get() != null);

        assertThat(cloud.delete(machine.id())).isTrue();

        assertThat(state(cloud, "web", machine.id())).isEqualTo(MachineState.DELETING);
        await().atMost(Duration.ofSeconds(10)).until(() -> cloud.list("web").isEmpty());
        assertThat(client.nodes().withName(machine.nodeName()).get()).as("its node").isNull();
        assertThat(cloud.delete(machine.id())).as("a machine already gone").isFalse();
        MachineApiCloud.Outcome again = cloud.createMachine("web", "key-create-web-0001", REQUEST);
        assertThat(again.repeated()).as("the key was forgotten with its machine").isFalse();
        assertThat(again.machine().id()).isNotEqualTo(machine.id());
        assertThat(log.entries()).extracting(MachineLog.Entry::event).containsSubsequence(MachineLog.Event.DELETING, MachineLog.Event.GONE,
                MachineLog.Event.CREATED);
    }

    @Test
    void aReplaceLeavesTheOldMachineDeletingAndItsReplacementCreatingInOneStepAndRepeatedMakesNoThird() {
        MachineApiCloud cloud = cloud(QUICK);
        ApiMachine old = cloud.seed("web", 1, Map.of("tier", "front"), Map.of()).get(0);
        Set<Integer> sizes = ConcurrentHashMap.newKeySet();

        ApiMachine replacement = cloud.replace(old.id(), "key-replace-web-0001", REQUEST);

        assertThat(cloud.list("web")).extracting(ApiMachine::id, ApiMachine::state).containsExactly(
                org.assertj.core.groups.Tuple.tuple(old.id(), MachineState.DELETING),
                org.assertj.core.groups.Tuple.tuple(replacement.id(), MachineState.CREATING));
        MachineApiCloud.Outcome again = cloud.replaceMachine(old.id(), "key-replace-web-0001", REQUEST);
        assertThat(again.repeated()).isTrue();
        assertThat(again.machine().id()).isEqualTo(replacement.id());
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            sizes.add(cloud.list("web").size());
            return cloud.list("web").stream().map(ApiMachine::state).toList().equals(List.of(MachineState.RUNNING));
        });
        assertThat(sizes).as("machines listed while it ran: never fewer than one").doesNotContain(0);
        assertThat(client.nodes().withName(old.nodeName()).get()).isNull();
        assertThat(client.nodes().withName(replacement.nodeName()).get()).isNotNull();
        assertThat(log.entries()).filteredOn(e -> e.event() == MachineLog.Event.REPLACED).singleElement()
                .satisfies(e -> assertThat(e.replacedBy()).isEqualTo(replacement.id()));
        assertThat(log.entries()).filteredOn(e -> e.event() == MachineLog.Event.CREATED).singleElement()
                .satisfies(e -> assertThat(e.replaces()).isEqualTo(old.id()));
    }

    @Test
    void aMachineBeingDeletedIsNotReplaced() {
        MachineApiCloud cloud = cloud(QUICK);
        ApiMachine old = cloud.seed("web", 1, Map.of(), Map.of()).get(0);
        cloud.delete(old.id());

        assertThatThrownBy(() -> cloud.replace(old.id(), "key-replace-web-0001", REQUEST)).isInstanceOf(MachineApiException.class)
                .extracting(e -> ((MachineApiException) e).status()).isEqualTo(409);
        assertThat(cloud.list("web")).hasSize(1);
    }

    @Test
    void anInPlaceUpdateMakesTheNodeNotReadyThenTheMachineRunsWithTheNewAnnotationsMerged() {
        MachineApiCloud cloud = cloud(QUICK);
        ApiMachine machine = cloud.seed("web", 1, Map.of(), Map.of("nightshift.dev/roll-hash", "r0", "keep", "me")).get(0);

        cloud.update(machine.id(), "key-update-web-0001", new UpdateRequest(UpdateRequest.Operation.IN_PLACE_UPDATE,
                Map.of("nightshift.dev/roll-hash", "r1"), SPEC));

        assertThat(state(cloud, "web", machine.id())).isEqualTo(MachineState.UPDATING);
        assertThat(ready(machine.nodeName())).as("the node during the update").isFalse();
        await().atMost(Duration.ofSeconds(10)).until(() -> state(cloud, "web", machine.id()) == MachineState.RUNNING);
        assertThat(cloud.machine(machine.id()).orElseThrow().annotations())
                .isEqualTo(Map.of("nightshift.dev/roll-hash", "r1", "keep", "me"));
        assertThat(ready(machine.nodeName())).as("the node after").isTrue();
        assertThat(client.nodes().withName(machine.nodeName()).get().getMetadata().getAnnotations()).isNullOrEmpty();
        assertThat(log.entries()).extracting(MachineLog.Entry::event).containsSubsequence(MachineLog.Event.UPDATE_STARTED,
                MachineLog.Event.UPDATED);
    }

    @Test
    void aKubeletRestartLeavesTheNodeReadyAndARepeatedKeyStartsNothing() {
        MachineApiCloud cloud = cloud(QUICK);
        ApiMachine machine = cloud.seed("web", 1, Map.of(), Map.of()).get(0);
        UpdateRequest restart = new UpdateRequest(UpdateRequest.Operation.RESTART_KUBELET, Map.of("nightshift.dev/kubelet-hash", "k2"),
                SPEC);

        cloud.update(machine.id(), "key-restart-web-0001", restart);
        assertThat(ready(machine.nodeName())).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> state(cloud, "web", machine.id()) == MachineState.RUNNING);
        MachineApiCloud.Outcome again = cloud.updateMachine(machine.id(), "key-restart-web-0001", restart);

        assertThat(again.repeated()).isTrue();
        assertThat(state(cloud, "web", machine.id())).isEqualTo(MachineState.RUNNING);
        assertThat(log.entries()).filteredOn(e -> e.event() == MachineLog.Event.UPDATE_STARTED).hasSize(1);
    }

    @Test
    void anInjectedUpdateFailureLeavesTheMachineFailedWithAMessage() {
        MachineApiCloud cloud = cloud(new MachineApiCloud.Behaviour(QUICK.createDelay(), QUICK.deleteDelay(), QUICK.updateDelay(),
                QUICK.restartDelay(), 0, 1));
        ApiMachine machine = cloud.seed("web", 1, Map.of(), Map.of("nightshift.dev/roll-hash", "r0")).get(0);

        cloud.update(machine.id(), "key-update-web-0001", new UpdateRequest(UpdateRequest.Operation.IN_PLACE_UPDATE,
                Map.of("nightshift.dev/roll-hash", "r1"), SPEC));

        await().atMost(Duration.ofSeconds(10)).until(() -> state(cloud, "web", machine.id()) == MachineState.FAILED);
        ApiMachine failed = cloud.machine(machine.id()).orElseThrow();
        assertThat(failed.message()).contains("in-place-update", "failed");
        assertThat(failed.annotations()).as("not the target's").containsEntry("nightshift.dev/roll-hash", "r0");
    }

    @Test
    void anInjectedCreateFailureLeavesTheMachineFailedWithoutANode() {
        MachineApiCloud cloud = cloud(new MachineApiCloud.Behaviour(QUICK.createDelay(), QUICK.deleteDelay(), QUICK.updateDelay(),
                QUICK.restartDelay(), 1, 0));

        ApiMachine machine = cloud.create("web", "key-create-web-0001", REQUEST);

        await().atMost(Duration.ofSeconds(10)).until(() -> state(cloud, "web", machine.id()) == MachineState.FAILED);
        assertThat(cloud.machine(machine.id()).orElseThrow().message()).contains("did not boot");
        assertThat(client.nodes().withName(machine.nodeName()).get()).isNull();
    }

    @Test
    void patchingAnnotationsMergesThemAndANullRemovesOne() {
        MachineApiCloud cloud = cloud(QUICK);
        ApiMachine machine = cloud.seed("web", 1, Map.of(), Map.of("a", "1", "b", "2")).get(0);
        Map<String, String> patch = new HashMap<>();
        patch.put("a", null);
        patch.put("c", "3");

        ApiMachine patched = cloud.patchAnnotations(machine.id(), patch);

        assertThat(patched.annotations()).isEqualTo(Map.of("b", "2", "c", "3"));
        assertThatThrownBy(() -> cloud.patchAnnotations("m-nowhere-1", Map.of("a", "1"))).isInstanceOf(MachineApiException.class)
                .extracting(e -> ((MachineApiException) e).status()).isEqualTo(404);
    }

    @Test
    void seededMachinesRunAtOnceWithTheirNodesAndAPoolNeverSeenListsNothing() {
        MachineApiCloud cloud = cloud(QUICK);

        List<ApiMachine> seeded = cloud.seed("batch", 2, Map.of("tier", "batch"),
                List.of(new MachineRequest.Taint("batch", "true", "NoExecute")), Map.of("nightshift.dev/roll-hash", "r1"));

        assertThat(seeded).extracting(ApiMachine::nodeName).containsExactly("batch-1", "batch-2");
        assertThat(seeded).extracting(ApiMachine::state).containsOnly(MachineState.RUNNING);
        assertThat(client.nodes().withName("batch-2").get().getMetadata().getLabels())
                .isEqualTo(Map.of("tier", "batch", "kubernetes.io/hostname", "batch-2"));
        assertThat(client.nodes().withName("batch-2").get().getSpec().getTaints()).extracting(Taint::getKey).containsExactly("batch");
        assertThat(cloud.list("batch")).hasSize(2);
        assertThat(cloud.list("nowhere")).isEmpty();
    }

    private static MachineState state(MachineApiCloud cloud, String pool, String id) {
        return cloud.list(pool).stream().filter(m -> m.id().equals(id)).map(ApiMachine::state).findFirst().orElse(null);
    }

    private boolean ready(String node) {
        return client.nodes().withName(node).get().getStatus().getConditions().stream()
                .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
    }
}
