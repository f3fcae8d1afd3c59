package dev.nightshift.agent.provider.http;

import java.time.Duration;

/** Waits between attempts; tests record the waits instead of waiting. */
@FunctionalInterface
public interface Sleeper {

    /** Really waits, on the calling thread. */
    Sleeper REAL = duration -> Thread.sleep(duration.toMillis());

    void sleep(Duration duration) throws InterruptedException;
}
