package dev.nightshift.agent.notify;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** A destination's own daemon thread: a slow forge delays only its own queue, never the reconcile or another destination. */
final class ExecutorTimer implements Timer {

    private final ScheduledThreadPoolExecutor executor;

    ExecutorTimer(String destination) {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "nightshift-notify-" + destination);
            t.setDaemon(true);
            return t;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public void schedule(Runnable task, Duration delay) {
        try {
            executor.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // Closing: what is queued is the next leader's to derive again.
        }
    }

    @Override
    public void close() {
        executor.shutdown();
    }

    /**
     * A delivery under way when the agent stops is let finish, and written down: interrupted, it could reach the
     * destination and not the ledger, and the next agent would send it again.
     */
    @Override
    public void awaitClosed(Duration grace) {
        try {
            if (!executor.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
