package dev.nightshift.agent.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.strategies.model.MaintenanceState;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;

/** What the agent accepted, kept in the pool records and read back, against the fabric8 mock API server in CRUD mode. */
@EnableKubernetesMockClient(crud = true)
class AcceptedSpecsIT {

    private static final String NAMESPACE = "nightshift-system";

    KubernetesClient client;

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
        for (String pool : pools) {
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
        SimulatedMachineProvider provider = new SimulatedMachineProvider(client, cloud, Clock.systemUTC(), new Random(1), pool -> false,
                new SimulatedMachineProvider.Behaviour(Duration.ofMillis(100), Duration.ofMillis(100), Duration.ofMillis(100), 0, 0));
        observer = new ClusterObserver(client, NAMESPACE, provider, () -> {
        });
        observer.start();
    }

    @AfterEach
    void stop() {
        observer.close();
        cloud.shutdownNow();
    }

    private AcceptedSpecs accepted() {
        return new AcceptedSpecs(client, observer, "demo", NAMESPACE, RollbackNotes.NONE, new dev.nightshift.agent.health.EvictedWorkloads());
    }

    private Optional<String> actingCommit(AcceptedSpecs accepted) {
        return accepted.acting().map(AcceptedSpecs.Acting::commit);
    }

    @Test
    void aTakenCommitWrittenIntoThePoolRecordsIsWhatTheNextLeaderActsOn() {
        AcceptedSpecs first = accepted();
        first.rebuildFromRecords();
        first.takeOffered(new SpecRevision("c0ffee1", spec("1631.0.0", "web", "api"), Instant.now()));
        assertThat(actingCommit(first)).contains("c0ffee1");

        new PoolRecordWriter(client, observer, NAMESPACE, first)
                .write(Map.of(), observer.observe(MaintenanceState.CLOSED, true, Set.of("web", "api")));

        assertThat(client.configMaps().inNamespace(NAMESPACE).withLabel(PoolStatusRecords.LABEL).list().getItems())
                .extracting(cm -> cm.getData().get(PoolStatusRecords.ACCEPTED_COMMIT))
                .containsExactlyInAnyOrder("c0ffee1", "c0ffee1");
        AcceptedSpecs next = accepted();
        next.rebuildFromRecords();
        assertThat(actingCommit(next)).contains("c0ffee1");
        assertThat(next.acting().orElseThrow().pools()).containsOnlyKeys("web", "api");
        assertThat(next.acting().orElseThrow().pools()).isEqualTo(first.acting().orElseThrow().pools());
    }

    @Test
    void aPoolRecordWhoseAcceptedSpecCannotBeReadRefusesEveryCommitAndNamesItsConfigMap() {
        client.configMaps().inNamespace(NAMESPACE).resource(PoolStatusRecords.create(NAMESPACE, "web", Map.of(
                PoolStatusRecords.ACCEPTED_COMMIT, "c0ffee1",
                PoolStatusRecords.ACCEPTED_CLUSTER, "not: [a cluster",
                PoolStatusRecords.ACCEPTED_POOL, "nor a pool"))).create();
        AcceptedSpecs accepted = accepted();
        accepted.rebuildFromRecords();

        accepted.takeOffered(new SpecRevision("beef002", spec("1632.0.0", "web"), Instant.now()));

        assertThat(accepted.acting()).isEmpty();
        assertThat(accepted.rejected()).singleElement().asString()
                .startsWith("web: the spec it accepted, kept in ConfigMap nightshift-system/nightshift-pool-web, cannot be read")
                .contains("no commit is applied until it is fixed");
    }
}
