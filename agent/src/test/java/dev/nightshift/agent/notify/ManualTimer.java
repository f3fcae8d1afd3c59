package dev.nightshift.agent.notify;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A timer cranked by the test: it records each delay asked for and runs the tasks when told. */
final class ManualTimer implements Timer {

    final List<Duration> delays = new ArrayList<>();
    private final List<Runnable> due = new ArrayList<>();

    @Override
    public void schedule(Runnable task, Duration delay) {
        delays.add(delay);
        due.add(task);
    }

    /** Runs what is scheduled, and what that schedules, until nothing is; returns how many ran. */
    int runAll() {
        int ran = 0;
        while (!due.isEmpty()) {
            due.remove(0).run();
            ran++;
        }
        return ran;
    }

    @Override
    public void close() {
    }
}
