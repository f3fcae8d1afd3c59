package dev.nightshift.strategies;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolReport;

/** What "rollout in progress" means, for the agent's metrics and its resync pace alike. */
class RolloutInProgressTest {

    private static PoolReport report(PoolPhase phase, int updating) {
        return new PoolReport("web", phase, PendingAction.ROLL, 3, 1, 2, updating, 0, 1, 0, true, "", List.of(), List.of(),
                List.of(), PoolStatus.NEW);
    }

    @Test
    void anUpdatingPoolIsInProgress() {
        assertThat(report(PoolPhase.UPDATING, 0).rolloutInProgress()).isTrue();
    }

    @Test
    void aPoolRestartingKubeletsIsInProgress() {
        assertThat(report(PoolPhase.RESTARTING_KUBELETS, 0).rolloutInProgress()).isTrue();
    }

    @Test
    void nodesInFlightAreInProgressWhateverThePhase() {
        assertThat(report(PoolPhase.WAITING_FOR_WINDOW, 1).rolloutInProgress()).isTrue();
    }

    @Test
    void waitingWithNothingInFlightIsNotInProgress() {
        assertThat(report(PoolPhase.WAITING_FOR_WINDOW, 0).rolloutInProgress()).isFalse();
    }
}
