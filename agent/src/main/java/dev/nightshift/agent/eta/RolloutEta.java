package dev.nightshift.agent.eta;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.agent.window.MaintenanceCalendar;
import dev.nightshift.agent.window.Window;
import dev.nightshift.spec.model.Maintenance;
import dev.nightshift.spec.model.RolloutPolicy;
import dev.nightshift.spec.model.UpdateStrategy;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.strategies.NodeUpdates;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolReport;
import dev.nightshift.strategies.sim.MaintenanceWindows;
import dev.nightshift.strategies.sim.SimulationResult;
import dev.nightshift.strategies.sim.SimulationSetup;
import dev.nightshift.strategies.sim.Simulator;

/**
 * How long a rollout will take and in which maintenance windows it will run: each pool's work is
 * simulated with the real planner ({@link Simulator}), the pool's strategy and limits, its own
 * observed durations ({@link PoolDurations}), and the cluster's calendar as the window function,
 * so that outside a window work in flight finishes and nothing new starts, as in the agent. Pools
 * roll one at a time in role order: each starts when the one before finishes, through the
 * calendar. Pools the agent does not roll by itself (report-only, ManualInPlaceUpdate, in-place
 * work while node updates are off) are left out and named.
 */
public final class RolloutEta {

    /** A pool whose simulated rollout has not finished this long after its start is reported unfinished. */
    public static final Duration HORIZON = Duration.ofDays(90);
    /** How many windows are listed for one pool at most. */
    private static final int MAX_WINDOWS = 100;

    private final RolloutPlanner planner;
    private final NodeUpdates nodeUpdates;

    /** With node updates carried out, as the agent does by default. */
    public RolloutEta() {
        this(NodeUpdates.ON);
    }

    /** @param nodeUpdates whether the agent carries out in-place updates and kubelet restarts ({@code nodeUpdates.type}) */
    public RolloutEta(NodeUpdates nodeUpdates) {
        this.nodeUpdates = nodeUpdates;
        this.planner = new RolloutPlanner(nodeUpdates);
    }

    /** A pool with work that the estimate leaves out, and why. */
    public record LeftOut(String pool, String reason) {
    }

    /**
     * The estimate of a whole rollout.
     *
     * @param pools   the pools estimated, in the order they roll
     * @param leftOut pools with work that the agent does not carry out by itself
     * @param zone    the calendar's time zone, for showing times ({@link #zone})
     */
    public record Estimate(List<PoolEta> pools, List<LeftOut> leftOut, ZoneId zone) {

        public Estimate {
            pools = List.copyOf(pools);
            leftOut = List.copyOf(leftOut);
        }

        public Optional<PoolEta> pool(String name) {
            return pools.stream().filter(p -> p.pool().equals(name)).findFirst();
        }

        /** Why the pool is left out of the estimate; empty when it is not. */
        public Optional<String> leftOut(String name) {
            return leftOut.stream().filter(l -> l.pool().equals(name)).map(LeftOut::reason).findFirst();
        }
    }

    /**
     * Estimates the given work from {@code start}.
     *
     * @param desired     the cluster (its calendar, pools and validationsRequired)
     * @param inRoleOrder each pool's work; taken in the cluster's rollout order whatever the list's order
     * @param history     each pool's observed durations; a pool missing uses the defaults
     */
    public Estimate estimate(DesiredCluster desired, List<PoolWork> inRoleOrder, Map<String, PoolDurations> history, Instant start) {
        MaintenanceCalendar calendar = new MaintenanceCalendar(desired.cluster().maintenance());
        List<String> order = desired.pools().stream().map(DesiredPool::name).toList();
        List<PoolWork> work = inRoleOrder.stream()
                .sorted(Comparator.comparingInt((PoolWork w) -> order.indexOf(w.pool()) < 0 ? Integer.MAX_VALUE : order.indexOf(w.pool())))
                .toList();
        List<PoolEta> pools = new ArrayList<>();
        List<LeftOut> leftOut = new ArrayList<>();
        Instant cursor = start;
        Optional<String> unfinished = Optional.empty();
        for (PoolWork w : work) {
            Optional<DesiredPool> pool = desired.pools().stream().filter(p -> p.name().equals(w.pool())).findFirst();
            Optional<String> reason = pool.isEmpty() ? Optional.of("not a pool of cluster " + desired.cluster().name())
                    : leftOutBecause(pool.get().spec().pool(), w);
            if (reason.isEmpty() && unfinished.isPresent()) {
                reason = Optional.of("rolls after " + unfinished.get() + ", whose rollout does not finish within "
                        + HORIZON.toDays() + " days");
            }
            if (reason.isPresent()) {
                leftOut.add(new LeftOut(w.pool(), reason.get()));
                continue;
            }
            PoolEta eta = pool(desired, pool.get(), w, history.getOrDefault(w.pool(), PoolDurations.NONE), calendar, cursor,
                    cursor.equals(start) ? Optional.empty() : Optional.of(pools.get(pools.size() - 1).pool()));
            pools.add(eta);
            if (eta.completesAt().isPresent()) {
                cursor = eta.completesAt().get();
            } else {
                unfinished = Optional.of(eta.pool());
            }
        }
        return new Estimate(pools, leftOut, zone(desired.cluster().maintenance()));
    }

    /**
     * Estimates what is left of a rollout from {@code now}: each pool with outdated nodes, its
     * outdated nodes (those being updated now counted as not started) and its pending action, as
     * the plan reports them. A paused pool is left out.
     */
    public Estimate remaining(DesiredCluster desired, Plan plan, Map<String, PoolDurations> history, Instant now) {
        List<PoolWork> work = new ArrayList<>();
        List<LeftOut> paused = new ArrayList<>();
        for (PoolReport r : plan.reports().values()) {
            if (r.outdated() == 0 || r.pendingAction() == PendingAction.NONE) {
                continue;
            }
            if (r.phase() == PoolPhase.PAUSED) {
                paused.add(new LeftOut(r.pool(), "the rollout is paused"));
            } else {
                work.add(new PoolWork(r.pool(), r.outdated(), r.pendingAction()));
            }
        }
        Estimate e = estimate(desired, work, history, now);
        List<PoolEta> pools = e.pools().stream().map(p -> {
            int updating = plan.report(p.pool()).updating();
            if (updating == 0) {
                return p;
            }
            List<String> assumptions = new ArrayList<>(p.assumptions());
            assumptions.add(updating + " node(s) being updated now are counted as not started");
            return p.withAssumptions(assumptions);
        }).toList();
        List<LeftOut> leftOut = new ArrayList<>(paused);
        leftOut.addAll(e.leftOut());
        return new Estimate(pools, leftOut, e.zone());
    }

    /** Why the agent does not carry this work out by itself, if it does not (as the planner decides it). */
    private Optional<String> leftOutBecause(WorkerPoolSpec spec, PoolWork w) {
        if (w.nodes() <= 0 || w.kind() == PendingAction.NONE) {
            return Optional.of("no node to update");
        }
        if (spec.updateStrategy() == UpdateStrategy.ManualInPlaceUpdate) {
            return Optional.of("ManualInPlaceUpdate: nodes wait for a person to select them");
        }
        boolean roll = w.kind() != PendingAction.KUBELET_RESTART;
        boolean nodeUpdate = !roll || spec.updateStrategy().inPlace();
        if (nodeUpdates == NodeUpdates.OFF && nodeUpdate) {
            return Optional.of("node updates are off (nodeUpdates.type: none): reported, never executed");
        }
        if (roll && !spec.drainAndTerminate()) {
            return Optional.of("drainAndTerminate is false: outdated nodes are reported only");
        }
        return Optional.empty();
    }

    private PoolEta pool(DesiredCluster desired, DesiredPool pool, PoolWork w, PoolDurations durations,
                         MaintenanceCalendar calendar, Instant start, Optional<String> after) {
        WorkerPoolSpec spec = pool.spec().pool();
        boolean kubelet = w.kind() == PendingAction.KUBELET_RESTART;
        PendingAction kind = kubelet ? PendingAction.KUBELET_RESTART
                : spec.updateStrategy().inPlace() ? PendingAction.IN_PLACE : PendingAction.ROLL;
        List<String> assumptions = new ArrayList<>();
        List<PoolDurations.Kind> timed = kinds(kind);
        Duration create = !timed.contains(PoolDurations.Kind.CREATE) ? durations.estimate(PoolDurations.Kind.CREATE)
                : withinTimeout(durations, PoolDurations.Kind.CREATE, spec.machineControllerManager().creationTimeout(),
                "creationTimeout", assumptions);
        Duration inPlace = !timed.contains(PoolDurations.Kind.IN_PLACE) ? durations.estimate(PoolDurations.Kind.IN_PLACE)
                : withinTimeout(durations, PoolDurations.Kind.IN_PLACE, spec.machineControllerManager().inPlaceUpdateTimeout(),
                "inPlaceUpdateTimeout", assumptions);
        boolean beyondTimeout = timed.stream().anyMatch(k -> k == PoolDurations.Kind.CREATE && create == null
                || k == PoolDurations.Kind.IN_PLACE && inPlace == null);
        if (beyondTimeout) {
            // Every new machine (or in-place update) would count as failed and be tried again for ever: simulating that
            // to the horizon would cost seconds of CPU and say nothing more.
            assumptions.add(after.map(p -> "starts when " + p + " finishes (pools roll one at a time, in role order)")
                    .orElse("starts at " + start));
            return new PoolEta(pool.name(), kind, w.nodes(), HORIZON, start, Optional.empty(), List.of(), assumptions);
        }
        SimulationSetup setup = SimulationSetup.of(desired, pool.name(), w.nodes(), create, durations.estimate(PoolDurations.Kind.DRAIN))
                .withNodeUpdates(inPlace, durations.estimate(PoolDurations.Kind.KUBELET_RESTART))
                .withOutdated(kubelet ? SimulationSetup.Outdated.KUBELET : SimulationSetup.Outdated.ROLL)
                .withHorizon(HORIZON);
        Simulator simulator = new Simulator(planner);
        SimulationResult unconfined = simulator.run(setup.withWindows(start, MaintenanceWindows.ALWAYS_OPEN));
        boolean confined = !calendar.alwaysOpen() && calendar.confineSpecUpdateRollout() && !spec.rolloutOutsideWindow();
        boolean exclusions = desired.cluster().maintenance().map(m -> !m.exclusions().isEmpty()).orElse(false);
        // Windows only add waiting: work that does not finish with every window open does not finish through them.
        SimulationResult run = (confined || exclusions) && unconfined.completed()
                ? simulator.run(setup.withWindows(start, new CalendarWindows(calendar))) : unconfined;

        assumptions.add(0, w.nodes() + " node(s), " + spec.updateStrategy() + " with maxSurge " + run.resolvedMaxSurge()
                + " and maxUnavailable " + run.resolvedMaxUnavailable());
        RolloutPolicy rollout = pool.spec().rollout();
        if (!kubelet && rollout.inWaves()) {
            // The soaks are in the simulated time: the planner waits for them as it would in the cluster.
            assumptions.add(1, "in " + rollout.describe() + (rollout.healthChecks().isEmpty() ? "" : ", every health check passing"));
        }
        for (PoolDurations.Kind k : timed) {
            if (k == PoolDurations.Kind.CREATE && !create.equals(durations.estimate(k))
                    || k == PoolDurations.Kind.IN_PLACE && !inPlace.equals(durations.estimate(k))) {
                continue;
            }
            assumptions.add(durations.describe(k));
        }
        assumptions.add(after.map(p -> "starts when " + p + " finishes (pools roll one at a time, in role order)")
                .orElse("starts at " + start));
        if (!confined) {
            assumptions.add(calendar.alwaysOpen() ? "no maintenance window: may run at any time" + (exclusions ? " outside exclusions" : "")
                    : spec.rolloutOutsideWindow() ? WorkerPoolSpec.ROLLOUT_OUTSIDE_WINDOW + " is set: runs outside windows too"
                    : "confineSpecUpdateRollout is false: spec changes roll outside windows too");
        }
        assumptions.add("no faults: no blocked drain, failed machine or unhealthy node");
        Optional<Instant> completesAt = Optional.empty();
        if (run.completed()) {
            completesAt = Optional.of(start.plus(millis(run.finishedSeconds())));
        } else {
            assumptions.add("not finished within " + HORIZON.toDays() + " days: " + run.failureReason());
        }
        Duration work = unconfined.completed() ? millis(unconfined.finishedSeconds()) : HORIZON;
        List<Window> windows = confined && completesAt.isPresent() ? windows(calendar, start, completesAt.get()) : List.of();
        return new PoolEta(pool.name(), kind, w.nodes(), work, start, completesAt, windows, assumptions);
    }

    /**
     * The duration to simulate for {@code kind}, or null when the median observed is not shorter than the pool's
     * timeout for it (then every attempt would count as failed, and an assumption says so). The default, when nothing
     * was observed, is capped at half the timeout, so that a pool with a short timeout (machines known to come up
     * fast) is not estimated as never finishing.
     */
    private static Duration withinTimeout(PoolDurations durations, PoolDurations.Kind kind, Duration timeout, String timeoutName,
                                          List<String> assumptions) {
        Duration estimate = durations.estimate(kind);
        if (durations.observed(kind).isEmpty()) {
            if (estimate.compareTo(timeout) < 0) {
                return estimate;
            }
            Duration capped = timeout.dividedBy(2);
            assumptions.add(kind.label() + " " + PoolEta.shortDuration(capped) + " (none observed in this pool yet: the default "
                    + PoolEta.shortDuration(estimate) + " capped at half the pool's " + timeoutName + " of " + PoolEta.shortDuration(timeout) + ")");
            return capped;
        }
        if (estimate.compareTo(timeout) >= 0) {
            assumptions.add("not finished: " + durations.describe(kind) + " is not shorter than the pool's " + timeoutName + " of "
                    + PoolEta.shortDuration(timeout) + ", so every attempt would count as failed");
            return null;
        }
        return estimate;
    }

    /** The durations that matter for this kind of work. */
    private static List<PoolDurations.Kind> kinds(PendingAction kind) {
        return switch (kind) {
            case KUBELET_RESTART -> List.of(PoolDurations.Kind.KUBELET_RESTART);
            case IN_PLACE -> List.of(PoolDurations.Kind.DRAIN, PoolDurations.Kind.IN_PLACE);
            case ROLL, NONE -> List.of(PoolDurations.Kind.CREATE, PoolDurations.Kind.DRAIN);
        };
    }

    /** The calendar's windows that overlap [start, end): those the rollout ran in. */
    private static List<Window> windows(MaintenanceCalendar calendar, Instant start, Instant end) {
        for (int count = 8; ; count *= 2) {
            List<Window> found = calendar.windows(start, count);
            List<Window> overlapping = found.stream().filter(w -> w.open().isBefore(end)).toList();
            if (overlapping.size() < found.size() || found.size() < count || count >= MAX_WINDOWS) {
                return overlapping.stream().limit(MAX_WINDOWS).toList();
            }
        }
    }

    private static Duration millis(double seconds) {
        return Duration.ofMillis(Math.round(seconds * 1000));
    }

    /**
     * The zone a calendar's times are best shown in: its first cron window's, else its daily
     * window's offset, else UTC.
     */
    public static ZoneId zone(Optional<Maintenance> maintenance) {
        return maintenance.flatMap(m -> m.windows().stream().map(Maintenance.CronWindow::timeZone).findFirst()
                .or(() -> m.timeWindow().map(d -> (ZoneId) d.offset()))).orElse(ZoneId.of("UTC"));
    }
}
