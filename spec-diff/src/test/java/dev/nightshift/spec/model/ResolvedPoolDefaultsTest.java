package dev.nightshift.spec.model;

import static dev.nightshift.spec.load.SpecFixtures.CLUSTER;
import static dev.nightshift.spec.load.SpecFixtures.CLUSTER_FILE;
import static dev.nightshift.spec.load.SpecFixtures.POOL;
import static dev.nightshift.spec.load.SpecFixtures.POOL_FILE;
import static dev.nightshift.spec.load.SpecFixtures.cluster;
import static dev.nightshift.spec.load.SpecFixtures.load;
import static dev.nightshift.spec.load.SpecFixtures.loadPool;
import static dev.nightshift.spec.load.SpecFixtures.pool;
import static dev.nightshift.spec.load.SpecFixtures.resolvedPool;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.nightshift.spec.load.LoadResult;

/** What a pool gets when it leaves a field out: from its cluster, else built in. */
class ResolvedPoolDefaultsTest {

    private static ResolvedPool resolve(String cluster, String pool) {
        return resolvedPool(load(CLUSTER_FILE, cluster, POOL_FILE, pool));
    }

    private static ResolvedPool resolve(String pool) {
        return resolvedPool(loadPool(pool));
    }

    // ---- maxSurge / maxUnavailable -------------------------------------------------------

    @Test
    void poolLimitsWinOverTheClusterDefaults() {
        ResolvedPool p = resolve(cluster("  rollingUpdate: {maxSurge: 2, maxUnavailable: 1}"),
                pool("  maxSurge: 3", "  maxUnavailable: 2"));

        assertThat(p.maxSurge()).isEqualTo(IntOrPercent.of(3));
        assertThat(p.maxUnavailable()).isEqualTo(IntOrPercent.of(2));
    }

    @Test
    void aControlPlanePoolInAClusterThatSurgesWithoutDowntimeTakesOneNodeDownInstead() {
        LoadResult result = load(CLUSTER_FILE, cluster("  rollingUpdate: {maxSurge: 1, maxUnavailable: 0}"),
                POOL_FILE, pool("  role: control-plane"));

        assertThat(result.errors()).isEmpty();
        ResolvedPool p = resolvedPool(result);
        assertThat(p.maxSurge()).isEqualTo(IntOrPercent.of(0));
        assertThat(p.maxUnavailable()).isEqualTo(IntOrPercent.of(1));
    }

    @Test
    void aManualInPlacePoolNeverTakesTheClusterMaxSurge() {
        LoadResult result = load(CLUSTER_FILE, cluster("  rollingUpdate: {maxSurge: 1, maxUnavailable: 0}"),
                POOL_FILE, pool("  updateStrategy: ManualInPlaceUpdate"));

        assertThat(result.errors()).isEmpty();
        ResolvedPool p = resolvedPool(result);
        assertThat(p.maxSurge()).isEqualTo(IntOrPercent.of(0));
        assertThat(p.maxUnavailable()).isEqualTo(IntOrPercent.of(1));
    }

    @Test
    void aNonZeroClusterMaxUnavailableStillAppliesToAControlPlanePool() {
        ResolvedPool p = resolve(cluster("  rollingUpdate: {maxSurge: 1, maxUnavailable: 2}"), pool("  role: control-plane"));

        assertThat(p.maxUnavailable()).isEqualTo(IntOrPercent.of(2));
    }

    @Test
    void clusterDefaultsApplyPerField() {
        ResolvedPool p = resolve(cluster("  rollingUpdate: {maxSurge: 2, maxUnavailable: 1}"), pool("  maxSurge: 3"));

        assertThat(p.maxSurge()).isEqualTo(IntOrPercent.of(3));
        assertThat(p.maxUnavailable()).isEqualTo(IntOrPercent.of(1));
    }

    @Test
    void clusterMaxSurgeAppliesToAPoolThatSetsNone() {
        ResolvedPool p = resolve(cluster("  rollingUpdate: {maxSurge: 50%}"), POOL);

        assertThat(p.maxSurge()).isEqualTo(IntOrPercent.percentOf(50));
        assertThat(p.maxUnavailable()).isEqualTo(IntOrPercent.of(0));
    }

    @Test
    void clusterMaxUnavailableAloneLeavesTheBuiltInMaxSurge() {
        ResolvedPool p = resolve(cluster("  rollingUpdate: {maxUnavailable: 2}"), POOL);

        assertThat(p.maxSurge()).isEqualTo(IntOrPercent.of(1));
        assertThat(p.maxUnavailable()).isEqualTo(IntOrPercent.of(2));
    }

    @Test
    void clusterMaxSurgeIsNotAppliedToControlPlanePools() {
        ResolvedPool p = resolve(cluster("  rollingUpdate: {maxSurge: 2}"), pool("  role: control-plane"));

        assertThat(p.maxSurge()).isEqualTo(IntOrPercent.of(0));
        assertThat(p.maxUnavailable()).isEqualTo(IntOrPercent.of(1));
    }

    @Test
    void clusterMaxSurgeIsAppliedToBastionPools() {
        ResolvedPool p = resolve(cluster("  rollingUpdate: {maxSurge: 2}"), pool("  role: bastion"));

        assertThat(p.maxSurge()).isEqualTo(IntOrPercent.of(2));
        assertThat(p.maxUnavailable()).isEqualTo(IntOrPercent.of(0));
    }

    @ParameterizedTest(name = "{0} with {1}: maxSurge {2}, maxUnavailable {3}")
    @CsvSource({
            "node,          AutoRollingUpdate,   1, 0",
            "apiserver,     AutoRollingUpdate,   1, 0",
            "bastion,       AutoRollingUpdate,   0, 1",
            "control-plane, AutoRollingUpdate,   0, 1",
            "node,          AutoInPlaceUpdate,   0, 1",
            "node,          ManualInPlaceUpdate, 0, 1",
            "apiserver,     AutoInPlaceUpdate,   0, 1",
            "node,          Replace,             0, 1",
            "bastion,       Replace,             0, 1",
    })
    void builtInLimitsDependOnRoleAndStrategy(String role, String strategy, int surge, int unavailable) {
        ResolvedPool p = resolve(pool("  role: " + role, "  updateStrategy: " + strategy));

        assertThat(p.maxSurge()).isEqualTo(IntOrPercent.of(surge));
        assertThat(p.maxUnavailable()).isEqualTo(IntOrPercent.of(unavailable));
    }

    @Test
    void builtInMaxUnavailableIsZeroWhenThePoolSetsANonZeroMaxSurge() {
        ResolvedPool p = resolve(pool("  role: bastion", "  maxSurge: 1"));

        assertThat(p.maxUnavailable()).isEqualTo(IntOrPercent.of(0));
    }

    @Test
    void builtInMaxUnavailableIsOneWhenThePoolSetsMaxSurgeZero() {
        ResolvedPool p = resolve(pool("  maxSurge: 0"));

        assertThat(p.maxUnavailable()).isEqualTo(IntOrPercent.of(1));
    }

    @Test
    void builtInMaxUnavailableIsOneWhenMaxSurgeIsZeroPercent() {
        ResolvedPool p = resolve(pool("  maxSurge: 0%"));

        assertThat(p.maxUnavailable()).isEqualTo(IntOrPercent.of(1));
    }

    @Test
    void percentagesAreKeptAsPercentages() {
        ResolvedPool p = resolve(pool("  maxSurge: 25%", "  maxUnavailable: \"50%\""));

        assertThat(p.maxSurge()).isEqualTo(IntOrPercent.percentOf(25));
        assertThat(p.maxUnavailable()).isEqualTo(IntOrPercent.percentOf(50));
    }

    // ---- progress deadline ---------------------------------------------------------------

    @Test
    void defaultProgressDeadlineIsDrainPlusCreationTimeoutPlusFiveMinutes() {
        ResolvedPool p = resolve(POOL);

        assertThat(p.progressDeadline()).isEqualTo(Duration.ofHours(2).plusMinutes(10).plusMinutes(5));
    }

    @Test
    void defaultProgressDeadlineFollowsThePoolTimeouts() {
        ResolvedPool p = resolve(pool("  machineControllerManager: {drainTimeout: 1h, creationTimeout: 20m}"));

        assertThat(p.progressDeadline()).isEqualTo(Duration.ofMinutes(85));
    }

    @Test
    void explicitProgressDeadlineSecondsWins() {
        ResolvedPool p = resolve(pool("  progressDeadlineSeconds: 900"));

        assertThat(p.progressDeadline()).isEqualTo(Duration.ofMinutes(15));
    }

    // ---- other defaults ------------------------------------------------------------------

    @Test
    void poolDefaultsAreFilledIn() {
        WorkerPoolSpec spec = resolve(POOL).pool();

        assertThat(spec.role()).isEqualTo(PoolRole.NODE);
        assertThat(spec.updateStrategy()).isEqualTo(UpdateStrategy.AutoRollingUpdate);
        assertThat(spec.criName()).isEqualTo("containerd");
        assertThat(spec.interval()).isEqualTo(Duration.ofSeconds(15));
        assertThat(spec.drainAndTerminate()).isTrue();
        assertThat(spec.minReadySeconds()).isZero();
        assertThat(spec.progressDeadlineSeconds()).isZero();
        assertThat(spec.volume()).isEmpty();
        assertThat(spec.kubernetesVersion()).isEmpty();
        assertThat(spec.labels()).isEmpty();
        assertThat(spec.annotations()).isEmpty();
        assertThat(spec.taints()).isEmpty();
        assertThat(spec.providerConfig().values()).isEmpty();
        assertThat(spec.maxSurge()).isEmpty();
        assertThat(spec.maxUnavailable()).isEmpty();
    }

    @Test
    void machineControllerManagerDefaultsWhenAbsent() {
        MachineControllerManager mcm = resolve(POOL).pool().machineControllerManager();

        assertThat(mcm).isEqualTo(MachineControllerManager.DEFAULTS);
        assertThat(mcm.drainTimeout()).isEqualTo(Duration.ofHours(2));
        assertThat(mcm.healthTimeout()).isEqualTo(Duration.ofMinutes(10));
        assertThat(mcm.creationTimeout()).isEqualTo(Duration.ofMinutes(10));
        assertThat(mcm.maxEvictRetries()).isEqualTo(10);
        assertThat(mcm.inPlaceUpdateTimeout()).isEqualTo(Duration.ofMinutes(30));
        assertThat(mcm.onEvictionBlocked()).isEqualTo(OnEvictionBlocked.ForceDelete);
        assertThat(mcm.nodeConditions()).containsExactly("KernelDeadlock", "ReadonlyFilesystem", "DiskPressure");
    }

    @Test
    void machineControllerManagerFieldsLeftOutKeepTheirDefaults() {
        MachineControllerManager mcm = resolve(pool("  machineControllerManager: {drainTimeout: 1h, onEvictionBlocked: Wait}"))
                .pool().machineControllerManager();

        assertThat(mcm).isEqualTo(new MachineControllerManager(Duration.ofHours(1), Duration.ofMinutes(10),
                Duration.ofMinutes(10), 10, Duration.ofMinutes(30), OnEvictionBlocked.Wait,
                List.of("KernelDeadlock", "ReadonlyFilesystem", "DiskPressure"), Optional.empty()));
    }

    @Test
    void disableHealthTimeoutDefaultsToFalseForPoolsThatReplaceMachines() {
        assertThat(resolve(pool("")).disableHealthTimeout()).isFalse();
        assertThat(resolve(pool("  updateStrategy: Replace")).disableHealthTimeout()).isFalse();
    }

    @Test
    void disableHealthTimeoutDefaultsToTrueForInPlacePools() {
        assertThat(resolve(pool("  updateStrategy: AutoInPlaceUpdate")).disableHealthTimeout()).isTrue();
        assertThat(resolve(pool("  updateStrategy: ManualInPlaceUpdate")).disableHealthTimeout()).isTrue();
    }

    @Test
    void disableHealthTimeoutAsWrittenWinsOverTheStrategyDefault() {
        assertThat(resolve(pool("  updateStrategy: AutoInPlaceUpdate\n  machineControllerManager: {disableHealthTimeout: false}"))
                .disableHealthTimeout()).isFalse();
        assertThat(resolve(pool("  machineControllerManager: {disableHealthTimeout: true}")).disableHealthTimeout()).isTrue();
    }

    @Test
    void criBlockWithoutANameDefaultsToContainerd() {
        WorkerPoolSpec spec = resolve(pool("  cri: {}")).pool();

        assertThat(spec.criName()).isEqualTo("containerd");
    }

    @Test
    void taintEffectDefaultsToNoSchedule() {
        WorkerPoolSpec spec = resolve(pool("  taints: [{key: dedicated}]")).pool();

        assertThat(spec.taints()).containsExactly(new Taint("dedicated", "", TaintEffect.NoSchedule));
    }

    @Test
    void poolInheritsTheClusterKubernetesVersion() {
        ResolvedPool p = resolve(POOL);

        assertThat(p.kubernetesVersion()).isEqualTo(new KubernetesVersion(1, 31, 4));
    }

    @Test
    void poolKubernetesVersionWinsOverTheCluster() {
        ResolvedPool p = resolve(pool("  kubernetes: {version: \"1.30.2\"}"));

        assertThat(p.kubernetesVersion()).isEqualTo(new KubernetesVersion(1, 30, 2));
    }

    @Test
    void poolKubeletFieldsReplaceTheClusterValueOfThatFieldOnly() {
        ResolvedPool p = resolve(
                CLUSTER.replace("{version: \"1.31.4\"}",
                        "{version: \"1.31.4\", kubelet: {kubeReserved: {cpu: 80m}, systemReserved: {memory: 512Mi}}}"),
                pool("  kubernetes: {kubelet: {kubeReserved: {cpu: 100m, memory: 1Gi}}}"));

        assertThat(p.kubelet().kubeReserved()).hasValue(Map.of(
                "cpu", Quantity.parse("100m").orElseThrow(), "memory", Quantity.parse("1Gi").orElseThrow()));
        assertThat(p.kubelet().systemReserved()).hasValue(Map.of("memory", Quantity.parse("512Mi").orElseThrow()));
    }

    @Test
    void clusterDefaultsAreFilledIn() {
        LoadResult result = load(CLUSTER_FILE, cluster("  maintenance: {windows: [{schedule: '0 0 2 ? * SAT', duration: 4h}]}"));

        assertThat(result.errors()).isEmpty();
        ClusterSpec c = result.specs().clusters().get(0);
        assertThat(c.nodeLocalDns()).isFalse();
        assertThat(c.rollingUpdate()).isEqualTo(RollingUpdateDefaults.NONE);
        assertThat(c.machineImages()).isEmpty();
        assertThat(c.certificateAuthorities()).isEmpty();
        assertThat(c.maintenance()).hasValueSatisfying(m -> {
            assertThat(m.confineSpecUpdateRollout()).isTrue();
            assertThat(m.timeWindow()).isEmpty();
            assertThat(m.exclusions()).isEmpty();
            assertThat(m.windows()).containsExactly(
                    new Maintenance.CronWindow("0 0 2 ? * SAT", Duration.ofHours(4), ZoneId.of("UTC")));
        });
    }
}
