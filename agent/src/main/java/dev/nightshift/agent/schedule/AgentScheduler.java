package dev.nightshift.agent.schedule;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGenerator;

import org.quartz.DisallowConcurrentExecution;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.TriggerKey;
import org.quartz.impl.StdSchedulerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.window.MaintenanceCalendar;

/**
 * Wakes the agent: polls the spec repository every interval (plus up to {@code jitter} of it at
 * random, so that replicas and clusters do not poll in step) and fires at every window start and
 * end. Built on Quartz's scheduler with one-shot triggers, each rescheduling the next, rather than
 * a sleep loop: a window change or a webhook reschedules at once.
 */
public final class AgentScheduler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AgentScheduler.class);
    private static final JobKey POLL = JobKey.jobKey("poll");
    private static final JobKey WINDOW = JobKey.jobKey("window");
    private static final String ACTION = "action";

    private final Scheduler scheduler;
    private final Clock clock;
    private final RandomGenerator random;
    private final Map<String, Runnable> actions = new ConcurrentHashMap<>();
    private volatile Duration pollInterval = Duration.ofSeconds(60);
    private volatile double jitter;
    /** A poll was asked for while one ran: the end of that one must not push it back by an interval. */
    private final AtomicBoolean pollAgain = new AtomicBoolean();
    private volatile Optional<MaintenanceCalendar> calendar = Optional.empty();

    public AgentScheduler(Clock clock, RandomGenerator random) throws SchedulerException {
        this.clock = clock;
        this.random = random;
        Properties properties = new Properties();
        properties.setProperty("org.quartz.scheduler.instanceName", "nightshift-" + UUID.randomUUID());
        properties.setProperty("org.quartz.threadPool.threadCount", "2");
        properties.setProperty("org.quartz.jobStore.class", "org.quartz.simpl.RAMJobStore");
        properties.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
        this.scheduler = new StdSchedulerFactory(properties).getScheduler();
        // Jobs look their action up here: no static state, several schedulers can share a JVM.
        scheduler.setJobFactory((bundle, s) -> {
            String key = bundle.getJobDetail().getJobDataMap().getString(ACTION);
            Runnable action = actions.get(key);
            return (Job) context -> action.run();
        });
        scheduler.start();
    }

    /** Polls now, then again every interval (plus jitter) after each poll ends. */
    public void schedulePolling(Duration interval, double jitterShare, Runnable poll) throws SchedulerException {
        this.pollInterval = interval;
        this.jitter = jitterShare;
        actions.put(POLL.getName(), () -> {
            // This poll serves every request made before it started.
            pollAgain.set(false);
            try {
                poll.run();
            } catch (RuntimeException e) {
                LOG.error("poll failed unexpectedly", e);
            } finally {
                // A request made while it ran (a push it may have missed) polls again at once.
                rescheduleQuietly(POLL, pollAgain.getAndSet(false) ? clock.instant() : nextPollAt());
            }
        });
        register(POLL);
        reschedule(POLL, clock.instant());
    }

    /** Asks for a poll as soon as possible (the webhook); the regular schedule carries on after it. */
    public void pollNow() {
        pollAgain.set(true);
        rescheduleQuietly(POLL, clock.instant());
    }

    /** Fires {@code wake} at every start and end of a window of {@code calendar}; replaces any earlier calendar. */
    public void wakeAtWindowChanges(MaintenanceCalendar newCalendar, Runnable wake) throws SchedulerException {
        this.calendar = Optional.of(newCalendar);
        actions.put(WINDOW.getName(), () -> {
            try {
                wake.run();
            } catch (RuntimeException e) {
                LOG.error("window wake-up failed unexpectedly", e);
            } finally {
                scheduleNextWindowChange();
            }
        });
        register(WINDOW);
        scheduleNextWindowChange();
    }

    /** When the window job fires next, if at all. */
    public Optional<Instant> nextWindowWake() throws SchedulerException {
        return Optional.ofNullable(scheduler.getTrigger(TriggerKey.triggerKey(WINDOW.getName())))
                .map(Trigger::getNextFireTime).map(Date::toInstant);
    }

    private void scheduleNextWindowChange() {
        Optional<Instant> next = calendar.flatMap(c -> c.state(clock.instant()).nextChange());
        if (next.isEmpty()) {
            unscheduleQuietly(WINDOW);
            return;
        }
        // A boundary is reported by the calendar as the first instant of the new state.
        rescheduleQuietly(WINDOW, next.get());
    }

    private Instant nextPollAt() {
        long base = pollInterval.toMillis();
        long extra = jitter <= 0 ? 0 : (long) (base * jitter * random.nextDouble());
        return clock.instant().plusMillis(base + extra);
    }

    private void register(JobKey key) throws SchedulerException {
        if (!scheduler.checkExists(key)) {
            JobDetail job = JobBuilder.newJob(OneAtATime.class).withIdentity(key).usingJobData(ACTION, key.getName())
                    .storeDurably().build();
            scheduler.addJob(job, false);
        }
    }

    private void reschedule(JobKey job, Instant at) throws SchedulerException {
        TriggerKey key = TriggerKey.triggerKey(job.getName());
        Trigger trigger = TriggerBuilder.newTrigger().withIdentity(key).forJob(job).startAt(Date.from(at)).build();
        if (scheduler.checkExists(key)) {
            scheduler.rescheduleJob(key, trigger);
        } else {
            scheduler.scheduleJob(trigger);
        }
    }

    private void rescheduleQuietly(JobKey job, Instant at) {
        try {
            if (!scheduler.isShutdown()) {
                reschedule(job, at);
            }
        } catch (SchedulerException e) {
            LOG.error("cannot schedule {}", job.getName(), e);
        }
    }

    private void unscheduleQuietly(JobKey job) {
        try {
            scheduler.unscheduleJob(TriggerKey.triggerKey(job.getName()));
        } catch (SchedulerException e) {
            LOG.error("cannot unschedule {}", job.getName(), e);
        }
    }

    /**
     * The class Quartz reads concurrency from (the factory supplies the action itself): a job never
     * runs beside itself, so a webhook during a hung poll waits for it instead of taking the other
     * thread, and window wake-ups keep a thread.
     */
    @DisallowConcurrentExecution
    private interface OneAtATime extends Job {
    }

    @Override
    public void close() {
        try {
            scheduler.shutdown(false);
        } catch (SchedulerException e) {
            LOG.warn("scheduler did not shut down cleanly", e);
        }
    }
}
