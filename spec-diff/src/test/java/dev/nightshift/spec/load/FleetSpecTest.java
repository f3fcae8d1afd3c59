package dev.nightshift.spec.load;

import static dev.nightshift.spec.load.SpecFixtures.CLUSTER;
import static dev.nightshift.spec.load.SpecFixtures.CLUSTER_FILE;
import static dev.nightshift.spec.load.SpecFixtures.POOL;
import static dev.nightshift.spec.load.SpecFixtures.POOL_FILE;
import static dev.nightshift.spec.load.SpecFixtures.assertOnlyError;
import static dev.nightshift.spec.load.SpecFixtures.cluster;
import static dev.nightshift.spec.load.SpecFixtures.error;
import static dev.nightshift.spec.load.SpecFixtures.load;
import static dev.nightshift.spec.load.SpecFixtures.loadCluster;
import static dev.nightshift.spec.load.SpecFixtures.loadPool;
import static dev.nightshift.spec.load.SpecFixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.hash.HashScheme;
import dev.nightshift.spec.model.FleetConcurrency;
import dev.nightshift.spec.model.IntOrPercent;
import dev.nightshift.spec.model.ResolvedPool;

/** {@code rollout.concurrency} on the Cluster and {@code rollout.after} on a pool: read, kept, every error placed. */
class FleetSpecTest {

    private static final String WEB_FILE = "pools/web.yaml";
    private static final String CP_FILE = "pools/masters.yaml";

    /** Another pool of the base cluster, named {@code name}, with {@code specLines} from line 8. */
    private static String named(String name, String... specLines) {
        return pool(specLines).replace("name: cpu,", "name: " + name + ",");
    }

    @Test
    void withoutConcurrencyTheClusterRollsOnePoolAtATimeWithoutABudget() {
        LoadResult result = loadCluster(CLUSTER);

        FleetConcurrency c = result.specs().clusters().get(0).concurrency();

        assertThat(c).isEqualTo(FleetConcurrency.DEFAULT);
        assertThat(c.pools()).isEqualTo(1);
        assertThat(c.resolveMaxUnavailable(5_000)).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void concurrencyIsReadWithACountOrAPercentageOfEveryManagedNode() {
        FleetConcurrency percent = loadCluster(cluster("  rollout: {concurrency: {pools: 10, maxUnavailableNodes: \"5%\"}}"))
                .specs().clusters().get(0).concurrency();
        FleetConcurrency count = loadCluster(cluster("  rollout:", "    concurrency:", "      maxUnavailableNodes: 7"))
                .specs().clusters().get(0).concurrency();

        assertThat(percent).isEqualTo(new FleetConcurrency(10, Optional.of(IntOrPercent.percentOf(5))));
        assertThat(percent.resolveMaxUnavailable(5_000)).isEqualTo(250);
        assertThat(percent.resolveMaxUnavailable(10)).as("rounds down, never below 1").isEqualTo(1);
        assertThat(count).isEqualTo(new FleetConcurrency(1, Optional.of(IntOrPercent.of(7))));
    }

    @Test
    void afterIsReadOnAPoolAndMovesNoHash() {
        LoadResult result = load(CLUSTER_FILE, CLUSTER, POOL_FILE, pool("  rollout: {after: [web]}"), WEB_FILE, named("web"));

        assertThat(result.errors()).isEmpty();
        ResolvedPool cpu = result.specs().resolvedPools("prod").stream().filter(p -> p.pool().name().equals("cpu")).findFirst().orElseThrow();
        assertThat(cpu.pool().after()).containsExactly("web");
        ResolvedPool plain = loadPool(POOL).specs().resolvedPools("prod").get(0);
        assertThat(HashScheme.ROLL.compute(cpu)).isEqualTo(HashScheme.ROLL.compute(plain));
    }

    @Test
    void theCanonicalFormKeepsConcurrencyAndAfter() {
        LoadResult full = load(CLUSTER_FILE, cluster("  rollout: {soak: 1m, concurrency: {pools: 3, maxUnavailableNodes: \"25%\"}}"),
                POOL_FILE, pool("  rollout: {after: [web]}"));

        String clusterText = CanonicalYaml.cluster(full.specs().clusters().get(0));
        String poolText = CanonicalYaml.pool(full.specs().pools().get(0));
        assertThat(clusterText).contains("maxUnavailableNodes: \"25%\"");
        assertThat(poolText).contains("after: [\"web\"]");
        assertThat(CanonicalYaml.pool(loadPool(POOL).specs().pools().get(0))).doesNotContain("after");
        // Read back alone (web is not in these two files): the cluster's concurrency is kept exactly.
        LoadResult back = CanonicalYaml.read(clusterText, pool());
        assertThat(back.specs().clusters()).isEqualTo(full.specs().clusters());
    }

    // ---- errors, each at its file:line:column ------------------------------------------------

    @Test
    void zeroPoolsAtOnceIsRefused() {
        assertOnlyError(loadCluster(cluster("  rollout: {concurrency: {pools: 0}}")), CLUSTER_FILE, 6, 34,
                "spec.rollout.concurrency.pools", "must be an integer from 1 to 10000");
    }

    @Test
    void aBudgetOfZeroIsRefusedWithTheAdviceToPause() {
        assertOnlyError(loadCluster(cluster("  rollout: {concurrency: {maxUnavailableNodes: 0}}")), CLUSTER_FILE, 6, 48,
                "spec.rollout.concurrency.maxUnavailableNodes", "pause instead");
        assertOnlyError(loadCluster(cluster("  rollout: {concurrency: {maxUnavailableNodes: \"0%\"}}")), CLUSTER_FILE, 6, 48,
                "spec.rollout.concurrency.maxUnavailableNodes", "must be a count >= 1 or a percentage from 1% to 100%");
    }

    @Test
    void aBadPercentageOrAFractionIsRefused() {
        assertOnlyError(loadCluster(cluster("  rollout: {concurrency: {maxUnavailableNodes: \"150%\"}}")), CLUSTER_FILE, 6, 48,
                "spec.rollout.concurrency.maxUnavailableNodes", "got \"150%\"");
        assertOnlyError(loadCluster(cluster("  rollout: {concurrency: {maxUnavailableNodes: 2.5}}")), CLUSTER_FILE, 6, 48,
                "spec.rollout.concurrency.maxUnavailableNodes", "a count >= 1");
    }

    @Test
    void afterOnTheClusterAndConcurrencyOnAPoolAreRefusedAtTheirKeys() {
        assertOnlyError(loadCluster(cluster("  rollout: {after: [web]}")), CLUSTER_FILE, 6, 13, "spec.rollout.after",
                "is a WorkerPool's field");
        assertOnlyError(loadPool(pool("  rollout: {concurrency: {pools: 2}}")), POOL_FILE, 8, 13, "spec.rollout.concurrency",
                "is the Cluster's field");
    }

    @Test
    void anUnknownPoolInAfterIsRefusedAtItsName() {
        LoadResult result = load(CLUSTER_FILE, CLUSTER, POOL_FILE, pool("  rollout:", "    after: [web, gpu]"), WEB_FILE, named("web"));

        assertOnlyError(result, POOL_FILE, 9, 18, "spec.rollout.after[1]", "no WorkerPool named \"gpu\" in cluster \"prod\" (known: cpu, web)");
    }

    @Test
    void aPoolAfterItselfIsRefused() {
        assertOnlyError(loadPool(pool("  rollout: {after: [cpu]}")), POOL_FILE, 8, 21, "spec.rollout.after[0]", "cannot start after itself");
    }

    @Test
    void aNameTwiceOrNotAPoolNameIsRefused() {
        LoadResult result = load(CLUSTER_FILE, CLUSTER, POOL_FILE, pool("  rollout: {after: [web, web, Web_1]}"), WEB_FILE, named("web"));

        assertThat(result.errors()).satisfiesExactly(
                error(POOL_FILE, 8, 26, "spec.rollout.after[1]", "names \"web\" twice"),
                error(POOL_FILE, 8, 31, "spec.rollout.after[2]", "must be a pool's name"));
    }

    @Test
    void aControlPlanePoolAfterANodePoolWouldWaitForeverAndIsRefused() {
        LoadResult result = load(CLUSTER_FILE, CLUSTER, POOL_FILE, POOL,
                CP_FILE, named("masters", "  role: control-plane", "  maxSurge: 0", "  maxUnavailable: 1", "  rollout: {after: [cpu]}"));

        assertOnlyError(result, CP_FILE, 11, 21, "spec.rollout.after[0]", "\"cpu\" has role node, which rolls after role control-plane");
    }

    @Test
    void aCycleIsRefusedAtTheAfterThatClosesIt() {
        LoadResult result = load(CLUSTER_FILE, CLUSTER, POOL_FILE, pool("  rollout: {after: [web]}"),
                WEB_FILE, named("web", "  rollout: {after: [cpu]}"));

        assertOnlyError(result, WEB_FILE, 8, 21, "spec.rollout.after[0]", "closes a cycle cpu -> web -> cpu");
    }

    @Test
    void aNodePoolMayStartAfterAControlPlanePool() {
        LoadResult result = load(CLUSTER_FILE, CLUSTER, POOL_FILE, pool("  rollout: {after: [masters]}"),
                CP_FILE, named("masters", "  role: control-plane", "  maxSurge: 0", "  maxUnavailable: 1"));

        assertThat(result.errors()).isEmpty();
    }
}
