package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.agent.report.RolloutProgressJson;
import dev.nightshift.spec.load.CanonicalYaml;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.model.RolloutProgress;
import io.fabric8.kubernetes.api.model.ConfigMap;

/** {@link HeldPool}: which pools {@code nightshift plan} shows held after a rollback, read from records written with the agent's codec. */
class HeldPoolTest {

    private static final String GOOD = "a1b2c3d4".repeat(5);
    private static final String BAD = "f9e8d7c6".repeat(5);
    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: real}
            spec:
              kubernetes: {version: "1.31.4"}
              machineImages:
              - name: gardenlinux
                versions:
                - {version: 1631.0.0}
                - {version: 1632.0.0}
                - {version: 1633.0.0}
            """;

    @TempDir
    Path tmp;

    private SpecSet specs(String version) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(version).resolve("pools"));
        Files.writeString(dir.resolveSibling("cluster.yaml"), CLUSTER);
        Files.writeString(dir.resolve("web.yaml"), """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: real}
                spec:
                  minimum: 2
                  maximum: 4
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                  rollout: {onFailure: Rollback}
                """.formatted(version));
        return new SpecLoader().load(dir.getParent()).specs();
    }

    private static ResolvedPool web(SpecSet specs) {
        return specs.resolvedPools("real").get(0);
    }

    /** The record as the agent's record writer leaves it after rolling web back from 1632.0.0 to 1631.0.0. */
    private ConfigMap rolledBackRecord() throws Exception {
        ResolvedPool good = web(specs("1631.0.0"));
        ResolvedPool bad = web(specs("1632.0.0"));
        PoolStatusRecords.Accepted accepted = new PoolStatusRecords.Accepted(GOOD, CanonicalYaml.cluster(good.cluster()),
                CanonicalYaml.pool(good.pool()));
        Map<String, String> data = PoolStatusRecords.data(PoolStatus.NEW, Optional.of(accepted), PoolStatusRecords.Why.NONE);
        RolloutProgress.Halt halt = new RolloutProgress.Halt("error-rate", "0.07", "<= 0.01", 1, Instant.parse("2026-11-27T12:00:03Z"));
        data.put(PoolStatusRecords.REFUSED, new PoolStatusRecords.Refused(BAD, CanonicalYaml.cluster(bad.cluster()),
                CanonicalYaml.pool(bad.pool()), RolloutProgressJson.describe(halt)).json());
        return PoolStatusRecords.create("nightshift-system", "web", data);
    }

    @Test
    void aSpecOfferingTheRefusedRevisionAgainHoldsThePoolAtTheSpecItWasRolledBackTo() throws Exception {
        SpecSet offered = specs("1632.0.0");

        Optional<HeldPool> held = HeldPool.of(Optional.of(rolledBackRecord()), offered.cluster("real").orElseThrow(), web(offered));

        assertThat(held).isPresent();
        assertThat(held.get().message())
                .isEqualTo("held at a1b2c3d, f9e8d7c refused: canary failed error-rate (0.07, must be <= 0.01) in wave 1");
        assertThat(held.get().refusedCommit()).isEqualTo(BAD);
        assertThat(held.get().actedOn().pool().machine().image().version().toString()).isEqualTo("1631.0.0");
    }

    @Test
    void aSpecThatChangesThePoolLiftsTheRefusalAsTheAgentDoes() throws Exception {
        SpecSet offered = specs("1633.0.0");

        assertThat(HeldPool.of(Optional.of(rolledBackRecord()), offered.cluster("real").orElseThrow(), web(offered))).isEmpty();
    }

    @Test
    void aRecordWithoutARefusalHoldsNothing() throws Exception {
        SpecSet offered = specs("1632.0.0");
        ConfigMap record = rolledBackRecord();
        record.getData().remove(PoolStatusRecords.REFUSED);

        assertThat(HeldPool.of(Optional.of(record), offered.cluster("real").orElseThrow(), web(offered))).isEmpty();
        assertThat(HeldPool.of(Optional.empty(), offered.cluster("real").orElseThrow(), web(offered))).isEmpty();
    }
}
