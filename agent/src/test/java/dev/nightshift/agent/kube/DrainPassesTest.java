package dev.nightshift.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.plan.Step;

class DrainPassesTest {

    /** Runs what it is given only when the test says so: a pass handed over is running until then. */
    private static final class HeldPasses implements Executor {
        private final List<Runnable> held = new ArrayList<>();

        @Override
        public synchronized void execute(Runnable pass) {
            held.add(pass);
        }

        synchronized int count() {
            return held.size();
        }

        void runAll() {
            List<Runnable> now;
            synchronized (this) {
                now = new ArrayList<>(held);
                held.clear();
            }
            now.forEach(Runnable::run);
        }
    }

    private static Optional<StepExecutor.Outcome> drained(String node, int evicted) {
        return Optional.of(new StepExecutor.Outcome(new Step.Drain(node, "web"), "draining " + node + ": " + evicted + " pod(s) evicted",
                new StepExecutor.Evictions(evicted, 0, 0)));
    }

    @Test
    void aPassHandedToItsThreadReturnsAtOnceAndItsOutcomeComesWithTheFinishedPasses() {
        HeldPasses threads = new HeldPasses();
        DrainPasses drains = DrainPasses.on(threads);

        Optional<StepExecutor.Outcome> started = drains.start("web-1", () -> drained("web-1", 18));

        assertThat(started).isEmpty();
        assertThat(drains.running("web-1")).isTrue();
        assertThat(drains.finished()).isEmpty();
        threads.runAll();
        assertThat(drains.running("web-1")).isFalse();
        assertThat(drains.finished()).extracting(StepExecutor.Outcome::evictions).containsExactly(new StepExecutor.Evictions(18, 0, 0));
        assertThat(drains.finished()).as("handed over once").isEmpty();
    }

    @Test
    void aDrainOfANodeWhosePassIsRunningStartsNothingWhileOtherNodesPassesStart() {
        HeldPasses threads = new HeldPasses();
        DrainPasses drains = DrainPasses.on(threads);
        AtomicInteger passes = new AtomicInteger();

        drains.start("web-1", () -> {
            passes.incrementAndGet();
            return drained("web-1", 1);
        });
        drains.start("web-1", () -> {
            passes.incrementAndGet();
            return drained("web-1", 1);
        });
        drains.start("web-2", () -> drained("web-2", 1));

        assertThat(threads.count()).isEqualTo(2);
        threads.runAll();
        assertThat(passes).hasValue(1);
        assertThat(drains.finished()).extracting(o -> o.step().target()).containsExactlyInAnyOrder("web-1", "web-2");
    }

    @Test
    void aNodesNextPassStartsOnceItsLastOneFinished() {
        HeldPasses threads = new HeldPasses();
        DrainPasses drains = DrainPasses.on(threads);
        drains.start("web-1", () -> drained("web-1", 3));
        threads.runAll();

        drains.start("web-1", () -> drained("web-1", 0));

        assertThat(threads.count()).isEqualTo(1);
    }

    @Test
    void aPassThatFailsIsForgottenAndTheNodeCanBeDrainedAgain() {
        HeldPasses threads = new HeldPasses();
        DrainPasses drains = DrainPasses.on(threads);
        drains.start("web-1", () -> {
            throw new IllegalStateException("the API server went away");
        });

        threads.runAll();

        assertThat(drains.running("web-1")).isFalse();
        assertThat(drains.finished()).isEmpty();
        drains.start("web-1", () -> drained("web-1", 2));
        assertThat(threads.count()).isEqualTo(1);
    }

    @Test
    void inTheCallerAPassRunsAtOnceAndItsOutcomeIsReturned() {
        DrainPasses drains = DrainPasses.inCaller();

        Optional<StepExecutor.Outcome> outcome = drains.start("web-1", () -> drained("web-1", 4));

        assertThat(outcome).hasValueSatisfying(o -> assertThat(o.evictions().evicted()).isEqualTo(4));
        assertThat(drains.running("web-1")).isFalse();
        assertThat(drains.finished()).isEmpty();
    }

    @Test
    void onThreadsTheCallerDoesNotWaitForAPassThatIsStillEvicting() throws Exception {
        CountDownLatch evicting = new CountDownLatch(1);
        CountDownLatch answered = new CountDownLatch(1);
        try (DrainPasses drains = DrainPasses.onThreads(2)) {
            Optional<StepExecutor.Outcome> started = drains.start("web-1", () -> {
                evicting.countDown();
                try {
                    // An eviction that is not answered until the test says so.
                    answered.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return drained("web-1", 1);
            });

            // Back here while the pass waits for its answer: start did not wait for it.
            assertThat(started).isEmpty();
            assertThat(evicting.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(drains.running("web-1")).isTrue();
            answered.countDown();
            org.awaitility.Awaitility.await().until(() -> !drains.running("web-1"));
            assertThat(drains.finished()).hasSize(1);
        }
    }
}
