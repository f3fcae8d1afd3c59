package dev.nightshift.agent.provider.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.nightshift.agent.TestClusters;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.provider.Machine;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.strategies.model.DesiredPool;

class HttpMachineProviderTest {

    private static final DesiredPool WEB = TestClusters.load("""
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: c}
            spec:
              kubernetes: {version: "1.31.4", kubelet: {kubeReserved: {cpu: 100m}}}
            ---
            apiVersion: nightshift.dev/v1alpha1
            kind: WorkerPool
            metadata: {name: web, cluster: c}
            spec:
              minimum: 1
              maximum: 3
              machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
              volume: {type: gp3, size: 50Gi}
              labels: {tier: web}
              taints: [{key: dedicated, value: web, effect: NoSchedule}]
              providerConfig: {subnet: a}
            """).pools().get(0);
    private static final Instant T = Instant.parse("2026-11-24T09:00:00Z");

    private final RecordingMachineApi api = new RecordingMachineApi();

    @Test
    void aPoolIsListedOnceAReconcileAndAgainAfterRefresh() {
        api.put(new ApiMachine("m-a", "web", "web-a", MachineState.RUNNING, T, Map.of(), null));
        HttpMachineProvider provider = new HttpMachineProvider(api);

        provider.machines("web");
        provider.machines("web");
        provider.create(WEB, "web-a");
        provider.machines("web");
        assertThat(api.calls("list")).as("the listing is reused and the create's answer folded into it").hasSize(1);
        assertThat(provider.machines("web")).extracting(Machine::name).containsExactlyInAnyOrder("m-a", "m-1");

        provider.refresh();
        provider.machines("web");
        assertThat(api.calls("list")).hasSize(2);
    }

    /** Answers a listing only once {@code together} listings are waiting at once: one after another, none is ever answered. */
    private static final class ListsTogether implements MachineApi {
        private final RecordingMachineApi recorded = new RecordingMachineApi();
        private final java.util.concurrent.CountDownLatch waiting;
        private final java.util.Set<String> failing = java.util.concurrent.ConcurrentHashMap.newKeySet();

        ListsTogether(int together) {
            waiting = new java.util.concurrent.CountDownLatch(together);
        }

        @Override
        public List<ApiMachine> list(String pool) {
            waiting.countDown();
            try {
                if (!waiting.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the listings came one after another");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (failing.contains(pool)) {
                throw new MachineApiException("GET /v1/pools/" + pool + "/machines: 503", 503, true);
            }
            return recorded.list(pool);
        }

        @Override
        public ApiMachine create(String pool, String key, MachineRequest request) {
            return recorded.create(pool, key, request);
        }

        @Override
        public ApiMachine replace(String id, String key, MachineRequest request) {
            return recorded.replace(id, key, request);
        }

        @Override
        public boolean delete(String id) {
            return recorded.delete(id);
        }

        @Override
        public void update(String id, String key, UpdateRequest request) {
            recorded.update(id, key, request);
        }

        @Override
        public ApiMachine patchAnnotations(String id, Map<String, String> annotations) {
            return recorded.patchAnnotations(id, annotations);
        }
    }

    @Test
    void thePoolsAPassWillReadAreListedAtOnceAndNotAgainInThatPass() {
        ListsTogether api = new ListsTogether(3);
        api.recorded.put(new ApiMachine("m-a", "web", "web-a", MachineState.RUNNING, T, Map.of(), null));
        api.recorded.put(new ApiMachine("m-b", "api", "api-b", MachineState.RUNNING, T, Map.of(), null));
        HttpMachineProvider provider = new HttpMachineProvider(api);

        provider.listAhead(List.of("web", "api", "db"));

        assertThat(provider.machines("web")).extracting(Machine::name).containsExactly("m-a");
        assertThat(provider.machines("api")).extracting(Machine::name).containsExactly("m-b");
        assertThat(provider.machines("db")).isEmpty();
        assertThat(api.recorded.calls("list")).hasSize(3);
    }

    @Test
    void aPoolWhoseListingFailedAheadIsListedAgainByItsOwnReadWhichReportsTheFailure() {
        ListsTogether api = new ListsTogether(2);
        api.failing.add("db");
        HttpMachineProvider provider = new HttpMachineProvider(api);

        provider.listAhead(List.of("web", "db"));

        assertThat(provider.machines("web")).isEmpty();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> provider.machines("db")).isInstanceOf(MachineApiException.class);
    }

    @Test
    void poolsListedAlreadyInThisPassAreNotListedAhead() {
        api.put(new ApiMachine("m-a", "web", "web-a", MachineState.RUNNING, T, Map.of(), null));
        HttpMachineProvider provider = new HttpMachineProvider(api);
        provider.machines("web");
        provider.machines("api");

        provider.listAhead(List.of("web", "api"));

        assertThat(api.calls("list")).hasSize(2);
    }

    @Test
    void machinesReportTheirHashesPartnerAndState() {
        Map<String, String> marks = new java.util.HashMap<>(NodeMarks.hashes(WEB.rollHash(), WEB.kubeletHash()));
        marks.put(NodeMarks.SURGE_FOR, "web-a");
        api.put(new ApiMachine("m-new", "web", null, MachineState.CREATING, T, marks, null));
        api.put(new ApiMachine("m-up", "web", "web-up", MachineState.UPDATING, T, Map.of(), null));
        api.put(new ApiMachine("m-gone", "web", "web-gone", MachineState.DELETING, T, Map.of(), null));
        api.put(new ApiMachine("m-broke", "web", null, MachineState.FAILED, T, Map.of(), "quota exceeded"));
        api.put(new ApiMachine("m-sick", "web", "web-sick", MachineState.FAILED, T, Map.of(), "disk failed"));
        api.put(new ApiMachine("m-other", "db", "db-1", MachineState.RUNNING, T, Map.of(), null));

        Map<String, Machine> byName = new java.util.HashMap<>();
        new HttpMachineProvider(api).machines("web").forEach(m -> byName.put(m.name(), m));

        assertThat(byName).containsOnlyKeys("m-new", "m-up", "m-gone", "m-broke", "m-sick");
        Machine created = byName.get("m-new");
        assertThat(created.rollHash()).isEqualTo(WEB.rollHash());
        assertThat(created.kubeletHash()).isEqualTo(WEB.kubeletHash());
        assertThat(created.surgeFor()).contains("web-a");
        assertThat(created.running()).isFalse();
        assertThat(created.node()).isEmpty();
        assertThat(byName.get("m-up").running()).as("an updating machine is up").isTrue();
        assertThat(byName.get("m-up").node()).contains("web-up");
        assertThat(byName.get("m-gone").deleting()).isTrue();
        assertThat(byName.get("m-broke").createdAt()).as("a failed machine without a node is past creationTimeout at once")
                .isEqualTo(Instant.EPOCH);
        assertThat(byName.get("m-sick").healthCheckFailed()).as("a failed machine with a node is unavailable").isTrue();
        assertThat(byName.get("m-sick").createdAt()).as("its node, if it registered, tells its own age").isEqualTo(Instant.EPOCH);
    }

    @Test
    void aCreateAsksForThePoolsSpecWithItsHashesAndLeavesThePoolLabelToTheAgent() {
        new HttpMachineProvider(api).create(WEB, "web-a");

        MachineRequest request = (MachineRequest) api.calls("create").get(0).body();
        assertThat(request.labels()).isEqualTo(Map.of("tier", "web"));
        assertThat(request.annotations()).containsAllEntriesOf(NodeMarks.hashes(WEB.rollHash(), WEB.kubeletHash()))
                .containsEntry(NodeMarks.SURGE_FOR, "web-a");
        assertThat(request.taints()).containsExactly(new MachineRequest.Taint("dedicated", "web", "NoSchedule"),
                new MachineRequest.Taint(NodeMarks.STARTUP_TAINT, "true", "NoSchedule"));
        MachineSpec spec = request.spec();
        assertThat(spec.machineType()).isEqualTo("m5.large");
        assertThat(spec.image()).isEqualTo(new MachineSpec.Image("gardenlinux", "1631.0.0"));
        assertThat(spec.volume()).isEqualTo(new MachineSpec.Volume("gp3", "50Gi"));
        assertThat(spec.kubernetesVersion()).isEqualTo("1.31.4");
        assertThat(spec.kubelet()).isEqualTo(Map.of("kubeReserved", Map.of("cpu", "100m")));
        assertThat(spec.providerConfig()).isEqualTo(Map.of("subnet", "a"));
    }

    @Test
    void aSurgeCreateRepeatedByARestartedAgentCarriesTheSameKeyAndMakesNoSecondMachine() {
        api.put(new ApiMachine("m-a", "web", "web-a", MachineState.RUNNING, T, Map.of(), null));
        new HttpMachineProvider(api).create(WEB, "web-a");
        // The answer was lost and the agent crashed: a new process asks again.
        HttpMachineProvider restarted = new HttpMachineProvider(api);
        restarted.create(WEB, "web-a");

        assertThat(api.calls("create")).extracting(RecordingMachineApi.Call::key).hasSize(2).doesNotContainNull();
        assertThat(api.calls("create").get(0).key()).isEqualTo(api.calls("create").get(1).key());
        assertThat(api.machines).hasSize(2);
        assertThat(api.calls("create").get(0).key()).isEqualTo(IdempotencyKeys.of("web", "create", "surge-for:web-a",
                WEB.rollHash().toString()));
    }

    @Test
    void plainCreatesInOneReconcileAreToldApartAndAreStableForTheSameListing() {
        HttpMachineProvider provider = new HttpMachineProvider(api);
        provider.create(WEB, "");
        provider.create(WEB, null);
        assertThat(api.machines).as("two creates, two machines").hasSize(2);

        // Another agent on the same listing (nothing made yet) asks with the first key again.
        RecordingMachineApi fresh = new RecordingMachineApi();
        new HttpMachineProvider(fresh).create(WEB, null);
        assertThat(fresh.calls("create").get(0).key()).isEqualTo(api.calls("create").get(0).key());
    }

    @Test
    void aReplacementIsOneCallFoldedIntoTheListing() {
        api.put(new ApiMachine("m-a", "web", "web-a", MachineState.RUNNING, T, Map.of(), null));
        HttpMachineProvider provider = new HttpMachineProvider(api);

        MachineProvider.Deletion d = provider.delete(WEB, "web-a", true);

        assertThat(d.started()).isTrue();
        assertThat(api.calls).extracting(RecordingMachineApi.Call::operation).containsExactly("list", "replace");
        assertThat(api.calls("replace").get(0).key()).isEqualTo(IdempotencyKeys.of("web", "replace", "m-a", WEB.rollHash().toString()));
        assertThat(provider.machines("web")).extracting(Machine::name, Machine::deleting)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("m-a", true), org.assertj.core.groups.Tuple.tuple("m-1", false));
    }

    @Test
    void deletingFindsTheMachineByNodeOrIdAndAGoneMachineIsDone() {
        api.put(new ApiMachine("m-a", "web", "web-a", MachineState.RUNNING, T, Map.of(), null));
        api.put(new ApiMachine("m-b", "web", null, MachineState.CREATING, T, Map.of(), null));
        HttpMachineProvider provider = new HttpMachineProvider(api);

        assertThat(provider.delete(WEB, "web-a", false).started()).isTrue();
        assertThat(provider.delete(WEB, "m-b", false).started()).isTrue();
        assertThat(provider.delete(WEB, "web-a", false).detail()).as("asked again in the same reconcile").contains("being deleted");
        assertThat(provider.delete(WEB, "web-zz", false).detail()).contains("already gone");
        assertThat(api.calls("delete")).extracting(RecordingMachineApi.Call::subject).containsExactly("m-a", "m-b");
    }

    @Test
    void stampingPatchesTheMachinesAnnotations() {
        api.put(new ApiMachine("m-bastion", "web", null, MachineState.RUNNING, T, Map.of(), null));
        HttpMachineProvider provider = new HttpMachineProvider(api);

        provider.stamp("web", "m-bastion", WEB.rollHash(), WEB.kubeletHash());

        assertThat(api.machines.get("m-bastion").annotations()).isEqualTo(NodeMarks.hashes(WEB.rollHash(), WEB.kubeletHash()));
        assertThat(provider.machines("web").get(0).rollHash()).isEqualTo(WEB.rollHash());
    }

    @Test
    void whileMachinesChangeOnTheirOwnAReconcileIsAskedForEveryPoll() throws Exception {
        api.put(new ApiMachine("m-a", "web", null, MachineState.CREATING, T, Map.of(), null));
        AtomicInteger asked = new AtomicInteger();
        try (HttpMachineProvider provider = new HttpMachineProvider(api, Duration.ofMillis(50))) {
            provider.start(asked::incrementAndGet);
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> asked.get() == 0);
            provider.machines("web");
            await().atMost(Duration.ofSeconds(5)).until(() -> asked.get() >= 2);

            api.put(new ApiMachine("m-a", "web", "web-a", MachineState.RUNNING, T, Map.of(), null));
            provider.refresh();
            provider.machines("web");
            int settled = asked.get();
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> asked.get() <= settled + 1);
        }
    }

    @Test
    void aListingOfRunningMachinesServesLaterReconcilesUntilANodeOfThePoolChangesOrItIsOld() {
        api.put(new ApiMachine("m-a", "web", "web-a", MachineState.RUNNING, T, Map.of(), null));
        api.put(new ApiMachine("m-d", "db", "db-a", MachineState.RUNNING, T, Map.of(), null));
        api.put(new ApiMachine("m-q", "quiet", "quiet-a", MachineState.RUNNING, T, Map.of(), null));
        api.put(new ApiMachine("m-b", "bastion", null, MachineState.RUNNING, T, Map.of(), null));
        java.util.concurrent.atomic.AtomicReference<Instant> now = new java.util.concurrent.atomic.AtomicReference<>(T);
        java.time.Clock clock = new java.time.Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return java.time.ZoneOffset.UTC;
            }

            @Override
            public java.time.Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now.get();
            }
        };
        HttpMachineProvider provider = new HttpMachineProvider(api, HttpMachineProvider.POLL, clock);
        java.util.List<String> pools = java.util.List.of("web", "db", "quiet", "bastion");
        pools.forEach(provider::machines);

        for (int reconcile = 0; reconcile < 3; reconcile++) {
            now.set(now.get().plusSeconds(30));
            provider.refresh();
            pools.forEach(provider::machines);
        }
        assertThat(api.calls("list")).as("quiet pools are listed once").hasSize(4);

        provider.nodeChanged("web");
        provider.refresh();
        pools.forEach(provider::machines);
        assertThat(api.calls("list")).as("a node of web changed: web alone is listed again").hasSize(5);

        provider.nodeRegistered("db-a");
        provider.refresh();
        pools.forEach(provider::machines);
        assertThat(api.calls("list")).as("db's node registered: db, and bastion (whose machine's node is not known), are listed again")
                .hasSize(7);

        now.set(now.get().plus(HttpMachineProvider.RELIST));
        provider.refresh();
        provider.machines("web");
        assertThat(api.calls("list")).as("a listing RELIST old is not used").hasSize(8);
    }

    @Test
    void aPoolWithAMachineThatChangesOnItsOwnIsListedAtEveryReconcile() {
        api.put(new ApiMachine("m-a", "web", "web-a", MachineState.RUNNING, T, Map.of(), null));
        HttpMachineProvider provider = new HttpMachineProvider(api);
        provider.machines("web");
        provider.create(WEB, "web-a");

        provider.refresh();
        assertThat(provider.machines("web")).as("the created machine is read from the API, not the folded answer")
                .extracting(Machine::name).containsExactlyInAnyOrder("m-a", "m-1");
        provider.refresh();
        provider.machines("web");
        assertThat(api.calls("list")).hasSize(3);

        api.put(new ApiMachine("m-1", "web", "web-1", MachineState.RUNNING, T, Map.of(), null));
        provider.refresh();
        provider.machines("web");
        provider.refresh();
        provider.machines("web");
        assertThat(api.calls("list")).as("once every machine runs, the listing is used again").hasSize(4);
    }

    @Test
    void aFailedMachineKeepsItsPoolListedAtEveryReconcile() {
        api.put(new ApiMachine("m-broke", "web", null, MachineState.FAILED, T, Map.of(), "quota exceeded"));
        HttpMachineProvider provider = new HttpMachineProvider(api);
        provider.machines("web");
        provider.refresh();
        provider.machines("web");
        assertThat(api.calls("list")).hasSize(2);
    }
}
