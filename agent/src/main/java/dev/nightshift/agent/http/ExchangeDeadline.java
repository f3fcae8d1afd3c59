package dev.nightshift.agent.http;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * How long the thread serving one HTTP exchange may still block on its client. The JDK's server reads
 * requests with blocking reads that have no timeout of their own; a client that sends a request's
 * headers and then nothing would hold the thread for ever. When the deadline passes, the thread is
 * interrupted: a thread blocked on the connection's channel then gets a {@code ClosedByInterruptException}
 * and the connection is closed, which frees the thread for the next request.
 *
 * <p>One deadline per thread and exchange, re-armed as the exchange moves on (headers, body, answer),
 * so that only one alarm can ever interrupt the thread, and never after {@link #end()}: the alarm and
 * {@code end} take the same lock, and {@code end} clears an interrupt that came before it.
 */
final class ExchangeDeadline {

    /** One daemon thread for every alarm: an alarm only answers 408 (a few bytes) and interrupts. */
    private static final ScheduledThreadPoolExecutor ALARMS = alarms();
    private static final ThreadLocal<ExchangeDeadline> CURRENT = new ThreadLocal<>();
    private static final Runnable NOTHING = () -> { };

    private final Thread thread;
    private ScheduledFuture<?> alarm;
    private Runnable beforeInterrupt = NOTHING;
    private boolean expired;
    private boolean ended;

    private ExchangeDeadline(Thread thread) {
        this.thread = thread;
    }

    private static ScheduledThreadPoolExecutor alarms() {
        ScheduledThreadPoolExecutor alarms = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "nightshift-http-deadlines");
            t.setDaemon(true);
            return t;
        });
        // Nearly every alarm is cancelled: do not keep them queued until they would have fired.
        alarms.setRemoveOnCancelPolicy(true);
        return alarms;
    }

    /** Starts the deadline of the exchange the current thread serves now; {@link #end()} it when the exchange is done. */
    static ExchangeDeadline begin(Duration within) {
        ExchangeDeadline deadline = new ExchangeDeadline(Thread.currentThread());
        deadline.rearm(within, NOTHING);
        CURRENT.set(deadline);
        return deadline;
    }

    /** The deadline of the exchange the current thread serves, if it was begun. */
    static Optional<ExchangeDeadline> current() {
        return Optional.ofNullable(CURRENT.get());
    }

    /**
     * From now, the exchange may block for {@code within}; when that passes, {@code beforeInterrupt}
     * runs (say, to answer 408 while the connection is still open), then the thread is interrupted.
     *
     * @return false when the deadline already passed: the connection is closed or closing, and
     *         nothing more may be sent on it
     */
    synchronized boolean rearm(Duration within, Runnable beforeInterrupt) {
        if (expired || ended) {
            return false;
        }
        if (alarm != null) {
            alarm.cancel(false);
        }
        this.beforeInterrupt = beforeInterrupt;
        alarm = ALARMS.schedule(this::expire, within.toNanos(), TimeUnit.NANOSECONDS);
        return true;
    }

    /** Whether the deadline passed (and the thread was interrupted). */
    synchronized boolean expired() {
        return expired;
    }

    private synchronized void expire() {
        if (ended) {
            return;
        }
        expired = true;
        try {
            beforeInterrupt.run();
        } finally {
            thread.interrupt();
        }
    }

    /** The exchange is over: no alarm interrupts the thread any more, and an interrupt that came before is cleared. */
    void end() {
        synchronized (this) {
            ended = true;
            if (alarm != null) {
                alarm.cancel(false);
            }
        }
        if (Thread.currentThread() == thread) {
            CURRENT.remove();
            // The thread goes back to the pool: an interrupt meant for this exchange must not hit the next one.
            Thread.interrupted();
        }
    }
}
