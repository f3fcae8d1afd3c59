package dev.nightshift.agent.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.nightshift.agent.git.SpecRevision;

/** The loop around the pass, with a fake pass: who runs passes, how requests coalesce, what a failure or a new term does. */
class ReconcilerLoopTest {

    private final List<ReconcileReport> reports = new CopyOnWriteArrayList<>();
    private final FakePass pass = new FakePass();
    private Reconciler loop;

    @AfterEach
    void close() {
        pass.release.countDown();
        if (loop != null) {
            loop.close();
        }
    }

    private Reconciler loop(boolean leading) {
        loop = new Reconciler(pass, leading, Clock.systemUTC(), reports::add);
        return loop;
    }

    @Test
    void aReplicaStandingByRunsNoPassWhateverItIsAsked() throws Exception {
        Reconciler standby = loop(false);
        pass.release.countDown();

        standby.offer(new SpecRevision("abc", null, Instant.now()));
        standby.request();
        // A pass asked of the leader afterwards runs: the requests before it were taken and dropped, not queued.
        standby.lead();

        await().atMost(Duration.ofSeconds(5)).until(() -> pass.runs.get() == 1);
        assertThat(pass.offered).containsExactly("abc");
    }

    @Test
    void requestsMadeWhileAPassRunsCollapseIntoOneMorePass() throws Exception {
        Reconciler leader = loop(true);
        leader.request();
        assertThat(pass.started.await(5, TimeUnit.SECONDS)).isTrue();

        for (int i = 0; i < 10; i++) {
            leader.request();
        }
        pass.release.countDown();

        await().atMost(Duration.ofSeconds(5)).until(() -> pass.runs.get() == 2);
        // Nothing else is pending: no third pass comes (the idle resync is 30 s away).
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> pass.runs.get() == 2);
    }

    @Test
    void aFailedPassIsReportedAsFailedWithTheCommitActedOn() {
        pass.release.countDown();
        pass.failure = new IllegalStateException("the API server went away");
        loop(true).request();

        await().atMost(Duration.ofSeconds(5)).until(() -> !reports.isEmpty());
        ReconcileReport failed = reports.get(0);
        assertThat(failed.error()).contains("IllegalStateException: the API server went away");
        assertThat(failed.revision()).isEqualTo("acted-on");
        assertThat(failed.rejected()).containsExactly("a refusal");
    }

    @Test
    void aNewTermRebuildsWhatWasAcceptedAndAnEndedTermIsForgottenBeforeTheNextPass() {
        pass.release.countDown();
        Reconciler replica = loop(true);
        replica.request();
        await().atMost(Duration.ofSeconds(5)).until(() -> pass.runs.get() == 1);

        replica.standBy();
        replica.lead();

        await().atMost(Duration.ofSeconds(5)).until(() -> pass.runs.get() == 2);
        assertThat(pass.calls).containsExactly("rebuild", "run", "forget", "rebuild", "run");
    }

    @Test
    void aPassThatLeftStepsForTheNextIsFollowedByItAtOnceAndOneThatLeftNoneIsNot() {
        pass.release.countDown();
        pass.report = true;
        pass.stepsLeft.add(7);

        loop(true).request();

        // Without steps left, an empty plan waits for the idle resync (30 s): the second pass comes from the steps left.
        await().atMost(Duration.ofSeconds(5)).until(() -> pass.runs.get() == 2);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> pass.runs.get() == 2);
    }

    private static final class FakePass implements Reconciler.Pass {
        /** Steps left by each pass in turn; none once empty. */
        final java.util.Queue<Integer> stepsLeft = new java.util.concurrent.ConcurrentLinkedQueue<>();
        volatile int left;
        volatile boolean report;
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger runs = new AtomicInteger();
        final List<String> calls = new CopyOnWriteArrayList<>();
        final List<String> offered = new CopyOnWriteArrayList<>();
        volatile RuntimeException failure;

        @Override
        public Optional<ReconcileReport> run(SpecRevision revision, Instant now) {
            calls.add("run");
            if (revision != null) {
                offered.add(revision.commit());
            }
            started.countDown();
            try {
                release.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            left = Optional.ofNullable(stepsLeft.poll()).orElse(0);
            runs.incrementAndGet();
            if (failure != null) {
                throw failure;
            }
            return report ? Optional.of(ReconcileReport.planned(now, "acted-on", null,
                    new dev.nightshift.strategies.plan.Plan(List.of(), Optional.empty()))) : Optional.empty();
        }

        @Override
        public int stepsLeft() {
            return left;
        }

        @Override
        public void rebuildAcceptance() {
            calls.add("rebuild");
        }

        @Override
        public void forgetTerm() {
            calls.add("forget");
        }

        @Override
        public Optional<String> acceptedCommit() {
            return Optional.of("acted-on");
        }

        @Override
        public List<String> rejected() {
            return List.of("a refusal");
        }
    }
}
