package dev.nightshift.strategies;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolReport;

/** When a pool is fully current: the spec a later target's reasons start from. */
class FullyCurrentTest {

    private static PoolReport report(int outdated, int updating, int failed) {
        return new PoolReport("web", PoolPhase.CURRENT, PendingAction.NONE, 3, 3 - outdated, outdated, updating, failed, 1, 0, true, "",
                List.of(), List.of(), List.of(), PoolStatus.NEW);
    }

    @Test
    void aPoolWithNothingOutdatedOrInFlightIsFullyCurrent() {
        assertThat(report(0, 0, 0).fullyCurrent()).isTrue();
    }

    @Test
    void anOutdatedNodeMeansNotFullyCurrent() {
        assertThat(report(1, 0, 0).fullyCurrent()).isFalse();
    }

    @Test
    void aNodeInFlightMeansNotFullyCurrent() {
        assertThat(report(0, 1, 0).fullyCurrent()).isFalse();
    }

    @Test
    void aFailedNodeRunningTheSpecDoesNotMakeThePoolOutdated() {
        // Health failures are repaired, not a spec the pool has yet to reach.
        assertThat(report(0, 0, 1).fullyCurrent()).isTrue();
    }
}
