package dev.nightshift.agent.notify;

import java.time.Duration;

/** Runs a destination's work later on its own thread: an executor in the agent, a hand-cranked one in tests (no sleeps). */
interface Timer extends AutoCloseable {

    void schedule(Runnable task, Duration delay);

    @Override
    void close();
}
