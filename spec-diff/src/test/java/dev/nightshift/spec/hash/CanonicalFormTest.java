package dev.nightshift.spec.hash;

import static dev.nightshift.spec.hash.TestSpecs.CLUSTER;
import static dev.nightshift.spec.hash.TestSpecs.POOL;
import static dev.nightshift.spec.hash.TestSpecs.ROLLING;
import static dev.nightshift.spec.hash.TestSpecs.edit;
import static dev.nightshift.spec.hash.TestSpecs.kubelet;
import static dev.nightshift.spec.hash.TestSpecs.roll;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.ResolvedPool;

/** How a spec is written never changes a hash: only what it means does. */
class CanonicalFormTest {

    /** {@link TestSpecs#ROLLING} in block style throughout. */
    private static final String BLOCK_STYLE = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata:
              name: prod
            spec:
              kubernetes:
                version: "1.31.4"
                kubelet:
                  kubeReserved:
                    cpu: 80m
                    memory: 1Gi
                  systemReserved:
                    memory: 512Mi
                  evictionHard:
                    memory.available: 100Mi
                  cpuManagerPolicy: none
              systemComponents:
                nodeLocalDNS:
                  enabled: false
              credentials:
                rotation:
                  certificateAuthorities:
                    lastInitiationTime: "2026-01-01T00:00:00Z"
                    pendingWorkersRollouts:
                    - name: batch
                      lastInitiationTime: "2025-06-01T00:00:00Z"
                  serviceAccountKey:
                    lastInitiationTime: "2026-01-01T00:00:00Z"
              machineImages:
              - name: gardenlinux
                versions:
                - version: 1630.0.0
                  inPlaceUpdates:
                    supported: true
                - version: 1631.0.0
                  inPlaceUpdates:
                    supported: true
                    minVersionForUpdate: 1630.0.0
                - version: 1632.0.0
                  inPlaceUpdates:
                    supported: true
                    minVersionForUpdate: 1631.0.0
                - version: 1633.0.0
                  inPlaceUpdates:
                    supported: false
                - version: 1640.0.0
            ---
            apiVersion: nightshift.dev/v1alpha1
            kind: WorkerPool
            metadata:
              name: web
              cluster: prod
              annotations:
                owner: team-web
            spec:
              minimum: 3
              maximum: 6
              maxSurge: 1
              maxUnavailable: 0
              updateStrategy: AutoRollingUpdate
              machine:
                type: m5.large
                image:
                  name: gardenlinux
                  version: 1631.0.0
              volume:
                type: gp3
                size: 50Gi
              cri:
                name: containerd
              providerConfig:
                zone: eu-1a
                iops: 3000
              labels:
                tier: frontend
              taints:
              - key: dedicated
                value: web
                effect: NoSchedule
              minReadySeconds: 0
              interval: 15s
              drainAndTerminate: true
              machineControllerManager:
                drainTimeout: 2h
                healthTimeout: 10m
                creationTimeout: 10m
                inPlaceUpdateTimeout: 30m
            """;

    /** {@link TestSpecs#ROLLING} with the keys of every mapping in reverse order. */
    private static final String REVERSED_KEYS = """
            spec:
              machineImages:
              - versions:
                - {inPlaceUpdates: {supported: true}, version: 1630.0.0}
                - {inPlaceUpdates: {minVersionForUpdate: 1630.0.0, supported: true}, version: 1631.0.0}
                - {inPlaceUpdates: {minVersionForUpdate: 1631.0.0, supported: true}, version: 1632.0.0}
                - {inPlaceUpdates: {supported: false}, version: 1633.0.0}
                - {version: 1640.0.0}
                name: gardenlinux
              credentials:
                rotation:
                  serviceAccountKey: {lastInitiationTime: "2026-01-01T00:00:00Z"}
                  certificateAuthorities:
                    pendingWorkersRollouts: [{lastInitiationTime: "2025-06-01T00:00:00Z", name: batch}]
                    lastInitiationTime: "2026-01-01T00:00:00Z"
              systemComponents: {nodeLocalDNS: {enabled: false}}
              kubernetes:
                kubelet:
                  cpuManagerPolicy: none
                  evictionHard: {memory.available: 100Mi}
                  systemReserved: {memory: 512Mi}
                  kubeReserved: {memory: 1Gi, cpu: 80m}
                version: "1.31.4"
            metadata: {name: prod}
            kind: Cluster
            apiVersion: nightshift.dev/v1alpha1
            ---
            spec:
              machineControllerManager: {inPlaceUpdateTimeout: 30m, creationTimeout: 10m, healthTimeout: 10m, drainTimeout: 2h}
              drainAndTerminate: true
              interval: 15s
              minReadySeconds: 0
              taints: [{effect: NoSchedule, value: web, key: dedicated}]
              labels: {tier: frontend}
              providerConfig: {iops: 3000, zone: eu-1a}
              cri: {name: containerd}
              volume: {size: 50Gi, type: gp3}
              machine: {image: {version: 1631.0.0, name: gardenlinux}, type: m5.large}
              updateStrategy: AutoRollingUpdate
              maxUnavailable: 0
              maxSurge: 1
              maximum: 6
              minimum: 3
            metadata: {annotations: {owner: team-web}, cluster: prod, name: web}
            kind: WorkerPool
            apiVersion: nightshift.dev/v1alpha1
            """;

    private static void assertSameHashes(String variant) {
        assertThat(roll(variant)).as("roll hash").isEqualTo(roll(ROLLING));
        assertThat(kubelet(variant)).as("kubelet hash").isEqualTo(kubelet(ROLLING));
    }

    private static void assertSameHashes(String a, String b) {
        assertThat(roll(a)).as("roll hash").isEqualTo(roll(b));
        assertThat(kubelet(a)).as("kubelet hash").isEqualTo(kubelet(b));
    }

    @Test
    void keyOrderDoesNotMatter() {
        assertSameHashes(REVERSED_KEYS);
    }

    @Test
    void blockStyleHashesLikeFlowStyle() {
        assertSameHashes(BLOCK_STYLE);
    }

    @Test
    void commentsDoNotMatter() {
        String commented = ROLLING.lines()
                .map(line -> line.equals("---") ? line : "# about the next line\n" + line + "   # trailing: comment")
                .collect(Collectors.joining("\n", "# header\n", "\n"));

        assertSameHashes(commented);
    }

    @Test
    void quotingDoesNotMatter() {
        String quoted = ROLLING;
        quoted = edit(quoted, "version: \"1.31.4\"", "version: '1.31.4'");
        quoted = edit(quoted, "kubeReserved: {cpu: 80m, memory: 1Gi}", "kubeReserved: {cpu: \"80m\", 'memory': '1Gi'}");
        quoted = edit(quoted, "evictionHard: {memory.available: 100Mi}", "evictionHard: {\"memory.available\": \"100Mi\"}");
        quoted = edit(quoted, "cpuManagerPolicy: none", "cpuManagerPolicy: 'none'");
        quoted = edit(quoted, "certificateAuthorities:\n        lastInitiationTime: \"2026-01-01T00:00:00Z\"",
                "certificateAuthorities:\n        lastInitiationTime: 2026-01-01T00:00:00Z");
        quoted = edit(quoted, "type: m5.large, image: {name: gardenlinux, version: 1631.0.0}",
                "type: \"m5.large\", image: {name: 'gardenlinux', version: \"1631.0.0\"}");
        quoted = edit(quoted, "volume: {type: gp3, size: 50Gi}", "volume: {type: 'gp3', size: \"50Gi\"}");
        quoted = edit(quoted, "cri: {name: containerd}", "cri: {name: \"containerd\"}");
        quoted = edit(quoted, "zone: eu-1a", "\"zone\": 'eu-1a'");

        assertSameHashes(quoted);
    }

    @Test
    void clusterAndPoolInSeparateFilesHashLikeOneFile() {
        Map<String, byte[]> files = Map.of(
                "cluster.yaml", CLUSTER.getBytes(StandardCharsets.UTF_8),
                "pools/web.yml", POOL.replaceFirst("---\n", "").getBytes(StandardCharsets.UTF_8));
        LoadResult result = new SpecLoader().load(files);
        assertThat(result.errors()).isEmpty();
        ResolvedPool web = TestSpecs.pool(result.specs(), "prod", "web");

        assertThat(HashScheme.ROLL.compute(web)).isEqualTo(roll(ROLLING));
        assertThat(HashScheme.KUBELET.compute(web)).isEqualTo(kubelet(ROLLING));
    }

    @Test
    void documentOrderDoesNotMatter() {
        assertSameHashes(POOL.replaceFirst("---\n", "") + "---\n" + CLUSTER);
    }

    @Test
    void oneGibibyteHashesLike1024Mebibytes() {
        assertSameHashes(edit(ROLLING, "kubeReserved: {cpu: 80m, memory: 1Gi}", "kubeReserved: {cpu: 80m, memory: 1024Mi}"));
    }

    @Test
    void volumeSizeInGibibytesHashesLikeTheSameSizeInMebibytes() {
        assertSameHashes(edit(ROLLING, "size: 50Gi", "size: 51200Mi"));
    }

    @Test
    void evictionThresholdInMebibytesHashesLikeTheSameInKibibytes() {
        assertSameHashes(edit(ROLLING, "memory.available: 100Mi", "memory.available: 102400Ki"));
    }

    @Test
    void eightyMillicoresHashLikeZeroPointZeroEight() {
        assertSameHashes(edit(ROLLING, "kubeReserved: {cpu: 80m, memory: 1Gi}", "kubeReserved: {cpu: 0.08, memory: 1Gi}"));
    }

    @Test
    void halfACoreHashesLike500Millicores() {
        assertSameHashes(
                edit(ROLLING, "kubeReserved: {cpu: 80m, memory: 1Gi}", "kubeReserved: {cpu: 0.5, memory: 1Gi}"),
                edit(ROLLING, "kubeReserved: {cpu: 80m, memory: 1Gi}", "kubeReserved: {cpu: 500m, memory: 1Gi}"));
    }

    @Test
    void oneCoreHashesLike1000Millicores() {
        assertSameHashes(
                edit(ROLLING, "kubeReserved: {cpu: 80m, memory: 1Gi}", "kubeReserved: {cpu: 1, memory: 1Gi}"),
                edit(ROLLING, "kubeReserved: {cpu: 80m, memory: 1Gi}", "kubeReserved: {cpu: 1000m, memory: 1Gi}"));
    }

    @Test
    void anAmountInPlainBytesHashesLikeTheSameAmountInMebibytes() {
        assertSameHashes(edit(ROLLING, "systemReserved: {memory: 512Mi}", "systemReserved: {memory: 536870912}"));
    }

    @Test
    void anAmountWithADecimalExponentHashesLikeTheSameAmountWithABinarySuffix() {
        assertSameHashes(edit(ROLLING, "systemReserved: {memory: 512Mi}", "systemReserved: {memory: 0.536870912e9}"));
    }

    @Test
    void providerConfigTenHashesLikeTenPointZero() {
        assertSameHashes(
                edit(ROLLING, "iops: 3000", "iops: 3000, ratio: 10"),
                edit(ROLLING, "iops: 3000", "iops: 3000, ratio: 10.0"));
    }

    @Test
    void providerConfigDecimalTrailingZerosDoNotMatter() {
        assertSameHashes(
                edit(ROLLING, "iops: 3000", "iops: 3000, ratio: 2.5"),
                edit(ROLLING, "iops: 3000", "iops: 3000, ratio: 2.50"));
    }

    @Test
    void providerConfigNestedKeyOrderDoesNotMatter() {
        assertSameHashes(
                edit(ROLLING, "iops: 3000", "iops: 3000, tags: {team: web, cost: 7, list: [a, 1]}"),
                edit(ROLLING, "iops: 3000", "iops: 3000, tags: {list: [a, 1], cost: 7, team: web}"));
    }
}
