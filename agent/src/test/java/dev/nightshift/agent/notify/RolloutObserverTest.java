package dev.nightshift.agent.notify;

import static dev.nightshift.agent.notify.Reports.C1;
import static dev.nightshift.agent.notify.Reports.C2;
import static dev.nightshift.agent.notify.Reports.blocked;
import static dev.nightshift.agent.notify.Reports.failed;
import static dev.nightshift.agent.notify.Reports.halted;
import static dev.nightshift.agent.notify.Reports.pool;
import static dev.nightshift.agent.notify.Reports.report;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.load.SpecError;

class RolloutObserverTest {

    private static final Instant T0 = Instant.parse("2026-11-27T02:00:00Z");
    private final RolloutObserver observer = new RolloutObserver("prod", Optional.empty());

    private static List<String> said(List<Notice> notices) {
        return notices.stream().map(n -> n instanceof Notice.Status s
                ? "status " + s.status().state() + " " + s.status().description()
                : ((Notice.Event) n).event().type().wireName() + ((Notice.Event) n).event().pool().map(p -> " " + p).orElse("")).toList();
    }

    @Test
    void aWholeRolloutIsToldOnceInOrder() {
        List<String> all = new java.util.ArrayList<>();
        all.addAll(said(observer.observe(report(T0, C1, pool("a", 2, 0, 0), pool("b", 2, 0, 0)), Optional.empty())));
        all.addAll(said(observer.observe(report(T0.plusSeconds(2), C1, pool("a", 2, 0, 1), pool("b", 2, 0, 0)), Optional.empty())));
        all.addAll(said(observer.observe(report(T0.plusSeconds(4), C1, pool("a", 2, 0, 1), pool("b", 2, 0, 0)), Optional.empty())));
        all.addAll(said(observer.observe(report(T0.plusSeconds(90), C1, pool("a", 2, 1, 1), pool("b", 2, 0, 0)), Optional.empty())));
        all.addAll(said(observer.observe(report(T0.plusSeconds(120), C1, pool("a", 2, 2, 0), pool("b", 2, 0, 1)), Optional.empty())));
        all.addAll(said(observer.observe(report(T0.plusSeconds(200), C1, pool("a", 2, 2, 0), pool("b", 2, 2, 0)), Optional.empty())));
        all.addAll(said(observer.observe(report(T0.plusSeconds(202), C1, pool("a", 2, 2, 0), pool("b", 2, 2, 0)), Optional.empty())));

        assertThat(all).containsExactly(
                "status PENDING 2 pools",
                "rollout.started", "pool.started a",
                "pool.progress a",
                "pool.completed a", "pool.started b",
                "status PENDING 1/2 pools current",
                "pool.completed b", "rollout.completed",
                "status SUCCESS 2/2 pools current");
    }

    @Test
    void aPoolWhoseStampsAPassLeftForTheNextStartsNoRollout() {
        // An adoption of many nodes cut by the pass's time for steps: UPDATING, with nothing outdated or in flight.
        List<String> cut = said(observer.observe(report(T0, C1, pool("a", 2, 2, 0).withStepsLeft()), Optional.empty()));
        List<String> done = said(observer.observe(report(T0.plusSeconds(1), C1, pool("a", 2, 2, 0)), Optional.empty()));

        assertThat(cut).containsExactly("status SUCCESS 1/1 pools current");
        assertThat(done).isEmpty();
    }

    @Test
    void progressIsToldAtMostOnceAMinutePerPool() {
        observer.observe(report(T0, C1, pool("a", 10, 0, 1)), Optional.empty());
        List<String> within = said(observer.observe(report(T0.plusSeconds(30), C1, pool("a", 10, 1, 1)), Optional.empty()));
        List<String> after = said(observer.observe(report(T0.plusSeconds(61), C1, pool("a", 10, 2, 1)), Optional.empty()));

        assertThat(within).doesNotContain("pool.progress a");
        assertThat(after).contains("pool.progress a");
    }

    @Test
    void aFailedPoolFailsTheCommitWithTheReason() {
        observer.observe(report(T0, C1, pool("a", 2, 0, 1)), Optional.empty());
        List<Notice> notices = observer.observe(report(T0.plusSeconds(600), C1,
                failed("a", 2, 0, "ProgressDeadlineExceeded")), Optional.empty());

        assertThat(said(notices)).containsExactly("pool.failed a",
                "status FAILURE pool a failed: no node finished within its progress deadline (ProgressDeadlineExceeded)");
        NotificationEvent e = ((Notice.Event) notices.get(0)).event();
        assertThat(e.data()).containsEntry("reason", "no node finished within its progress deadline (ProgressDeadlineExceeded)");
    }

    @Test
    void aHaltedPoolIsToldOnceWithTheCheckAndItsValue() {
        observer.observe(report(T0, C1, pool("a", 4, 0, 1)), Optional.empty());
        Instant haltedAt = T0.plusSeconds(60);
        List<Notice> first = observer.observe(report(haltedAt, C1, halted("a", 4, 1, haltedAt)), Optional.empty());
        List<Notice> again = observer.observe(report(haltedAt.plusSeconds(2), C1, halted("a", 4, 1, haltedAt)), Optional.empty());

        assertThat(said(first)).contains("pool.halted a");
        NotificationEvent e = first.stream().filter(n -> n instanceof Notice.Event ev && ev.event().type() == EventType.POOL_HALTED)
                .map(n -> ((Notice.Event) n).event()).findFirst().orElseThrow();
        assertThat(e.data()).containsEntry("check", "error-rate").containsEntry("value", "0.07").containsEntry("threshold", "<= 0.01")
                .containsEntry("wave", 1);
        assertThat(said(again)).doesNotContain("pool.halted a");
    }

    @Test
    void aBlockedDrainNamesThePodAndTheBudgetOnce() {
        observer.observe(report(T0, C1, pool("a", 2, 0, 1)), Optional.empty());
        List<Notice> first = observer.observe(report(T0.plusSeconds(2), C1, blocked("a", 2, 0, "n1", "web-1", "web-pdb")), Optional.empty());
        List<Notice> again = observer.observe(report(T0.plusSeconds(4), C1, blocked("a", 2, 0, "n1", "web-1", "web-pdb")), Optional.empty());

        assertThat(said(first)).containsExactly("pool.blocked a");
        assertThat(((Notice.Event) first.get(0)).event().data()).containsEntry("pod", "web-1").containsEntry("podDisruptionBudget", "web-pdb")
                .containsEntry("node", "n1");
        assertThat(again).isEmpty();
    }

    @Test
    void aNewCommitSupersedesOneStillPending() {
        observer.observe(report(T0, C1, pool("a", 2, 0, 1)), Optional.empty());
        List<String> next = said(observer.observe(report(T0.plusSeconds(5), C2, pool("a", 2, 0, 1)), Optional.empty()));

        assertThat(next).startsWith("status SUPERSEDED superseded by 2222222");
        assertThat(next).endsWith("status PENDING 1 pool");
    }

    @Test
    void anInvalidSpecIsAnErrorAtFileAndLine() {
        List<Notice> notices = observer.specInvalid(C2, List.of(new SpecError("pools/cpu.yaml", 12, 5, "spec.maxSurge", "must be a number"),
                new SpecError("cluster.yaml", 3, 1, "", "bad")), T0);

        assertThat(said(notices)).containsExactly("spec.invalid",
                "status ERROR pools/cpu.yaml:12: spec.maxSurge: must be a number (and 1 more)");
    }

    @Test
    void aRefusedCommitFailsWithTheReasonWhileTheAcceptedOneGoesOn() {
        observer.observe(report(T0, C1, pool("a", 2, 2, 0)), Optional.empty());
        List<String> notices = said(observer.observe(Reports.withRejected(report(T0.plusSeconds(2), C1, pool("a", 2, 2, 0)),
                "a: spec.kubernetes.version: a downgrade (1.31.5 -> 1.31.4) is not allowed"), Optional.of(C2)));

        assertThat(notices).containsExactly("commit.refused",
                "status FAILURE refused: a: spec.kubernetes.version: a downgrade (1.31.5 -> 1.31.4) is not allowed");
    }

    @Test
    void aWindowThatClosedWithWorkLeftIsToldOnce() {
        observer.observe(report(T0, C1, pool("a", 4, 1, 0)), Optional.empty());
        List<String> first = said(observer.observe(Reports.withOverdue(report(T0.plusSeconds(2), C1, pool("a", 4, 1, 0)), Map.of("a", 3)),
                Optional.empty()));
        List<String> again = said(observer.observe(Reports.withOverdue(report(T0.plusSeconds(4), C1, pool("a", 4, 1, 0)), Map.of("a", 3)),
                Optional.empty()));

        assertThat(first).containsExactly("window.closed-with-work-left");
        assertThat(again).isEmpty();
    }

    @Test
    void aRestartedObserverSeededWithTheDeliveredSaysNothingAgain() {
        RolloutObserver restarted = new RolloutObserver("prod", Optional.empty());
        restarted.seed(Map.of(C1, Set.of("rollout.started", "pool.started/a")),
                Map.of(C1, new CommitStatus("prod", C1, CommitState.PENDING, "2 pools")));

        List<String> notices = said(restarted.observe(report(T0, C1, pool("a", 2, 0, 1), pool("b", 2, 0, 0)), Optional.empty()));

        assertThat(notices).isEmpty();
    }

    @Test
    void aRestartedObserverStillOwesTheFinalStatus() {
        RolloutObserver restarted = new RolloutObserver("prod", Optional.empty());
        restarted.seed(Map.of(C1, Set.of("rollout.started", "pool.started/a")),
                Map.of(C1, new CommitStatus("prod", C1, CommitState.PENDING, "2 pools")));

        List<String> notices = said(restarted.observe(report(T0, C1, pool("a", 2, 2, 0)), Optional.empty()));

        assertThat(notices).containsExactly("pool.completed a", "rollout.completed", "status SUCCESS 1/1 pools current");
    }

    @Test
    void aRolloutIsAnnouncedBeforeItsWindow() {
        RolloutObserver announcing = new RolloutObserver("prod", Optional.of(Duration.ofHours(2)));
        dev.nightshift.agent.window.Window next = new dev.nightshift.agent.window.Window(T0.plus(Duration.ofHours(1)),
                T0.plus(Duration.ofHours(5)), List.of("timeWindow"));
        dev.nightshift.agent.window.WindowState closed = windowClosedUntil(next);
        var r = new dev.nightshift.agent.reconcile.ReconcileReport(T0, C1, closed, report(T0, C1, pool("a", 3, 0, 0)).plan(), List.of(),
                List.of(), List.of(), Map.of(), List.of(), List.of(), Duration.ZERO, Optional.empty(), Map.of(), List.of(), Optional.empty(),
                List.of(), Map.of());

        List<Notice> notices = announcing.observe(r, Optional.empty());

        assertThat(said(notices)).startsWith("rollout.announced");
        assertThat(((Notice.Event) notices.get(0)).event().message()).isEqualTo(
                "3 nodes in 1 pool will roll in the window opening at 2026-11-27T03:00:00Z");
    }

    private static dev.nightshift.agent.window.WindowState windowClosedUntil(dev.nightshift.agent.window.Window next) {
        return new dev.nightshift.agent.window.WindowState(false, false, Optional.empty(), Optional.empty(), Optional.of(next), true);
    }
}
