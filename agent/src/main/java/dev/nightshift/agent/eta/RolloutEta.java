package dev.nightshift.agent.eta;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.nightshift.agent.window.MaintenanceCalendar;
import dev.nightshift.agent.window.Window;
import dev.nightshift.spec.model.Maintenance;
import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.spec.model.RolloutPolicy;
import dev.nightshift.spec.model.UpdateStrategy;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.strategies.NodeUpdates;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.fleet.FleetWait;
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
     * @param leftOut pools with work that the agent does not carry out by itself, or that never start
     * @param zone    the calendar's time zone, for showing times ({@link #zone})
     * @param rolls   how the cluster's pools take turns, for a heading: {@link #ONE_AT_A_TIME}, or in a fleet
     *                ({@code rollout.concurrency.pools} above 1, or {@code rollout.after}) how many at once
     */
    public record Estimate(List<PoolEta> pools, List<LeftOut> leftOut, ZoneId zone, String rolls) {

        public Estimate {
            pools = List.copyOf(pools);
            leftOut = List.copyOf(leftOut);
        }

        /** An estimate of a cluster whose pools roll one at a time. */
        public Estimate(List<PoolEta> pools, List<LeftOut> leftOut, ZoneId zone) {
            this(pools, leftOut, zone, ONE_AT_A_TIME);
        }

        public Optional<PoolEta> pool(String name) {
            return pools.stream().filter(p -> p.pool().equals(name)).findFirst();
        }

        /** Why the pool is left out of the estimate; empty when it is not. */
        public Optional<String> leftOut(String name) {
            return leftOut.stream().filter(l -> l.pool().equals(name)).map(LeftOut::reason).findFirst();
        }
    }

    /** How pools take turns by default: {@code rollout.concurrency.pools: 1}, no {@code rollout.after}. */
    public static final String ONE_AT_A_TIME = "pools roll one at a time, in role order";

    /**
     * Estimates the given work from {@code start}, no pool having a turn yet (a change to come).
     *
     * @param desired     the cluster (its calendar, pools, validationsRequired and the fleet's turns)
     * @param inRoleOrder each pool's work; taken in the cluster's rollout order whatever the list's order
     * @param history     each pool's observed durations; a pool missing uses the defaults
     */
    public Estimate estimate(DesiredCluster desired, List<PoolWork> inRoleOrder, Map<String, PoolDurations> history, Instant start) {
        return estimate(desired, inRoleOrder, history, start, Set.of(), Map.of());
    }

    /**
     * The pools' turns come as the fleet's schedule gives them ({@link FleetTurns}): a pool with a turn now
     * ({@code turnNow}) starts at once; another when the pools it waits for are done or a turn of its role frees up.
     *
     * @param held pools that hold the pools after them (paused), with their phase
     */
    private Estimate estimate(DesiredCluster desired, List<PoolWork> inRoleOrder, Map<String, PoolDurations> history, Instant start,
                              Set<String> turnNow, Map<String, String> held) {
        MaintenanceCalendar calendar = new MaintenanceCalendar(desired.cluster().maintenance());
        List<String> order = desired.pools().stream().map(DesiredPool::name).toList();
        List<PoolWork> work = inRoleOrder.stream()
                .sorted(Comparator.comparingInt((PoolWork w) -> order.indexOf(w.pool()) < 0 ? Integer.MAX_VALUE : order.indexOf(w.pool())))
                .toList();
        Map<String, String> leftOutWhy = new LinkedHashMap<>();
        Map<String, FleetTurns.State> states = new HashMap<>();
        Map<String, String> phases = new HashMap<>();
        Map<String, PoolWork> byPool = new HashMap<>();
        held.forEach((pool, phase) -> {
            states.put(pool, FleetTurns.State.HELD);
            phases.put(pool, phase);
        });
        for (PoolWork w : work) {
            Optional<DesiredPool> pool = desired.pools().stream().filter(p -> p.name().equals(w.pool())).findFirst();
            if (pool.isEmpty()) {
                leftOutWhy.put(w.pool(), "not a pool of cluster " + desired.cluster().name());
                continue;
            }
            Optional<String> reason = leftOutBecause(pool.get().spec().pool(), w);
            if (reason.isPresent()) {
                leftOutWhy.put(w.pool(), reason.get());
                // As the planner has it: a pool that only reports, awaits a person or whose node updates are off holds nobody.
                states.put(w.pool(), w.nodes() <= 0 || w.kind() == PendingAction.NONE ? FleetTurns.State.DONE : FleetTurns.State.FREE);
                phases.put(w.pool(), freePhase(pool.get().spec().pool(), w));
                continue;
            }
            byPool.put(w.pool(), w);
            states.put(w.pool(), turnNow.contains(w.pool()) ? FleetTurns.State.TURN : FleetTurns.State.WAITING);
        }
        boolean fleet = desired.cluster().concurrency().pools() > 1
                || desired.pools().stream().anyMatch(p -> !p.spec().pool().after().isEmpty());
        Map<String, PoolEta> estimated = new HashMap<>();
        FleetTurns.Outcome turns = FleetTurns.run(desired, states, phases, start, (name, at, how) -> {
            DesiredPool pool = desired.pools().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
            PoolEta eta = pool(desired, pool, byPool.get(name), history.getOrDefault(name, PoolDurations.NONE), calendar, how,
                    startsWhen(how, fleet, desired.cluster().concurrency().pools()));
            if (desired.cluster().concurrency().maxUnavailableNodes().isPresent()) {
                // Each pool is simulated alone: the guard's wait for the cluster's room is not in it (simulate --fleet has it).
                List<String> assumptions = new ArrayList<>(eta.assumptions());
                assumptions.add("the cluster's maxUnavailableNodes is not simulated: each pool within its own limits only");
                eta = eta.withAssumptions(assumptions);
            }
            estimated.put(name, eta);
            return eta.completesAt();
        });
        List<PoolEta> pools = new ArrayList<>();
        turns.started().keySet().forEach(name -> pools.add(estimated.get(name)));
        List<LeftOut> leftOut = new ArrayList<>();
        for (PoolWork w : work) {
            if (leftOutWhy.containsKey(w.pool())) {
                leftOut.add(new LeftOut(w.pool(), leftOutWhy.get(w.pool())));
            } else if (turns.neverStarts().containsKey(w.pool())) {
                leftOut.add(new LeftOut(w.pool(), neverStarts(desired, w.pool(), turns.neverStarts().get(w.pool()), turns.unfinished())));
            }
        }
        String rolls = !fleet ? ONE_AT_A_TIME : "pools roll in role order, " + desired.cluster().concurrency().pools()
                + " of a role at a time, each after the pools its rollout.after names";
        return new Estimate(pools, leftOut, zone(desired.cluster().maintenance()), rolls);
    }

    /** The assumption on a pool's start. */
    private static String startsWhen(PoolEta.Start how, boolean fleet, int concurrency) {
        if (how.waited().isEmpty()) {
            return "starts at " + how.at();
        }
        PoolEta.Wait w = how.waited().get();
        if (!fleet) {
            return "starts when " + w.after() + " finishes (pools roll one at a time, in role order)";
        }
        String done = " (" + w.poolsDone() + (w.poolsDone() == 1 ? " pool" : " pools") + " of the rollout done by then)";
        return "starts when " + w.after() + " finishes" + switch (w.reason()) {
            case CONCURRENCY -> " and frees one of the " + concurrency + " turns of rollout.concurrency.pools";
            case ROLE_ORDER -> ": pools of an earlier role go first";
            case AFTER -> ": rollout.after names it";
            case CLUSTER_BUDGET, ZONE_REPAIRS -> "";
        } + done;
    }

    /** Why a pool with work never starts: a pool before it never finishes, or holds it for good. */
    private static String neverStarts(DesiredCluster desired, String pool, FleetWait wait, List<String> unfinished) {
        // The pool it waits for, or, waiting for a turn, the first of those that keep theirs for good.
        Optional<String> blocker = wait.pool().isPresent() ? wait.pool().filter(unfinished::contains)
                : unfinished.stream().filter(u -> role(desired, u) == role(desired, pool)).findFirst();
        if (blocker.isPresent()) {
            return "rolls after " + blocker.get() + ", whose rollout does not finish within " + HORIZON.toDays() + " days";
        }
        return "does not start: " + wait.detail();
    }

    private static PoolRole role(DesiredCluster desired, String pool) {
        return desired.pools().stream().filter(p -> p.name().equals(pool)).findFirst().map(p -> p.spec().pool().role()).orElseThrow();
    }

    /** The phase a pool left out of the estimate is in, as the planner names it. */
    private String freePhase(WorkerPoolSpec spec, PoolWork w) {
        if (spec.updateStrategy() == UpdateStrategy.ManualInPlaceUpdate) {
            return PoolPhase.AWAITING_SELECTION.name();
        }
        boolean nodeUpdate = w.kind() == PendingAction.KUBELET_RESTART || spec.updateStrategy().inPlace();
        return nodeUpdates == NodeUpdates.OFF && nodeUpdate ? PoolPhase.NODE_UPDATES_OFF.name() : PoolPhase.REPORT_ONLY.name();
    }

    /**
     * Estimates what is left of a rollout from {@code now}: each pool with outdated nodes, its
     * outdated nodes (those being updated now counted as not started) and its pending action, as
     * the plan reports them. A paused pool is left out (and holds the pools after it, as in the
     * planner); a pool with a turn now (rolling, or waiting for a window or validation with its turn)
     * starts at once, the others as the fleet's turns come.
     */
    public Estimate remaining(DesiredCluster desired, Plan plan, Map<String, PoolDurations> history, Instant now) {
        List<PoolWork> work = new ArrayList<>();
        List<LeftOut> paused = new ArrayList<>();
        Set<String> turnNow = new HashSet<>();
        Map<String, String> held = new HashMap<>();
        for (PoolReport r : plan.reports().values()) {
            if (r.outdated() == 0 || r.pendingAction() == PendingAction.NONE) {
                continue;
            }
            if (r.phase() == PoolPhase.PAUSED) {
                paused.add(new LeftOut(r.pool(), "the rollout is paused"));
                held.put(r.pool(), r.phase().name());
            } else {
                work.add(new PoolWork(r.pool(), r.outdated(), r.pendingAction()));
                if (TURN_HELD.contains(r.phase())) {
                    turnNow.add(r.pool());
                }
            }
        }
        Estimate e = estimate(desired, work, history, now, turnNow, held);
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
        return new Estimate(pools, leftOut, e.zone(), e.rolls());
    }

    /** The phases of a pool that holds a turn of the fleet: it goes on at once. */
    private static final Set<PoolPhase> TURN_HELD = Set.of(PoolPhase.UPDATING, PoolPhase.RESTARTING_KUBELETS,
            PoolPhase.WAITING_FOR_WINDOW, PoolPhase.WAITING_FOR_VALIDATION, PoolPhase.FAILED, PoolPhase.HALTED);

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
                         MaintenanceCalendar calendar, PoolEta.Start how, String startsWhen) {
        Instant start = how.at();
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
            assumptions.add(startsWhen);
            return new PoolEta(pool.name(), kind, w.nodes(), HORIZON, start, Optional.empty(), List.of(), assumptions, how.waited());
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
        assumptions.add(startsWhen);
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
        return new PoolEta(pool.name(), kind, w.nodes(), work, start, completesAt, windows, assumptions, how.waited());
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
