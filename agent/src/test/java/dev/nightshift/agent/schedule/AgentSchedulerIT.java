package dev.nightshift.agent.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.nightshift.agent.window.MaintenanceCalendar;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;

/** The scheduler with short real-time triggers; Awaitility waits, no sleeps. */
class AgentSchedulerIT {

    private AgentScheduler scheduler;

    @BeforeEach
    void start() throws Exception {
        scheduler = new AgentScheduler(Clock.systemUTC(), new Random(1));
    }

    @AfterEach
    void stop() {
        scheduler.close();
    }

    private static MaintenanceCalendar everyOtherSecond() {
        String yaml = """
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: c}
                spec:
                  kubernetes: {version: "1.31.4"}
                  maintenance:
                    windows: [{schedule: "*/2 * * * * ?", duration: 1s, timeZone: UTC}]
                """;
        LoadResult loaded = new SpecLoader().load(Map.of("c.yaml", yaml.getBytes(StandardCharsets.UTF_8)));
        assertThat(loaded.errors()).isEmpty();
        return new MaintenanceCalendar(loaded.specs().clusters().get(0).maintenance());
    }

    @Test
    void pollsRightAwayAndThenEveryInterval() throws Exception {
        AtomicInteger polls = new AtomicInteger();

        scheduler.schedulePolling(Duration.ofMillis(200), 0.1, polls::incrementAndGet);

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(polls.get()).isGreaterThanOrEqualTo(4));
    }

    @Test
    void pollNowRunsAPollLongBeforeTheIntervalIsUp() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        scheduler.schedulePolling(Duration.ofHours(1), 0, polls::incrementAndGet);
        await().atMost(Duration.ofSeconds(20)).until(() -> polls.get() == 1);

        scheduler.pollNow();

        await().atMost(Duration.ofSeconds(20)).until(() -> polls.get() == 2);
    }

    @Test
    void aPollThatThrowsDoesNotStopPolling() throws Exception {
        AtomicInteger polls = new AtomicInteger();

        scheduler.schedulePolling(Duration.ofMillis(100), 0, () -> {
            polls.incrementAndGet();
            throw new IllegalStateException("boom");
        });

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(polls.get()).isGreaterThanOrEqualTo(3));
    }

    @Test
    void wakesAgainAtEachWindowBoundary() throws Exception {
        // Windows open every 2 s for 1 s: a boundary every second. Each wake-up schedules the next
        // boundary, so wake-ups keep coming; when they run is load-dependent and not asserted here
        // (theNextWakeIsTheCalendarsNextChange checks the schedule itself).
        MaintenanceCalendar calendar = everyOtherSecond();
        List<Instant> wakes = new CopyOnWriteArrayList<>();

        scheduler.wakeAtWindowChanges(calendar, () -> wakes.add(Instant.now()));

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(wakes).hasSizeGreaterThanOrEqualTo(4));
        assertThat(wakes).isSorted();
    }

    @Test
    void theNextWakeIsTheCalendarsNextChange() throws Exception {
        // A daily window at 03:00 UTC: its next start or end is hours away, so the trigger is still pending.
        String yaml = """
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: c}
                spec:
                  kubernetes: {version: "1.31.4"}
                  maintenance:
                    windows: [{schedule: "0 0 3 * * ?", duration: 1h, timeZone: UTC}]
                """;
        MaintenanceCalendar calendar = new MaintenanceCalendar(new SpecLoader()
                .load(Map.of("c.yaml", yaml.getBytes(StandardCharsets.UTF_8))).specs().clusters().get(0).maintenance());

        scheduler.wakeAtWindowChanges(calendar, () -> { });

        assertThat(scheduler.nextWindowWake()).isEqualTo(calendar.state(Instant.now()).nextChange());
    }

    @Test
    void aHungPollHoldsNoSecondThreadSoWebhookPollsWaitAndWindowWakeUpsStillFire() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        AtomicInteger polls = new AtomicInteger();
        scheduler.schedulePolling(Duration.ofHours(1), 0, () -> {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                if (polls.incrementAndGet() == 1) {
                    release.await();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                running.decrementAndGet();
            }
        });
        await().atMost(Duration.ofSeconds(20)).until(() -> running.get() == 1);

        // Webhooks while the first poll hangs: they must neither run beside it nor take the other thread.
        scheduler.pollNow();
        scheduler.pollNow();
        List<Instant> wakes = new CopyOnWriteArrayList<>();
        scheduler.wakeAtWindowChanges(everyOtherSecond(), () -> wakes.add(Instant.now()));
        await().atMost(Duration.ofSeconds(20)).until(() -> wakes.size() >= 2);
        assertThat(polls.get()).as("polls started while the first hangs").isEqualTo(1);

        release.countDown();
        await().atMost(Duration.ofSeconds(20)).until(() -> polls.get() == 2);
        assertThat(mostAtOnce.get()).as("polls running at once").isEqualTo(1);
    }
}
