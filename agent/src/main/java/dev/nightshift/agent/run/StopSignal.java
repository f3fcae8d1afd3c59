package dev.nightshift.agent.run;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * For commands that run until stopped: {@link #await} returns on SIGTERM or Ctrl-C, and the JVM,
 * which halts once its shutdown hooks return, waits (up to {@code grace}) until this is closed,
 * i.e. until the command has closed what it runs (a reconcile in progress finishes its steps, a
 * leader releases its lease).
 */
public final class StopSignal implements AutoCloseable {

    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CountDownLatch closed = new CountDownLatch(1);
    private final Thread hook;

    public StopSignal(Duration grace) {
        this.hook = new Thread(() -> {
            stopped.countDown();
            try {
                closed.await(grace.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "nightshift-shutdown");
    }

    /** From now on a stop request waits for {@link #close}. */
    public void install() {
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Returns once the process is asked to stop. */
    public void await() throws InterruptedException {
        stopped.await();
    }

    /** What the command runs is closed: the JVM may halt. */
    @Override
    public void close() {
        closed.countDown();
    }
}
