package dev.nightshift.spec.load;

import static dev.nightshift.spec.load.SpecFixtures.CLUSTER;
import static dev.nightshift.spec.load.SpecFixtures.CLUSTER_FILE;
import static dev.nightshift.spec.load.SpecFixtures.POOL;
import static dev.nightshift.spec.load.SpecFixtures.POOL_FILE;
import static dev.nightshift.spec.load.SpecFixtures.assertOnlyError;
import static dev.nightshift.spec.load.SpecFixtures.cluster;
import static dev.nightshift.spec.load.SpecFixtures.load;
import static dev.nightshift.spec.load.SpecFixtures.loadCluster;
import static dev.nightshift.spec.load.SpecFixtures.loadPool;
import static dev.nightshift.spec.load.SpecFixtures.pool;
import static dev.nightshift.spec.load.SpecFixtures.resolvedPool;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.diff.Effect;
import dev.nightshift.spec.diff.PoolAction;
import dev.nightshift.spec.diff.PoolDecision;
import dev.nightshift.spec.diff.SpecDiff;
import dev.nightshift.spec.hash.HashScheme;
import dev.nightshift.spec.model.HealthCheck;
import dev.nightshift.spec.model.IntOrPercent;
import dev.nightshift.spec.model.OnFailure;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.RolloutPolicy;

/** The {@code rollout} block: cluster defaults, pool overrides, every error placed, no hash moved. */
class RolloutSpecTest {

    private static final String FULL = """
              rollout:
                waves: [1, "10%", "50%", "100%"]
                soak: 10m
                healthChecks:
                - name: error-rate
                  prometheus: {query: 'sum(rate(errors[5m]))', max: 0.01}
                - name: evicted-workloads-back
                  workloadsAvailable: {within: 5m}
                onFailure: Rollback
                maxFailedMachines: 3
                revisionHistoryLimit: 5
            """;

    @Test
    void withoutRolloutAPoolKeepsTodaysCanary() {
        ResolvedPool pool = resolvedPool(loadPool(POOL));

        assertThat(pool.rollout()).isEqualTo(RolloutPolicy.DEFAULT);
        assertThat(pool.rollout().waves()).containsExactly(IntOrPercent.of(1), IntOrPercent.percentOf(100));
        assertThat(pool.rollout().soak()).isZero();
        assertThat(pool.rollout().maxFailedMachines()).isZero();
        assertThat(pool.rollout().describe()).isEqualTo("2 waves");
    }

    @Test
    void everyFieldIsReadOnAPool() {
        RolloutPolicy rollout = resolvedPool(loadPool(pool(FULL))).rollout();

        assertThat(rollout.waves()).containsExactly(IntOrPercent.of(1), IntOrPercent.percentOf(10), IntOrPercent.percentOf(50),
                IntOrPercent.percentOf(100));
        assertThat(rollout.soak()).isEqualTo(Duration.ofMinutes(10));
        assertThat(rollout.healthChecks()).containsExactly(
                new HealthCheck.Prometheus("error-rate", "sum(rate(errors[5m]))", Optional.empty(), Optional.of(new BigDecimal("0.01"))),
                new HealthCheck.WorkloadsAvailable("evicted-workloads-back", Duration.ofMinutes(5)));
        assertThat(rollout.onFailure()).isEqualTo(OnFailure.Rollback);
        assertThat(rollout.maxFailedMachines()).isEqualTo(3);
        assertThat(rollout.revisionHistoryLimit()).isEqualTo(5);
        assertThat(rollout.describe()).isEqualTo("4 waves, 3 soaks of 10m");
    }

    @Test
    void aPoolOverridesTheClustersDefaultsFieldByField() {
        LoadResult result = load(CLUSTER_FILE, cluster("  rollout: {waves: [2, \"100%\"], soak: 1m, maxFailedMachines: 4}"),
                POOL_FILE, pool("  rollout: {soak: 30s}"));

        RolloutPolicy rollout = resolvedPool(result).rollout();

        assertThat(rollout.waves()).containsExactly(IntOrPercent.of(2), IntOrPercent.percentOf(100));
        assertThat(rollout.soak()).isEqualTo(Duration.ofSeconds(30));
        assertThat(rollout.maxFailedMachines()).isEqualTo(4);
        assertThat(rollout.onFailure()).isEqualTo(OnFailure.Halt);
    }

    @Test
    void rolloutMovesNeitherHashAndIsReportedAsChangingNothingOnTheNodes() {
        ResolvedPool before = resolvedPool(loadPool(POOL));
        ResolvedPool after = resolvedPool(loadPool(pool(FULL)));

        assertThat(HashScheme.ROLL.compute(after)).isEqualTo(HashScheme.ROLL.compute(before));
        assertThat(HashScheme.KUBELET.compute(after)).isEqualTo(HashScheme.KUBELET.compute(before));
        PoolDecision decision = new SpecDiff().decide(before, after, new dev.nightshift.spec.diff.InPlaceHistory.Entry(false, java.util.Set.of()));
        assertThat(decision.action()).isEqualTo(PoolAction.NONE);
        assertThat(decision.reasons()).extracting(r -> r.path()).containsExactly("spec.rollout.waves", "spec.rollout.soak",
                "spec.rollout.healthChecks", "spec.rollout.onFailure", "spec.rollout.maxFailedMachines",
                "spec.rollout.revisionHistoryLimit");
        assertThat(decision.reasons()).allSatisfy(r -> assertThat(r.effect()).isEqualTo(Effect.NONE));
        assertThat(decision.reasons().get(0).oldValue()).isEqualTo("[1, 100%]");
        assertThat(decision.reasons().get(0).newValue()).isEqualTo("[1, 10%, 50%, 100%]");
    }

    @Test
    void theCanonicalFormKeepsRolloutOnlyWhereWritten() {
        LoadResult plain = loadPool(POOL);
        LoadResult full = load(CLUSTER_FILE, cluster("  rollout: {soak: 1m}"), POOL_FILE, pool(FULL));

        assertThat(CanonicalYaml.pool(plain.specs().pools().get(0))).doesNotContain("rollout");
        assertThat(CanonicalYaml.cluster(plain.specs().clusters().get(0))).doesNotContain("rollout");
        String poolText = CanonicalYaml.pool(full.specs().pools().get(0));
        String clusterText = CanonicalYaml.cluster(full.specs().clusters().get(0));
        assertThat(poolText).contains("    waves: [1, \"10%\", \"50%\", \"100%\"]\n", "max: 0.01", "    maxFailedMachines: 3\n");
        LoadResult back = CanonicalYaml.read(clusterText, poolText);
        assertThat(back.errors()).isEmpty();
        assertThat(back.specs()).isEqualTo(full.specs());
    }

    // ---- errors, each at its file:line:column ------------------------------------------------

    @Test
    void wavesThatFallAreRefusedAtTheWave() {
        LoadResult result = loadPool(pool("  rollout:", "    waves: [1, \"50%\", \"10%\", \"100%\"]"));

        assertOnlyError(result, POOL_FILE, 9, 23, "spec.rollout.waves[2]", "waves are cumulative and must rise: 10% after 50%");
    }

    @Test
    void wavesThatDoNotEndAtAHundredPercentAreRefusedAtTheLastWave() {
        LoadResult result = loadPool(pool("  rollout:", "    waves: [1, \"50%\"]"));

        assertOnlyError(result, POOL_FILE, 9, 16, "spec.rollout.waves[1]", "the last wave must be \"100%\"");
    }

    @Test
    void aCountAfterAPercentageIsRefused() {
        LoadResult result = loadPool(pool("  rollout:", "    waves: [\"10%\", 5, \"100%\"]"));

        assertOnlyError(result, POOL_FILE, 9, 20, "spec.rollout.waves[1]", "a count cannot follow a percentage");
    }

    @Test
    void aZeroOrUnquotedWaveIsRefused() {
        LoadResult result = loadPool(pool("  rollout:", "    waves: [0, \"100%\"]"));

        assertOnlyError(result, POOL_FILE, 9, 13, "spec.rollout.waves[0]", "must be a count >= 1 or a percentage from 1% to 100%");
    }

    @Test
    void emptyWavesAreRefused() {
        LoadResult result = loadPool(pool("  rollout:", "    waves: []"));

        assertOnlyError(result, POOL_FILE, 9, 12, "spec.rollout.waves", "must be a non-empty list");
    }

    @Test
    void aBadSoakIsRefused() {
        LoadResult result = loadCluster(cluster("  rollout:", "    soak: ten minutes"));

        assertOnlyError(result, CLUSTER_FILE, 7, 11, "spec.rollout.soak", "must be a duration");
    }

    @Test
    void aCheckWithBothKindsIsRefusedAtTheSecond() {
        LoadResult result = loadPool(pool("  rollout:", "    healthChecks:", "    - name: a",
                "      prometheus: {query: up, max: 1}", "      workloadsAvailable: {within: 1m}"));

        assertOnlyError(result, POOL_FILE, 12, 27, "spec.rollout.healthChecks[0].workloadsAvailable", "exactly one of");
    }

    @Test
    void aPrometheusCheckWithoutBoundsIsRefused() {
        LoadResult result = loadPool(pool("  rollout:", "    healthChecks:", "    - name: a", "      prometheus: {query: up}"));

        assertOnlyError(result, POOL_FILE, 11, 19, "spec.rollout.healthChecks[0].prometheus.max", "needs max, min or both");
    }

    @Test
    void aNonNumericBoundIsRefused() {
        LoadResult result = loadPool(pool("  rollout:", "    healthChecks:", "    - name: a", "      prometheus: {query: up, max: low}"));

        assertOnlyError(result, POOL_FILE, 11, 36, "spec.rollout.healthChecks[0].prometheus.max", "must be a finite number");
    }

    @Test
    void duplicateCheckNamesAreRefusedAtTheSecondName() {
        LoadResult result = loadPool(pool("  rollout:", "    healthChecks:",
                "    - {name: a, workloadsAvailable: {within: 1m}}", "    - {name: a, workloadsAvailable: {within: 2m}}"));

        assertOnlyError(result, POOL_FILE, 11, 14, "spec.rollout.healthChecks[1].name", "duplicate health check \"a\"");
    }

    @Test
    void anUnknownOnFailureIsRefused() {
        LoadResult result = loadPool(pool("  rollout: {onFailure: Abort}"));

        assertOnlyError(result, POOL_FILE, 8, 24, "spec.rollout.onFailure", "must be one of Halt, Rollback");
    }

    @Test
    void maxFailedMachinesOfZeroIsRefused() {
        LoadResult result = loadPool(pool("  rollout: {maxFailedMachines: 0}"));

        assertOnlyError(result, POOL_FILE, 8, 32, "spec.rollout.maxFailedMachines", "must be an integer >= 1");
    }

    @Test
    void anUnknownRolloutFieldIsRefusedAtItsKey() {
        LoadResult result = loadPool(pool("  rollout: {wave: [1]}"));

        assertOnlyError(result, POOL_FILE, 8, 13, "spec.rollout.wave", "unknown field");
    }

    @Test
    void aWorkloadsCheckOfZeroIsRefused() {
        LoadResult result = loadPool(pool("  rollout:", "    healthChecks:", "    - name: back", "      workloadsAvailable: {within: 0s}"));

        assertOnlyError(result, POOL_FILE, 11, 36, "spec.rollout.healthChecks[0].workloadsAvailable.within", "longer than 0s");
    }

    @Test
    void theBaseFixturesStillLoad() {
        assertThat(load(CLUSTER_FILE, CLUSTER, POOL_FILE, POOL).errors()).isEmpty();
        assertThat(List.of(OnFailure.values())).containsExactly(OnFailure.Halt, OnFailure.Rollback);
    }
}
