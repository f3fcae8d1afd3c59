package dev.nightshift.spec.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.SpecSet;

/**
 * Hand-written specs for the hash and diff tests: one cluster {@code prod} with a rolling pool
 * {@code web}, edited by exact text replacement so each test shows the one change it makes.
 */
public final class TestSpecs {

    public static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: prod}
            spec:
              kubernetes:
                version: "1.31.4"
                kubelet:
                  kubeReserved: {cpu: 80m, memory: 1Gi}
                  systemReserved: {memory: 512Mi}
                  evictionHard: {memory.available: 100Mi}
                  cpuManagerPolicy: none
              systemComponents: {nodeLocalDNS: {enabled: false}}
              credentials:
                rotation:
                  certificateAuthorities:
                    lastInitiationTime: "2026-01-01T00:00:00Z"
                    pendingWorkersRollouts: [{name: batch, lastInitiationTime: "2025-06-01T00:00:00Z"}]
                  serviceAccountKey: {lastInitiationTime: "2026-01-01T00:00:00Z"}
              machineImages:
              - name: gardenlinux
                versions:
                - {version: 1630.0.0, inPlaceUpdates: {supported: true}}
                - {version: 1631.0.0, inPlaceUpdates: {supported: true, minVersionForUpdate: 1630.0.0}}
                - {version: 1632.0.0, inPlaceUpdates: {supported: true, minVersionForUpdate: 1631.0.0}}
                - {version: 1633.0.0, inPlaceUpdates: {supported: false}}
                - {version: 1640.0.0}
            """;

    /** An AutoRollingUpdate pool using most fields. */
    public static final String POOL = """
            ---
            apiVersion: nightshift.dev/v1alpha1
            kind: WorkerPool
            metadata: {name: web, cluster: prod, annotations: {owner: team-web}}
            spec:
              minimum: 3
              maximum: 6
              maxSurge: 1
              maxUnavailable: 0
              updateStrategy: AutoRollingUpdate
              machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
              volume: {type: gp3, size: 50Gi}
              cri: {name: containerd}
              providerConfig: {zone: eu-1a, iops: 3000}
              labels: {tier: frontend}
              taints: [{key: dedicated, value: web, effect: NoSchedule}]
              minReadySeconds: 0
              interval: 15s
              drainAndTerminate: true
              machineControllerManager: {drainTimeout: 2h, healthTimeout: 10m, creationTimeout: 10m, inPlaceUpdateTimeout: 30m}
            """;

    /** The cluster with the rolling pool. */
    public static final String ROLLING = CLUSTER + POOL;

    /** The cluster with the same pool updated in place (AutoInPlaceUpdate, no surge). */
    public static final String IN_PLACE = edit(edit(ROLLING,
            "updateStrategy: AutoRollingUpdate", "updateStrategy: AutoInPlaceUpdate"),
            "maxSurge: 1\n  maxUnavailable: 0", "maxSurge: 0\n  maxUnavailable: 1");

    private TestSpecs() {
    }

    /** {@code yaml} with {@code from} replaced by {@code to}; {@code from} must occur exactly once. */
    public static String edit(String yaml, String from, String to) {
        int at = yaml.indexOf(from);
        assertThat(at).as("text to replace %s", from).isNotNegative();
        assertThat(yaml.indexOf(from, at + 1)).as("text to replace %s occurs more than once", from).isNegative();
        return yaml.substring(0, at) + to + yaml.substring(at + from.length());
    }

    /** Loads one file holding {@code yaml}; fails the test if the spec has any error. */
    public static SpecSet load(String yaml) {
        LoadResult result = new SpecLoader().load(Map.of("spec.yaml", yaml.getBytes(StandardCharsets.UTF_8)));
        assertThat(result.errors()).as("errors loading%n%s", yaml).isEmpty();
        return result.specs();
    }

    /** The pool {@code web} of cluster {@code prod}, resolved. */
    public static ResolvedPool web(String yaml) {
        return pool(load(yaml), "prod", "web");
    }

    public static ResolvedPool pool(SpecSet specs, String cluster, String pool) {
        return specs.resolvedPools(cluster).stream()
                .filter(p -> p.name().equals(pool))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no pool " + cluster + "/" + pool));
    }

    public static StampedHash roll(String yaml) {
        return HashScheme.ROLL.compute(web(yaml));
    }

    public static StampedHash kubelet(String yaml) {
        return HashScheme.KUBELET.compute(web(yaml));
    }
}
