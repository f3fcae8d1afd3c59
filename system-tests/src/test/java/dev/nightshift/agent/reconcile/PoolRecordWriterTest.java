package dev.nightshift.agent.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.nightshift.agent.git.SpecRevision;
import dev.nightshift.agent.kube.ClusterObserver;
import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.strategies.model.MaintenanceState;
import io.fabric8.kubernetes.api.model.ConfigMap;

/** A pool's record written over the record as last observed, against the embedded API server: judged from its requests. */
class PoolRecordWriterTest {

    private static final String NAMESPACE = "nightshift-system";
    private static final String RECORD = "/api/v1/namespaces/" + NAMESPACE + "/configmaps/" + PoolStatusRecords.name("web");

    private final EmbeddedKubernetes kube = EmbeddedKubernetes.start();
    private ScheduledExecutorService cloud;
    private ClusterObserver observer;

    private static SpecSet spec(String imageVersion, String... pools) {
        StringBuilder yaml = new StringBuilder("""
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: demo}
                spec:
                  kubernetes: {version: "1.31.4"}
                """);
        for (String pool : pools.length == 0 ? new String[] {"web"} : pools) {
            yaml.append("""
                    ---
                    apiVersion: nightshift.dev/v1alpha1
                    kind: WorkerPool
                    metadata: {name: %s, cluster: demo}
                    spec:
                      minimum: 1
                      maximum: 3
                      maxSurge: 1
                      maxUnavailable: 0
                      machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                    """.formatted(pool, imageVersion));
        }
        LoadResult loaded = new SpecLoader().load(Map.of("spec.yaml", yaml.toString().getBytes(StandardCharsets.UTF_8)));
        assertThat(loaded.errors()).isEmpty();
        return loaded.specs();
    }

    @BeforeEach
    void start() throws Exception {
        cloud = Executors.newScheduledThreadPool(1);
        SimulatedMachineProvider provider = new SimulatedMachineProvider(kube.client(), cloud, Clock.systemUTC(), new Random(1),
                pool -> false, new SimulatedMachineProvider.Behaviour(Duration.ofMillis(100), Duration.ofMillis(100),
                Duration.ofMillis(100), 0, 0));
        observer = new ClusterObserver(kube.client(), NAMESPACE, provider, () -> {
        });
        observer.start();
    }

    @AfterEach
    void stop() {
        observer.close();
        cloud.shutdownNow();
        kube.close();
    }

    /** Writes the records of {@code pools} (web without) for {@code commit}, then waits until the observer has seen them. */
    private AcceptedSpecs written(String commit, String imageVersion, String... pools) {
        AcceptedSpecs accepted = new AcceptedSpecs(kube.client(), observer, "demo", NAMESPACE, RollbackNotes.NONE,
                new dev.nightshift.agent.health.EvictedWorkloads());
        accepted.rebuildFromRecords();
        accepted.takeOffered(new SpecRevision(commit, spec(imageVersion, pools), Instant.now()));
        Set<String> names = pools.length == 0 ? Set.of("web") : Set.of(pools);
        new PoolRecordWriter(kube.client(), observer, NAMESPACE, accepted).write(Map.of(),
                observer.observe(MaintenanceState.CLOSED, true, names));
        await().atMost(Duration.ofSeconds(10)).until(() -> names.stream().allMatch(pool -> observer.statusRecord(NAMESPACE, pool)
                .map(ConfigMap::getData).map(d -> commit.equals(d.get(PoolStatusRecords.ACCEPTED_COMMIT))).orElse(false)));
        return accepted;
    }

    private List<RecordedRequest> recordRequests() {
        return kube.requests().stream().filter(r -> r.resourcePath().equals(RECORD)).toList();
    }

    private String stored(String key) {
        return kube.client().configMaps().inNamespace(NAMESPACE).withName(PoolStatusRecords.name("web")).get().getData().get(key);
    }

    @Test
    void aChangedRecordIsOnePatchOverTheRecordAsObservedWithoutReadingItFirst() {
        written("c0ffee1", "1631.0.0");
        kube.clearRequests();

        written("beef002", "1632.0.0");

        assertThat(recordRequests()).extracting(RecordedRequest::method, RecordedRequest::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("PATCH", 200));
        assertThat(stored(PoolStatusRecords.ACCEPTED_COMMIT)).isEqualTo("beef002");
    }

    @Test
    void aRecordChangedSinceItWasObservedIsReadAndWrittenAgain() {
        written("c0ffee1", "1631.0.0");
        kube.clearRequests();
        // Someone else's write lands between the observation and the patch.
        kube.changeBeforeNext("PATCH", RECORD, "beef002", "{\"metadata\": {\"annotations\": {\"example.com/touched\": \"yes\"}}}");

        written("beef002", "1632.0.0");

        List<RecordedRequest> requests = recordRequests().stream().filter(r -> !r.userAgent().equals(EmbeddedKubernetes.INTERFERENCE)).toList();
        assertThat(requests.get(0).status()).isEqualTo(409);
        assertThat(requests.subList(1, requests.size())).extracting(RecordedRequest::method).startsWith("GET");
        assertThat(stored(PoolStatusRecords.ACCEPTED_COMMIT)).isEqualTo("beef002");
        assertThat(kube.client().configMaps().inNamespace(NAMESPACE).withName(PoolStatusRecords.name("web")).get().getMetadata()
                .getAnnotations()).containsEntry("example.com/touched", "yes");
    }

    @Test
    void theChangedRecordsOfSeveralPoolsAreEachWrittenOnce() {
        written("c0ffee1", "1631.0.0", "web", "api", "db");
        kube.clearRequests();

        written("beef002", "1632.0.0", "web", "api", "db");

        assertThat(kube.requests()).filteredOn(r -> r.resourcePath().contains("/configmaps/")).extracting(RecordedRequest::resourcePath,
                RecordedRequest::method).containsExactlyInAnyOrder(
                org.assertj.core.groups.Tuple.tuple(RECORD, "PATCH"),
                org.assertj.core.groups.Tuple.tuple(RECORD.replace("-web", "-api"), "PATCH"),
                org.assertj.core.groups.Tuple.tuple(RECORD.replace("-web", "-db"), "PATCH"));
    }

    @Test
    void aKeyTheRecordNoLongerHoldsIsRemoved() {
        written("c0ffee1", "1631.0.0");
        kube.client().configMaps().inNamespace(NAMESPACE).withName(PoolStatusRecords.name("web"))
                .edit(cm -> {
                    cm.getData().put("left-over", "from an older version");
                    return cm;
                });
        await().atMost(Duration.ofSeconds(10)).until(() -> observer.statusRecord(NAMESPACE, "web").map(ConfigMap::getData)
                .map(d -> d.containsKey("left-over")).orElse(false));

        written("beef002", "1632.0.0");

        assertThat(stored("left-over")).isNull();
        assertThat(Optional.ofNullable(stored(PoolStatusRecords.ACCEPTED_COMMIT))).contains("beef002");
    }
}
