package dev.nightshift.agent.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.plan.Step;

/** The guard every pass has: the lease first, then the API server for repairs, asked once per pass and only for them. */
class ActingGuardTest {

    private final AtomicInteger asked = new AtomicInteger();
    private boolean ready = true;
    private boolean leading = true;
    private final ApiServerCheck apiServer = new ApiServerCheck(() -> {
        asked.incrementAndGet();
        return ready;
    });
    private final ActingGuard guard = new ActingGuard(() -> leading, apiServer);
    private final Step repair = new Step.Repair("web-1", "web", "KubeletNotReady", Instant.parse("2026-11-27T09:00:00Z"));

    @Test
    void aReplicaThatNoLongerLeadsStopsThePassAtTheNextStep() {
        leading = false;

        assertThat(guard.check(new Step.Drain("web-1", "web")).kind()).isEqualTo(StepGuard.Verdict.Kind.STOP);
    }

    @Test
    void aRepairIsSkippedWhileTheApiServerIsNotReadyAndTheOtherStepsAreAdmitted() {
        ready = false;

        assertThat(guard.check(repair)).isEqualTo(StepGuard.Verdict.refuse("api_server_not_ready",
                "not repairing web-1 (KubeletNotReady): the API server's /readyz fails"));
        assertThat(guard.check(new Step.Cordon("web-2", "web"))).isEqualTo(StepGuard.Verdict.ADMIT);
    }

    @Test
    void theApiServerIsAskedOncePerPassAndOnlyWhenARepairNeedsIt() {
        guard.check(new Step.Cordon("web-2", "web"));
        assertThat(asked).hasValue(0);

        guard.check(repair);
        guard.check(repair);
        assertThat(asked).hasValue(1);

        apiServer.reset();
        guard.check(repair);
        assertThat(asked).hasValue(2);
    }
}
