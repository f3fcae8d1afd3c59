package dev.nightshift.agent.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.model.HealthCheck;
import dev.nightshift.strategies.model.HealthVerdict;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;

/** The evicted pods' Deployments and StatefulSets must be fully available again within the check's time. */
class WorkloadsAvailabilityTest {

    private static final Instant T0 = Instant.parse("2026-11-27T12:00:00Z");
    private static final HealthCheck.WorkloadsAvailable BACK = new HealthCheck.WorkloadsAvailable("back", Duration.ofMinutes(5));
    private static final EvictedWorkloads.Workload SHOP = new EvictedWorkloads.Workload("apps", "Deployment", "shop");
    private static final EvictedWorkloads.Workload DB = new EvictedWorkloads.Workload("apps", "StatefulSet", "db");

    private final EvictedWorkloads evicted = new EvictedWorkloads();
    private final Map<EvictedWorkloads.Workload, int[]> replicas = new HashMap<>();
    private final WorkloadsAvailability check = new WorkloadsAvailability(evicted, w -> Optional.ofNullable(replicas.get(w)));

    private static Pod ofReplicaSet(String name, String replicaSet, String hash) {
        return new PodBuilder().withNewMetadata().withNamespace("apps").withName(name).addToLabels("pod-template-hash", hash)
                .addNewOwnerReference().withKind("ReplicaSet").withName(replicaSet).endOwnerReference().endMetadata().build();
    }

    private static Pod ofStatefulSet(String name, String set) {
        return new PodBuilder().withNewMetadata().withNamespace("apps").withName(name)
                .addNewOwnerReference().withKind("StatefulSet").withName(set).endOwnerReference().endMetadata().build();
    }

    @Test
    void aPodsWorkloadIsItsDeploymentOrStatefulSet() {
        assertThat(EvictedWorkloads.owner(ofReplicaSet("shop-7d9f-abc", "shop-7d9f", "7d9f"))).contains(SHOP);
        assertThat(EvictedWorkloads.owner(ofStatefulSet("db-0", "db"))).contains(DB);
        assertThat(EvictedWorkloads.owner(new PodBuilder().withNewMetadata().withNamespace("apps").withName("lonely").endMetadata()
                .build())).isEmpty();
    }

    @Test
    void aWorkloadStillShortWithinItsTimeDoesNotFail() {
        evicted.evicted("web", ofReplicaSet("shop-7d9f-abc", "shop-7d9f", "7d9f"), T0);
        replicas.put(SHOP, new int[] {2, 3});

        assertThat(check.judge("web", BACK, T0.plus(Duration.ofMinutes(4)))).isEqualTo(HealthVerdict.PASSING);
    }

    @Test
    void aWorkloadStillShortAfterItsTimeFails() {
        evicted.evicted("web", ofReplicaSet("shop-7d9f-abc", "shop-7d9f", "7d9f"), T0);
        replicas.put(SHOP, new int[] {2, 3});

        assertThat(check.judge("web", BACK, T0.plus(Duration.ofMinutes(5))))
                .isEqualTo(new HealthVerdict.Failing("back", "apps/Deployment/shop 2/3 available after 5m", "available within 5m"));
    }

    @Test
    void aWorkloadBackIsNoLongerFollowed() {
        evicted.evicted("web", ofStatefulSet("db-0", "db"), T0);
        replicas.put(DB, new int[] {3, 3});

        assertThat(check.judge("web", BACK, T0.plusSeconds(30))).isEqualTo(HealthVerdict.PASSING);
        replicas.put(DB, new int[] {1, 3});
        assertThat(check.judge("web", BACK, T0.plus(Duration.ofHours(1)))).as("a later outage is not this drain's").isEqualTo(HealthVerdict.PASSING);
        assertThat(evicted.of("web")).isEmpty();
    }

    @Test
    void aWorkloadReadWholeRightAfterItsEvictionIsStillFollowed() {
        // Its controller has not counted the evicted pod yet: the read cannot tell that it came back.
        evicted.evicted("web", ofReplicaSet("shop-7d9f-abc", "shop-7d9f", "7d9f"), T0);
        replicas.put(SHOP, new int[] {3, 3});

        assertThat(check.judge("web", BACK, T0.plusMillis(50))).isEqualTo(HealthVerdict.PASSING);
        assertThat(evicted.of("web")).containsOnlyKeys(SHOP);
        replicas.put(SHOP, new int[] {2, 3});
        assertThat(check.judge("web", BACK, T0.plus(Duration.ofMinutes(5))))
                .isEqualTo(new HealthVerdict.Failing("back", "apps/Deployment/shop 2/3 available after 5m", "available within 5m"));
    }

    @Test
    void aWorkloadIsJudgedBackOnlyByAReadWellAfterItsLastEviction() {
        evicted.evicted("web", ofReplicaSet("shop-7d9f-abc", "shop-7d9f", "7d9f"), T0);
        evicted.evicted("web", ofReplicaSet("shop-7d9f-def", "shop-7d9f", "7d9f"), T0.plusSeconds(10));
        replicas.put(SHOP, new int[] {3, 3});

        check.judge("web", BACK, T0.plusSeconds(12));
        assertThat(evicted.of("web")).as("2 s after its second eviction").containsEntry(SHOP, T0);
        check.judge("web", BACK, T0.plusSeconds(10).plus(WorkloadsAvailability.SETTLE));
        assertThat(evicted.of("web")).as("%s after it", WorkloadsAvailability.SETTLE).isEmpty();
    }

    @Test
    void aCheckShorterThanTheSettlingTimeJudgesAWorkloadReadWholeTooSoonAtItsEnd() {
        HealthCheck.WorkloadsAvailable quick = new HealthCheck.WorkloadsAvailable("back", Duration.ofSeconds(3));
        evicted.evicted("web", ofReplicaSet("shop-7d9f-abc", "shop-7d9f", "7d9f"), T0);
        replicas.put(SHOP, new int[] {6, 6});

        assertThat(check.judge("web", quick, T0.plusMillis(53))).isEqualTo(HealthVerdict.PASSING);
        replicas.put(SHOP, new int[] {4, 6});
        assertThat(check.judge("web", quick, T0.plusSeconds(3)))
                .isEqualTo(new HealthVerdict.Failing("back", "apps/Deployment/shop 4/6 available after 3s", "available within 3s"));
    }

    @Test
    void aWorkloadThatNoLongerExistsIsNoLongerFollowed() {
        evicted.evicted("web", ofStatefulSet("db-0", "db"), T0);

        assertThat(check.judge("web", BACK, T0.plusMillis(50))).isEqualTo(HealthVerdict.PASSING);
        assertThat(evicted.of("web")).isEmpty();
    }

    @Test
    void anotherPoolsEvictionsDoNotCount() {
        evicted.evicted("batch", ofStatefulSet("db-0", "db"), T0);
        replicas.put(DB, new int[] {0, 3});

        assertThat(check.judge("web", BACK, T0.plus(Duration.ofHours(1)))).isEqualTo(HealthVerdict.PASSING);
    }

    @Test
    void aWorkloadThatCannotBeReadIsUnknown() {
        evicted.evicted("web", ofStatefulSet("db-0", "db"), T0);
        WorkloadsAvailability failing = new WorkloadsAvailability(evicted, w -> {
            throw new IllegalStateException("403");
        });

        assertThat(failing.judge("web", BACK, T0)).isEqualTo(new HealthVerdict.Unknown("back", "apps/StatefulSet/db cannot be read: IllegalStateException"));
    }

    @Test
    void theRecordsFormReadsBackTheSameWorkloadsAndTimes() {
        evicted.evicted("web", ofStatefulSet("db-0", "db"), T0.plusSeconds(5));
        evicted.evicted("web", ofReplicaSet("shop-7d9f-abc", "shop-7d9f", "7d9f"), T0);

        String json = EvictedWorkloads.json(evicted.of("web"));

        assertThat(json).isEqualTo("[{\"namespace\":\"apps\",\"kind\":\"Deployment\",\"name\":\"shop\",\"evictedAt\":\"2026-11-27T12:00:00Z\"},"
                + "{\"namespace\":\"apps\",\"kind\":\"StatefulSet\",\"name\":\"db\",\"evictedAt\":\"2026-11-27T12:00:05Z\"}]");
        assertThat(EvictedWorkloads.read(json)).isEqualTo(Map.of(SHOP, T0, DB, T0.plusSeconds(5)));
        assertThat(EvictedWorkloads.read("not json")).as("a record edited by hand").isEmpty();
    }

    @Test
    void aWorkloadRestoredFromTheRecordsStillFailsAfterItsTime() {
        // A new agent: nothing evicted in its memory, the record says what the last one followed.
        evicted.restore(Map.of("web", EvictedWorkloads.read(EvictedWorkloads.json(Map.of(SHOP, T0)))));
        replicas.put(SHOP, new int[] {0, 3});

        assertThat(check.judge("web", BACK, T0.plus(Duration.ofMinutes(6))))
                .isEqualTo(new HealthVerdict.Failing("back", "apps/Deployment/shop 0/3 available after 6m", "available within 5m"));
    }

    @Test
    void restoringReplacesWhatThisReplicaHeldAndAPoolAtRestForgetsAll() {
        evicted.evicted("batch", ofStatefulSet("db-0", "db"), T0);
        evicted.evicted("web", ofStatefulSet("db-0", "db"), T0);

        evicted.restore(Map.of("web", Map.of(SHOP, T0)));
        assertThat(evicted.of("batch")).as("the records are newer than a term that ended").isEmpty();
        assertThat(evicted.of("web")).containsOnlyKeys(SHOP);

        check.atRest("web");
        assertThat(evicted.of("web")).isEmpty();
    }
}
