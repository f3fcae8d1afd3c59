package dev.nightshift.agent.notify;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

/** The queue with a scripted sender and a hand-cranked timer: back-off, order, bounds and the ledger, without a sleep. */
class DeliveryQueueTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-27T02:00:00Z"), ZoneOffset.UTC);

    /** Answers from a script, then delivers; records what it was asked to send. */
    private static class ScriptedSender implements Sender {
        final Deque<Outcome> script = new ArrayDeque<>();
        final List<Notice> sent = new ArrayList<>();

        @Override
        public String destination() {
            return "commit-status";
        }

        @Override
        public boolean wants(Notice notice) {
            return true;
        }

        @Override
        public Outcome send(Notice notice) {
            sent.add(notice);
            return script.isEmpty() ? Outcome.DELIVERED : script.pollFirst();
        }
    }

    private final ScriptedSender sender = new ScriptedSender();
    private final ManualTimer timer = new ManualTimer();
    private final MapLedgerStore store = new MapLedgerStore();
    private final Ledger ledger = new Ledger(store);
    private final List<String> counted = new ArrayList<>();
    private final AtomicBoolean leading = new AtomicBoolean(true);
    private final DeliveryQueue.Listener listener = new DeliveryQueue.Listener() {
        @Override
        public void counted(String destination, DeliveryQueue.Result result) {
            counted.add(result.label());
        }

        @Override
        public void delivered(String destination, Notice notice) {
        }
    };

    private DeliveryQueue queue(int capacity) {
        return new DeliveryQueue(sender, capacity, new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(5), 5), timer, CLOCK, ledger,
                listener, leading::get);
    }

    private static Notice status(String commit, CommitState state, String description) {
        return new Notice.Status(new CommitStatus("prod", commit, state, description));
    }

    private static Notice event(String commit, String key) {
        return new Notice.Event(new NotificationEvent(EventType.POOL_STARTED, CLOCK.instant(), "prod", commit, Optional.of("a"), key,
                "pool a started", Map.of()));
    }

    @Test
    void offeringOnlyQueuesAndSendsNothingOnTheCallersThread() {
        DeliveryQueue q = queue(10);

        q.offer(status("c1", CommitState.PENDING, "2 pools"));

        assertThat(sender.sent).isEmpty();
        assertThat(timer.delays).containsExactly(Duration.ZERO);
        timer.runAll();
        assertThat(sender.sent).hasSize(1);
    }

    @Test
    void failedTriesAreMadeAgainWithAGrowingBackOffThenCountedAsFailed() {
        DeliveryQueue q = queue(10);
        for (int i = 0; i < 5; i++) {
            sender.script.add(new Outcome.Retry("github answered HTTP 500", Optional.empty()));
        }
        q.offer(status("c1", CommitState.PENDING, "2 pools"));
        q.offer(event("c1", "pool.started/a"));

        timer.runAll();

        assertThat(timer.delays).containsExactly(Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4),
                Duration.ofSeconds(5));
        assertThat(counted).containsExactly("retried", "retried", "retried", "retried", "failed", "delivered");
        // The next notice went once the first was given up: a failing destination never stops the others behind it.
        assertThat(sender.sent).hasSize(6);
        assertThat(q.state().failed()).isEqualTo(1);
        assertThat(q.state().lastFailure()).contains("commit-status status pending of commit c1 not delivered: github answered HTTP 500 (5 tries)");
    }

    @Test
    void aRetryAfterLongerThanTheBackOffIsHonouredUpToTheLongestWait() {
        DeliveryQueue q = queue(10);
        sender.script.add(new Outcome.Retry("github answered HTTP 429", Optional.of(Duration.ofSeconds(4))));
        sender.script.add(new Outcome.Retry("github answered HTTP 429", Optional.of(Duration.ofHours(1))));

        q.offer(status("c1", CommitState.PENDING, "2 pools"));
        timer.runAll();

        assertThat(timer.delays).containsExactly(Duration.ZERO, Duration.ofSeconds(4), Duration.ofSeconds(2));
    }

    @Test
    void aRefusedNoticeIsCountedOnceAndNotTriedAgain() {
        DeliveryQueue q = queue(10);
        sender.script.add(new Outcome.Failed("github answered HTTP 422"));

        q.offer(status("c1", CommitState.PENDING, "2 pools"));
        timer.runAll();

        assertThat(counted).containsExactly("failed");
        assertThat(sender.sent).hasSize(1);
    }

    @Test
    void aNewerStatusOfACommitReplacesOneStillWaiting() {
        DeliveryQueue q = queue(10);
        q.offer(status("c1", CommitState.PENDING, "4 pools"));
        q.offer(status("c1", CommitState.PENDING, "1/4 pools current"));
        q.offer(status("c1", CommitState.PENDING, "2/4 pools current"));

        timer.runAll();

        assertThat(sender.sent).extracting(n -> ((Notice.Status) n).status().description()).containsExactly("4 pools", "2/4 pools current");
    }

    @Test
    void aFullQueueDropsTheOldestWaitingAndCountsIt() {
        DeliveryQueue q = queue(2);
        q.offer(event("c1", "k1"));
        q.offer(event("c1", "k2"));
        q.offer(event("c1", "k3"));

        timer.runAll();

        assertThat(sender.sent).extracting(Notice::key).containsExactly("k1", "k3");
        assertThat(counted).containsExactly("dropped", "delivered", "delivered");
        assertThat(q.state().dropped()).isEqualTo(1);
    }

    @Test
    void aReplicaThatNoLongerLeadsSendsNothing() {
        DeliveryQueue q = queue(10);
        q.offer(event("c1", "k1"));
        leading.set(false);

        timer.runAll();

        assertThat(sender.sent).isEmpty();
        assertThat(q.state().queued()).isZero();
    }

    @Test
    void whatWasDeliveredIsKeptAndNotSentAgainAfterARestart() {
        DeliveryQueue q = queue(10);
        q.offer(status("c1", CommitState.PENDING, "2 pools"));
        q.offer(event("c1", "pool.started/a"));
        timer.runAll();
        assertThat(store.saves).isEqualTo(2);

        // A new agent: a new ledger read from the same store, a new queue.
        Ledger reloaded = new Ledger(store);
        reloaded.load();
        ScriptedSender after = new ScriptedSender();
        DeliveryQueue restarted = new DeliveryQueue(after, 10, Backoff.DEFAULT, timer, CLOCK, reloaded, listener, () -> true);
        restarted.offer(status("c1", CommitState.PENDING, "2 pools"));
        restarted.offer(event("c1", "pool.started/a"));
        restarted.offer(status("c1", CommitState.SUCCESS, "2/2 pools current"));
        timer.runAll();

        assertThat(after.sent).extracting(n -> n instanceof Notice.Status s ? s.status().state().name() : n.key())
                .containsExactly("SUCCESS");
        assertThat(reloaded.keys()).containsEntry("c1", java.util.Set.of("pool.started/a"));
        assertThat(reloaded.statuses().get("c1").state()).isEqualTo(CommitState.SUCCESS);
    }

    @Test
    void closingFinishesTheNoticeUnderWayAndWritesItDownButStartsNoOther() {
        java.util.concurrent.atomic.AtomicReference<DeliveryQueue> self = new java.util.concurrent.atomic.AtomicReference<>();
        ScriptedSender closingWhileSending = new ScriptedSender() {
            @Override
            public Outcome send(Notice notice) {
                // The agent stops while this request is under way.
                self.get().close();
                return super.send(notice);
            }
        };
        DeliveryQueue q = new DeliveryQueue(closingWhileSending, 10, Backoff.DEFAULT, timer, CLOCK, ledger, listener, () -> true);
        self.set(q);
        q.offer(event("c1", "k1"));
        q.offer(event("c1", "k2"));

        timer.runAll();

        assertThat(closingWhileSending.sent).extracting(Notice::key).containsExactly("k1");
        assertThat(ledger.keys()).containsEntry("c1", java.util.Set.of("k1"));
    }
}
