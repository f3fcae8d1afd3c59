package dev.nightshift.spec.load;

import static dev.nightshift.spec.load.SpecFixtures.CLUSTER;
import static dev.nightshift.spec.load.SpecFixtures.CLUSTER_FILE;
import static dev.nightshift.spec.load.SpecFixtures.POOL;
import static dev.nightshift.spec.load.SpecFixtures.POOL_FILE;
import static dev.nightshift.spec.load.SpecFixtures.assertOnlyError;
import static dev.nightshift.spec.load.SpecFixtures.cluster;
import static dev.nightshift.spec.load.SpecFixtures.error;
import static dev.nightshift.spec.load.SpecFixtures.load;
import static dev.nightshift.spec.load.SpecFixtures.loadPool;
import static dev.nightshift.spec.load.SpecFixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;


/** Rules that span fields or documents, checked on resolved values. */
class SpecValidatorTest {

    @Test
    void theBaseClusterAndPoolAreValid() {
        LoadResult result = loadPool(POOL);

        assertThat(result.errors()).isEmpty();
        assertThat(result.valid()).isTrue();
    }

    // ---- references and duplicates -------------------------------------------------------

    @Test
    void poolOfAnUndefinedClusterIsRejected() {
        LoadResult result = loadPool(POOL.replace("cluster: prod", "cluster: nope"));

        assertOnlyError(result, POOL_FILE, 3, 32, "metadata.cluster", "no Cluster named \"nope\" is defined");
        assertThat(result.errors().get(0).message()).contains("(known: prod)");
    }

    @Test
    void poolWithoutAnyClusterIsRejected() {
        LoadResult result = load(POOL_FILE, POOL);

        assertOnlyError(result, POOL_FILE, 3, 32, "metadata.cluster", "no Cluster named \"prod\" is defined");
    }

    @Test
    void duplicatePoolNameInAClusterIsRejectedAtTheSecond() {
        LoadResult result = load(CLUSTER_FILE, CLUSTER, "pools/a.yaml", POOL, "pools/b.yaml", POOL);

        assertOnlyError(result, "pools/b.yaml", 3, 18, "metadata.name", "duplicate WorkerPool \"cpu\" in cluster \"prod\"");
        assertThat(result.errors().get(0).message()).contains("pools/a.yaml:1");
    }

    @Test
    void duplicatePoolNameInOneFileIsRejectedAtTheSecondDocument() {
        LoadResult result = load(CLUSTER_FILE, CLUSTER, POOL_FILE, POOL + "---\n" + POOL);

        // the second document starts at line 9; its metadata is its line 3
        assertOnlyError(result, POOL_FILE, 11, 18, "metadata.name", "duplicate WorkerPool \"cpu\"");
    }

    @Test
    void theSamePoolNameInTwoClustersIsAllowed() {
        LoadResult result = load(
                CLUSTER_FILE, CLUSTER + "---\n" + CLUSTER.replace("name: prod", "name: dev"),
                "pools/prod.yaml", POOL,
                "pools/dev.yaml", POOL.replace("cluster: prod", "cluster: dev"));

        assertThat(result.errors()).isEmpty();
        assertThat(result.specs().pools()).hasSize(2);
    }

    @Test
    void duplicateClusterIsRejectedAtTheSecond() {
        LoadResult result = load(CLUSTER_FILE, CLUSTER, "other.yaml", CLUSTER);

        assertOnlyError(result, "other.yaml", 3, 18, "metadata.name", "duplicate Cluster \"prod\"");
        assertThat(result.errors().get(0).message()).contains("cluster.yaml:1");
    }

    @Test
    void anInvalidClusterDoesNotMakeItsPoolsReportAMissingCluster() {
        LoadResult result = load(
                CLUSTER_FILE, cluster("  maintenance: {windows: [{schedule: '0 0 2 ? * SAT', duration: 1h, timeZone: Mars/Olympus}]}"),
                POOL_FILE, POOL);

        // one mistake, one error: the pool's cluster is defined, it is only invalid
        assertThat(result.errors()).singleElement().satisfies(e -> {
            assertThat(e.file()).isEqualTo(CLUSTER_FILE);
            assertThat(e.path()).isEqualTo("spec.maintenance.windows[0].timeZone");
        });
    }

    // ---- resolved limits -----------------------------------------------------------------

    @Test
    void bothLimitsZeroOnThePoolIsRejected() {
        LoadResult result = loadPool(pool("  maxSurge: 0", "  maxUnavailable: 0"));

        assertOnlyError(result, POOL_FILE, 9, 19, "spec.maxUnavailable", "resolve to 0 and 0");
    }

    @Test
    void bothLimitsZeroFromTheClusterDefaultsIsRejectedOnThePool() {
        LoadResult result = load(
                CLUSTER_FILE, cluster("  rollingUpdate: {maxSurge: 0, maxUnavailable: 0}"),
                POOL_FILE, POOL);

        // the pool writes neither limit: the error points at the pool's spec
        assertOnlyError(result, POOL_FILE, 5, 3, "spec.maxSurge", "resolve to 0 and 0");
    }

    @Test
    void poolMaxSurgeZeroWithClusterMaxUnavailableZeroIsRejectedAtThePoolMaxSurge() {
        LoadResult result = load(
                CLUSTER_FILE, cluster("  rollingUpdate: {maxUnavailable: 0}"),
                POOL_FILE, pool("  maxSurge: 0"));

        assertOnlyError(result, POOL_FILE, 8, 13, "spec.maxSurge", "resolve to 0 and 0");
    }

    @Test
    void zeroPercentOnBothLimitsIsAllowedAsDocumented() {
        LoadResult result = loadPool(pool("  maxSurge: 0%", "  maxUnavailable: 0%"));

        assertThat(result.errors()).isEmpty();
    }

    @Test
    void nonZeroMaxSurgeOnControlPlaneIsRejected() {
        LoadResult result = loadPool(pool("  role: control-plane", "  maxSurge: 1"));

        assertOnlyError(result, POOL_FILE, 9, 13, "spec.maxSurge", "must be 0 for role control-plane");
    }

    @Test
    void nonZeroPercentMaxSurgeOnControlPlaneIsRejected() {
        LoadResult result = loadPool(pool("  role: control-plane", "  maxSurge: 10%"));

        assertOnlyError(result, POOL_FILE, 9, 13, "spec.maxSurge", "must be 0 for role control-plane");
    }

    @Test
    void clusterMaxSurgeIsNotAppliedToControlPlanePools() {
        LoadResult result = load(
                CLUSTER_FILE, cluster("  rollingUpdate: {maxSurge: 1}"),
                POOL_FILE, pool("  role: control-plane"));

        assertThat(result.errors()).isEmpty();
    }

    @Test
    void nonZeroMaxSurgeWithManualInPlaceUpdateIsRejected() {
        LoadResult result = loadPool(pool("  updateStrategy: ManualInPlaceUpdate", "  maxSurge: 1"));

        assertOnlyError(result, POOL_FILE, 9, 13, "spec.maxSurge", "must be 0 with ManualInPlaceUpdate");
    }

    @Test
    void manualInPlaceUpdateWithDefaultLimitsIsValid() {
        LoadResult result = loadPool(pool("  updateStrategy: ManualInPlaceUpdate"));

        assertThat(result.errors()).isEmpty();
    }

    @Test
    void replaceOnControlPlaneIsRejected() {
        LoadResult result = loadPool(pool("  role: control-plane", "  updateStrategy: Replace"));

        assertOnlyError(result, POOL_FILE, 9, 19, "spec.updateStrategy", "not allowed for role control-plane");
    }

    @Test
    void replaceOnApiserverIsRejected() {
        LoadResult result = loadPool(pool("  role: apiserver", "  updateStrategy: Replace"));

        assertOnlyError(result, POOL_FILE, 9, 19, "spec.updateStrategy", "not allowed for role apiserver");
    }

    @Test
    void replaceOnNodePoolIsValid() {
        LoadResult result = loadPool(pool("  updateStrategy: Replace"));

        assertThat(result.errors()).isEmpty();
    }

    @Test
    void twoTaintsWithTheSameKeyAndEffectAreRejectedAtTheSecond() {
        LoadResult result = loadPool(pool("  taints:", "  - {key: a, value: x, effect: NoSchedule}",
                "  - {key: a, value: y, effect: NoSchedule}"));

        assertOnlyError(result, POOL_FILE, 10, 5, "spec.taints[1]", "duplicate taint a:NoSchedule");
    }

    @Test
    void theSameTaintKeyWithAnotherEffectIsAllowed() {
        assertThat(loadPool(pool("  taints:", "  - {key: a, effect: NoSchedule}", "  - {key: a, effect: NoExecute}")).errors())
                .isEmpty();
    }

    @Test
    void anInPlaceStrategyOnABastionIsRejected() {
        LoadResult result = loadPool(pool("  role: bastion", "  updateStrategy: AutoInPlaceUpdate"));

        assertOnlyError(result, POOL_FILE, 9, 19, "spec.updateStrategy", "not possible for role bastion");
    }

    @Test
    void rollingUpdatesOnABastionAreValid() {
        assertThat(loadPool(pool("  role: bastion", "  updateStrategy: AutoRollingUpdate")).errors()).isEmpty();
        assertThat(loadPool(pool("  role: bastion", "  updateStrategy: Replace")).errors()).isEmpty();
    }

    // ---- sizes and deadlines -------------------------------------------------------------

    @Test
    void minimumAboveMaximumIsRejected() {
        LoadResult result = loadPool(POOL.replace("minimum: 1", "minimum: 5"));

        assertOnlyError(result, POOL_FILE, 5, 12, "spec.minimum", "minimum 5 is above maximum 3");
    }

    @Test
    void minimumEqualToMaximumIsValid() {
        LoadResult result = loadPool(POOL.replace("minimum: 1", "minimum: 3"));

        assertThat(result.errors()).isEmpty();
    }

    @Test
    void progressDeadlineNotAboveMinReadySecondsIsRejected() {
        LoadResult result = loadPool(pool("  minReadySeconds: 600", "  progressDeadlineSeconds: 600"));

        assertOnlyError(result, POOL_FILE, 9, 28, "spec.progressDeadlineSeconds", "must be above minReadySeconds (600)");
    }

    @Test
    void progressDeadlineJustAboveMinReadySecondsIsValid() {
        LoadResult result = loadPool(pool("  minReadySeconds: 600", "  progressDeadlineSeconds: 601"));

        assertThat(result.errors()).isEmpty();
    }

    @Test
    void minReadySecondsAboveTheDefaultProgressDeadlineIsRejectedAtMinReadySeconds() {
        // default deadline: drainTimeout 2h + creationTimeout 10m + 5m = 8100s
        LoadResult result = loadPool(pool("  minReadySeconds: 8100"));

        assertOnlyError(result, POOL_FILE, 8, 20, "spec.minReadySeconds", "progressDeadlineSeconds (8100)");
    }

    // ---- Kubernetes version skew ---------------------------------------------------------

    @Test
    void poolVersionNewerThanTheClusterIsRejected() {
        LoadResult result = loadPool(pool("  kubernetes: {version: \"1.32.0\"}"));

        assertOnlyError(result, POOL_FILE, 8, 25, "spec.kubernetes.version", "newer than the cluster's 1.31.4");
    }

    @Test
    void poolPatchNewerThanTheClusterIsRejected() {
        LoadResult result = loadPool(pool("  kubernetes: {version: \"1.31.5\"}"));

        assertOnlyError(result, POOL_FILE, 8, 25, "spec.kubernetes.version", "newer than the cluster's");
    }

    @Test
    void poolVersionFourMinorsOlderIsRejected() {
        LoadResult result = loadPool(pool("  kubernetes: {version: \"1.27.9\"}"));

        assertOnlyError(result, POOL_FILE, 8, 25, "spec.kubernetes.version", "more than 3 minors older");
    }

    @Test
    void poolVersionExactlyThreeMinorsOlderIsValid() {
        LoadResult result = loadPool(pool("  kubernetes: {version: \"1.28.0\"}"));

        assertThat(result.errors()).isEmpty();
    }

    @Test
    void poolVersionOfAnotherMajorIsRejected() {
        LoadResult result = loadPool(pool("  kubernetes: {version: \"0.31.4\"}"));

        assertOnlyError(result, POOL_FILE, 8, 25, "spec.kubernetes.version", "older than the cluster's");
    }

    // ---- everything together -------------------------------------------------------------

    @Test
    void validationErrorsOfSeveralPoolsAreReportedTogether() {
        LoadResult result = load(
                CLUSTER_FILE, CLUSTER,
                "pools/a.yaml", POOL.replace("name: cpu", "name: a").replace("minimum: 1", "minimum: 5"),
                "pools/b.yaml", pool("  role: apiserver", "  updateStrategy: Replace").replace("name: cpu", "name: b"),
                "pools/c.yaml", pool("  kubernetes: {version: \"1.32.0\"}").replace("name: cpu", "name: c"));

        assertThat(result.errors()).satisfiesExactly(
                error("pools/a.yaml", 5, 12, "spec.minimum", "above maximum"),
                error("pools/b.yaml", 9, 19, "spec.updateStrategy", "Replace"),
                error("pools/c.yaml", 8, 25, "spec.kubernetes.version", "newer"));
    }

    @Test
    void severalRuleViolationsOfOnePoolAreAllReported() {
        LoadResult result = loadPool(POOL.replace("minimum: 1", "minimum: 5")
                + "  role: control-plane\n  maxSurge: 1\n  updateStrategy: Replace\n");

        assertThat(result.errors()).extracting(SpecError::path)
                .containsExactly("spec.minimum", "spec.maxSurge", "spec.updateStrategy");
    }
}
