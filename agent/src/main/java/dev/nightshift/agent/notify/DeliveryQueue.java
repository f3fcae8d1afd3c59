package dev.nightshift.agent.notify;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One destination's bounded queue, delivered in order on the destination's own {@link Timer}: {@link #offer} only adds
 * and returns, so the reconcile thread never waits for a forge. A try that may succeed later is tried again with
 * {@link Backoff}, the queue waiting behind it (statuses must arrive in order); after the last try it is counted as
 * failed and the next goes. A newer status of a commit replaces one of the same commit still waiting. When full, the
 * oldest waiting notice is dropped and counted. Only while {@code leading} is anything sent: a replica that stands by
 * drops its queue (the next leader derives what is still owed from the cluster).
 */
final class DeliveryQueue implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DeliveryQueue.class);

    /** The results counted in {@code nightshift_notifications_total{result}}. */
    enum Result {
        DELIVERED, RETRIED, FAILED, DROPPED;

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** What the queue tells the rest: each result (for the counter) and each delivery (for the ledger). */
    interface Listener {

        void counted(String destination, Result result);

        void delivered(String destination, Notice notice);
    }

    /** The queue as {@code /status} shows it. */
    record State(String destination, int queued, long delivered, long failed, long dropped, Optional<String> lastError,
                 Optional<String> lastFailure, Optional<Instant> lastDelivered) {
    }

    private final Sender sender;
    private final int capacity;
    private final Backoff backoff;
    private final Timer timer;
    private final Clock clock;
    private final Ledger ledger;
    private final Listener listener;
    private final BooleanSupplier leading;

    private final Deque<Notice> waiting = new ArrayDeque<>();
    /** A drain is scheduled or running: offers do not schedule another. */
    private boolean draining;
    /** Closing: the notice under way is finished, no other is started. */
    private volatile boolean stopping;
    private int failedTries;
    private long delivered;
    private long failed;
    private long dropped;
    private Optional<String> lastError = Optional.empty();
    /** The last notice given up (or dropped), and why. */
    private Optional<String> lastFailure = Optional.empty();
    private Optional<Instant> lastDelivered = Optional.empty();

    DeliveryQueue(Sender sender, int capacity, Backoff backoff, Timer timer, Clock clock, Ledger ledger, Listener listener,
                  BooleanSupplier leading) {
        this.sender = sender;
        this.capacity = capacity;
        this.backoff = backoff;
        this.timer = timer;
        this.clock = clock;
        this.ledger = ledger;
        this.listener = listener;
        this.leading = leading;
    }

    String destination() {
        return sender.destination();
    }

    /** Queues the notice if the destination wants it and has not had it; never blocks on the destination. */
    void offer(Notice notice) {
        if (!sender.wants(notice) || ledger.delivered(sender.destination(), notice)) {
            return;
        }
        boolean schedule;
        synchronized (this) {
            if (notice instanceof Notice.Status) {
                // The head may be in flight: only statuses behind it are replaced.
                boolean first = true;
                for (var it = waiting.iterator(); it.hasNext(); ) {
                    Notice n = it.next();
                    if (!first && n instanceof Notice.Status && n.commit().equals(notice.commit())) {
                        it.remove();
                    }
                    first = false;
                }
            }
            if (waiting.size() >= capacity) {
                // The head may be in flight: the oldest behind it goes.
                Notice gone = waiting.size() > 1 ? removeSecond() : waiting.pollFirst();
                dropped++;
                lastFailure = Optional.of(describe(gone) + " dropped: the queue was full (" + capacity + ")");
                listener.counted(sender.destination(), Result.DROPPED);
            }
            waiting.addLast(notice);
            schedule = !draining;
            draining = true;
        }
        if (schedule) {
            timer.schedule(this::drain, Duration.ZERO);
        }
    }

    private Notice removeSecond() {
        Notice head = waiting.pollFirst();
        Notice second = waiting.pollFirst();
        waiting.addFirst(head);
        return second;
    }

    /** Sends what waits, in order, until the queue is empty or a try must wait for its back-off. On the timer's thread. */
    void drain() {
        while (true) {
            Notice next;
            synchronized (this) {
                next = waiting.peekFirst();
                if (next == null || stopping) {
                    draining = false;
                    return;
                }
                if (!leading.getAsBoolean()) {
                    waiting.clear();
                    failedTries = 0;
                    draining = false;
                    return;
                }
            }
            if (next instanceof Notice.Status s && !ledger.lastStatus(sender.destination(), s.commit())
                    .map(last -> sender.worthSending(last, s.status())).orElse(true)) {
                done(next);
                continue;
            }
            Outcome outcome = sender.send(next);
            if (outcome instanceof Outcome.Delivered) {
                ledger.delivered(sender.destination(), next, cluster(next), clock.instant());
                synchronized (this) {
                    delivered++;
                    lastDelivered = Optional.of(clock.instant());
                }
                listener.counted(sender.destination(), Result.DELIVERED);
                listener.delivered(sender.destination(), next);
                done(next);
            } else if (outcome instanceof Outcome.Retry retry && failedTries + 1 < backoff.attempts()) {
                Duration wait;
                synchronized (this) {
                    failedTries++;
                    lastError = Optional.of(retry.reason());
                    Duration b = backoff.after(failedTries);
                    wait = retry.after().filter(a -> a.compareTo(b) > 0).filter(a -> a.compareTo(backoff.longest()) <= 0).orElse(b);
                }
                listener.counted(sender.destination(), Result.RETRIED);
                LOG.debug("{}: {}; trying again in {} ms", sender.destination(), retry.reason(), wait.toMillis());
                timer.schedule(this::drain, wait);
                return;
            } else {
                String why = outcome instanceof Outcome.Retry r ? r.reason() + " (" + backoff.attempts() + " tries)"
                        : ((Outcome.Failed) outcome).reason();
                synchronized (this) {
                    failed++;
                    lastError = Optional.of(why);
                    lastFailure = Optional.of(describe(next) + " not delivered: " + why);
                }
                LOG.warn("{} not delivered: {}", describe(next), why);
                listener.counted(sender.destination(), Result.FAILED);
                done(next);
            }
        }
    }

    private synchronized void done(Notice notice) {
        if (waiting.peekFirst() == notice) {
            waiting.pollFirst();
        }
        failedTries = 0;
    }

    synchronized State state() {
        return new State(sender.destination(), waiting.size(), delivered, failed, dropped, lastError, lastFailure, lastDelivered);
    }

    private static String cluster(Notice n) {
        return n instanceof Notice.Status s ? s.status().cluster() : ((Notice.Event) n).event().cluster();
    }

    private String describe(Notice n) {
        String what = n instanceof Notice.Status s ? "status " + s.status().state().name().toLowerCase(java.util.Locale.ROOT)
                : ((Notice.Event) n).event().type().wireName();
        return sender.destination() + " " + what + " of commit " + RolloutObserver.shortHash(n.commit());
    }

    /** Starts nothing more; what is under way goes on ({@link #awaitClosed}). */
    @Override
    public void close() {
        stopping = true;
        timer.close();
    }

    void awaitClosed(Duration grace) {
        timer.awaitClosed(grace);
    }
}
