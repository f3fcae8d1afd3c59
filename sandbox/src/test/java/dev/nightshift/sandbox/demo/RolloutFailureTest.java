package dev.nightshift.sandbox.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.agent.reconcile.NodeUpdate;
import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolPlan;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolReport;

class RolloutFailureTest {

    private static final Instant T0 = Instant.parse("2026-03-02T10:00:00Z");

    @Test
    void aFailedInPlaceUpdateNamesThePoolTheNodeAndHowLongItRan() {
        ReconcileReport report = report(List.of(pool("gpu-worker", PoolPhase.UPDATING, true)), List.of(
                new NodeUpdate("gpu-worker", "gpu-worker-1", NodeUpdate.Kind.IN_PLACE, false, Duration.ofMillis(3_200))),
                List.of());

        assertThat(RolloutFailure.in(report)).extracting(RolloutFailure::message)
                .containsExactly("pool gpu-worker: the in-place update of node gpu-worker-1 failed after 3.2s (NodeUpdateFailed)");
    }

    @Test
    void aSurgeMachineThatNeverBecameReadyIsAFailedRoll() {
        ReconcileReport report = report(List.of(), List.of(
                new NodeUpdate("batch", "batch-2bx3", NodeUpdate.Kind.ROLL, false, Duration.ofSeconds(30))), List.of());

        assertThat(RolloutFailure.in(report)).singleElement().satisfies(f -> {
            assertThat(f.reason()).isEqualTo(RolloutFailure.Reason.NODE_UPDATE_FAILED);
            assertThat(f.message()).startsWith("pool batch: machine batch-2bx3").contains("never became Ready").contains("30.0s");
        });
    }

    @Test
    void aPoolThePlannerMarksFailedIsAFailure() {
        ReconcileReport report = report(List.of(pool("bastion", PoolPhase.FAILED, true), pool("batch", PoolPhase.WAITING_FOR_TURN, true)),
                List.of(), List.of());

        assertThat(RolloutFailure.in(report)).singleElement().satisfies(f -> {
            assertThat(f.reason()).isEqualTo(RolloutFailure.Reason.MACHINE_FAILED);
            assertThat(f.message()).startsWith("pool bastion: 1 machine(s) failed").endsWith("(MachineFailed)");
        });
    }

    @Test
    void aFailedMachineCountsAlsoInAPoolReportedCurrent() {
        PoolReport current = pool("bastion", PoolPhase.CURRENT, true);
        PoolReport oneFailed = new PoolReport(current.pool(), current.phase(), PendingAction.NONE, 1, 1, 0, 0, 1, 1, 0, true, "",
                List.of(), List.of(), List.of(), PoolStatus.NEW);

        assertThat(RolloutFailure.in(report(List.of(oneFailed), List.of(), List.of()))).extracting(RolloutFailure::reason)
                .containsExactly(RolloutFailure.Reason.MACHINE_FAILED);
    }

    @Test
    void aPoolPastItsProgressDeadlineIsAFailure() {
        ReconcileReport report = report(List.of(pool("cpu-worker", PoolPhase.UPDATING, false)), List.of(), List.of());

        assertThat(RolloutFailure.in(report)).singleElement().satisfies(f -> {
            assertThat(f.reason()).isEqualTo(RolloutFailure.Reason.PROGRESS_DEADLINE_EXCEEDED);
            assertThat(f.message()).startsWith("pool cpu-worker: 2 node(s) still outdated").endsWith("(ProgressDeadlineExceeded)");
        });
    }

    @Test
    void aRefusedCommitIsAFailureThatQuotesTheRefusal() {
        String refusal = "gpu-worker: spec.machine.image.version 1631.0.0 -> 1640.0.0: not updatable in place";
        ReconcileReport report = report(List.of(pool("gpu-worker", PoolPhase.CURRENT, true)), List.of(), List.of(refusal));

        assertThat(RolloutFailure.in(report)).singleElement().satisfies(f -> {
            assertThat(f.reason()).isEqualTo(RolloutFailure.Reason.SPEC_REJECTED);
            assertThat(f.message()).contains("commit 0123abcd stays in force").contains(refusal).endsWith("(SpecRejected)");
        });
    }

    @Test
    void poolsUpdatingAndAReconcileErrorAreNoFailure() {
        ReconcileReport updating = report(List.of(pool("batch", PoolPhase.UPDATING, true), pool("bastion", PoolPhase.CURRENT, true)),
                List.of(new NodeUpdate("batch", "batch-1", NodeUpdate.Kind.ROLL, true, Duration.ofSeconds(8))), List.of());
        ReconcileReport error = ReconcileReport.failed(T0, "0123abcd4567", List.of(), Duration.ZERO, "KubernetesClientException: timeout");

        assertThat(RolloutFailure.in(updating)).isEmpty();
        assertThat(RolloutFailure.in(error)).isEmpty();
    }

    @Test
    void theWatchKeepsAFailedUpdateAfterLaterReportsNoLongerShowIt() {
        RolloutWatch watch = new RolloutWatch();
        NodeUpdate failed = new NodeUpdate("gpu-worker", "gpu-worker-1", NodeUpdate.Kind.IN_PLACE, false, Duration.ofSeconds(3));

        watch.accept(report(List.of(pool("gpu-worker", PoolPhase.FAILED, true)), List.of(failed), List.of()));
        watch.accept(report(List.of(pool("gpu-worker", PoolPhase.FAILED, true)), List.of(), List.of()));
        watch.accept(report(List.of(pool("gpu-worker", PoolPhase.UPDATING, true)), List.of(), List.of()));

        assertThat(watch.failures()).extracting(RolloutFailure::reason)
                .containsExactly(RolloutFailure.Reason.NODE_UPDATE_FAILED, RolloutFailure.Reason.MACHINE_FAILED);
    }

    private static PoolReport pool(String name, PoolPhase phase, boolean progressing) {
        int outdated = phase == PoolPhase.CURRENT ? 0 : 2;
        return new PoolReport(name, phase, PendingAction.ROLL, 3, 3 - outdated, outdated, phase == PoolPhase.UPDATING ? 1 : 0,
                phase == PoolPhase.FAILED ? 1 : 0, 1, 0, progressing, progressing ? "" : "ProgressDeadlineExceeded", List.of(),
                List.of(), List.of(), PoolStatus.NEW);
    }

    private static ReconcileReport report(List<PoolReport> pools, List<NodeUpdate> updates, List<String> rejected) {
        Plan plan = new Plan(pools.stream().map(p -> new PoolPlan(p.pool(), List.of(), p)).toList(), Optional.empty());
        return ReconcileReport.planned(T0, "0123abcd4567", null, plan).withRejected(rejected).withFinished(updates, List.of())
                .withTook(Duration.ofMillis(5));
    }
}
