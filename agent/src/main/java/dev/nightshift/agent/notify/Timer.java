package dev.nightshift.agent.notify;

import java.time.Duration;

/** Runs a destination's work later on its own thread: an executor in the agent, a hand-cranked one in tests (no sleeps). */
interface Timer extends AutoCloseable {

    void schedule(Runnable task, Duration delay);

    /** Runs nothing more that is scheduled; a task running goes on. */
    @Override
    void close();

    /** Waits up to {@code grace} for a task running to finish, then interrupts it. */
    default void awaitClosed(Duration grace) {
    }
}
