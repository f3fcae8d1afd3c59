package dev.nightshift.strategies;

import static dev.nightshift.strategies.Fixtures.cluster;
import static dev.nightshift.strategies.Fixtures.desired;
import static dev.nightshift.strategies.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.model.ResolvedPool;

/** A pool's limits resolved against its size: one rule for the planner, the simulator, the bounds and the reports. */
class PoolLimitsTest {

    private static ResolvedPool web(String limits) {
        return desired(cluster(pool("web", limits)), "web").spec();
    }

    @Test
    void surgePercentagesRoundUp() {
        assertThat(PoolLimits.of(web("maxSurge: 25%\nmaxUnavailable: 25%"), 10).maxSurge()).isEqualTo(3);
    }

    @Test
    void unavailablePercentagesRoundDown() {
        assertThat(PoolLimits.of(web("maxSurge: 25%\nmaxUnavailable: 25%"), 10).maxUnavailable()).isEqualTo(2);
    }

    @Test
    void withBothZeroAfterRoundingOneNodeMayBeUnavailable() {
        assertThat(PoolLimits.of(web("maxSurge: 0\nmaxUnavailable: 10%"), 5)).isEqualTo(new PoolLimits(0, 1));
    }

    @Test
    void withSurgeAZeroUnavailableStaysZero() {
        assertThat(PoolLimits.of(web("maxSurge: 1\nmaxUnavailable: 0"), 5)).isEqualTo(new PoolLimits(1, 0));
    }
}
