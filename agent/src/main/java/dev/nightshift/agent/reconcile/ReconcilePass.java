package dev.nightshift.agent.reconcile;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.nightshift.agent.git.SpecRevision;
import dev.nightshift.agent.health.HealthJudge;
import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.agent.window.CachedCalendar;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.KubernetesVersion;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.strategies.KubernetesVersionGuard;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.ValidationStreak;
import dev.nightshift.strategies.fleet.FleetWait;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.Step;

/**
 * One reconcile, in stages that read in order: <b>accept</b> (which commit each pool acts on) → <b>observe</b> (the
 * cluster and its machines now) → <b>plan</b> (the pure planner, the Kubernetes version guard, pools the provider
 * refuses held) → <b>guard</b> and <b>execute</b> (each step checked at that moment, then carried out) →
 * <b>record</b> (each pool's status record) → <b>report</b> (what was seen and done).
 *
 * <p>It decides nothing itself: it gathers the inputs and calls the libraries' pure functions, the same that
 * {@code nightshift plan} and {@code nightshift simulate} call. Each stage is behind a narrow interface, so the pass is
 * tested without an API server. The loop around it ({@link Reconciler}) schedules, coalesces and leads.
 *
 * <p>Not thread-safe: only the loop's thread runs passes.
 */
final class ReconcilePass implements Reconciler.Pass {

    private static final Logger LOG = LoggerFactory.getLogger(ReconcilePass.class);
    /**
     * How long a pass starts new steps for, from its first step; it carries out at least one. Ten pools rolling at once made
     * passes of hundreds of writes (every outdated node tainted, every stand-in's partner cordoned), each pass minutes long
     * against a busy API server, and whatever happened meanwhile (a new commit, a pause, a halt, a node failing) waited
     * for it. Steps left are planned again by the next pass, asked for at once: the rollout goes as fast as the API server
     * answers, and the agent looks again every second or so.
     */
    static final Duration STEP_TIME = Duration.ofSeconds(1);

    /**
     * @param validationsRequired consecutive successful validations a pool needs before it starts and between batches
     * @param managed             the pools this pass acts on; the others are planned for nothing and reported as not managed here
     * @param byHand              a run by hand ({@code nightshift rolling-update}): windows not consulted (always open, no
     *                            exclusion), and what {@link HandRun} says; empty: the agent's
     */
    record Settings(int validationsRequired, boolean dryRun, Optional<KubernetesVersion> apiServerVersion, ManagedPools managed,
                    Optional<HandRun> byHand) {

        Settings(int validationsRequired, boolean dryRun, Optional<KubernetesVersion> apiServerVersion) {
            this(validationsRequired, dryRun, apiServerVersion, ManagedPools.ALL, Optional.empty());
        }

        boolean ignoreWindows() {
            return byHand.isPresent();
        }

        boolean force() {
            return byHand.filter(HandRun::force).isPresent();
        }
    }

    /** Always open, no exclusion: the window state of a run by hand. */
    private static final WindowState ANY_TIME = new WindowState(true, true, Optional.empty(), Optional.empty(), Optional.empty(), false);

    private final Settings settings;
    private final HealthJudge health;
    private final Acceptance acceptance;
    private final ClusterView cluster;
    private final RolloutPlanner planner;
    /** The guard every pass has (the lease, the API server for repairs). */
    private final StepGuard acting;
    /** The other guards, made for each pass from what it observed (the pools' promises). */
    private final StepGuard.PerPass guards;
    /** The refusals of the last pass, so that one repeated at every pass is logged once. */
    private Set<StepRefusal> lastRefusals = Set.of();
    private final StepRunner runner;
    private final StepNotes notes;
    private final PoolRecords records;
    private final ApiServerCheck apiServer;
    private final Validations validations;
    private final BooleanSupplier leading;
    private final Clock clock;
    /** Each pool's observed durations, kept in its record for estimates. */
    private final ObservedDurations durations;
    private final EtaRefresh eta;
    /** The accepted spec's maintenance calendar, kept between passes. */
    private CachedCalendar calendar;
    /** Since when each pool has had outdated nodes without a break. */
    private final Map<String, Instant> outdatedSince = new HashMap<>();
    private NodeUpdateTracker tracker = new NodeUpdateTracker();
    /** With {@code force}: the machines shown outdated. */
    private final ForcedNodes forced = new ForcedNodes();
    /** With a drain give-up time: the drains shown finished past it. */
    private final Optional<IgnoredDrains> ignoredDrains;
    /** What was accepted must be read from the pool records before the next pass: at start and at every term as leader. */
    private boolean rebuild = true;
    /** The last pass's steps it left for the next when its time for steps was up. */
    private int stepsLeft;

    /**
     * @param guards    checked before each step, after the guard every pass has ({@link ActingGuard})
     * @param apiServer whether the API server reports itself ready; asked once per pass that validates or repairs
     * @param leading   whether this replica leads now (the lease)
     */
    ReconcilePass(Settings settings, Acceptance acceptance, ClusterView cluster, RolloutPlanner planner, StepGuard.PerPass guards,
                  StepRunner runner, StepNotes notes, PoolRecords records, BooleanSupplier apiServer, Duration validationInterval,
                  BooleanSupplier leading, EtaRefresh eta, Clock clock) {
        this(settings, acceptance, cluster, planner, guards, runner, notes, records, apiServer, validationInterval, leading, eta,
                clock, HealthJudge.NONE);
    }

    /** @param health judges the rolling pools' health checks (Prometheus, workloads) in the observe stage */
    ReconcilePass(Settings settings, Acceptance acceptance, ClusterView cluster, RolloutPlanner planner, StepGuard.PerPass guards,
                  StepRunner runner, StepNotes notes, PoolRecords records, BooleanSupplier apiServer, Duration validationInterval,
                  BooleanSupplier leading, EtaRefresh eta, Clock clock, HealthJudge health) {
        this.health = health;
        this.settings = settings;
        this.acceptance = acceptance;
        this.cluster = cluster;
        this.planner = planner;
        this.apiServer = new ApiServerCheck(apiServer);
        this.acting = new ActingGuard(leading, this.apiServer);
        this.guards = guards;
        this.runner = runner;
        this.notes = notes;
        this.records = records;
        this.validations = new Validations(validationInterval, this.apiServer, settings.byHand().flatMap(HandRun::validationGiveUp));
        this.ignoredDrains = settings.byHand().flatMap(HandRun::drainGiveUp).map(IgnoredDrains::new);
        this.leading = leading;
        this.durations = new ObservedDurations(cluster::recordedDurations);
        this.eta = eta;
        this.clock = clock;
    }

    /** This replica became the leader: what was accepted is read from the pool records before the next pass. */
    @Override
    public void rebuildAcceptance() {
        rebuild = true;
    }

    /** A term as leader ended: what it remembered must not leak into the next (another replica acts in between). */
    @Override
    public void forgetTerm() {
        tracker = new NodeUpdateTracker();
        guards.forgetTerm();
        durations.forget();
        eta.forget();
        outdatedSince.clear();
        validations.forget();
    }

    /** One pass, from the newest good spec offered; empty while nothing is accepted. */
    @Override
    public Optional<ReconcileReport> run(SpecRevision offered, Instant now) {
        Optional<AcceptedSpecs.Acting> before = acceptance.acting();
        Optional<ReconcileReport> report = runOnce(offered, now);
        Optional<AcceptedSpecs.Acting> after = acceptance.acting();
        // A pool rolled back in this pass (onFailure: Rollback) acts on its last good spec from now on: it is planned
        // for at once, not at the next resync. Once: a second pass leaves what is acted on as it is.
        if (report.isPresent() && after.isPresent() && before.isPresent() && after.get() != before.get()
                && after.get().commit().equals(before.get().commit()) && after.get().commit().equals(report.get().revision())) {
            return runOnce(offered, now).or(() -> report);
        }
        return report;
    }

    private Optional<ReconcileReport> runOnce(SpecRevision offered, Instant now) {
        apiServer.reset();
        stepsLeft = 0;
        Optional<AcceptedSpecs.Acting> acting = accept(offered);
        if (acting.isEmpty()) {
            return Optional.empty();
        }
        ClusterSpec spec = acting.get().cluster();
        if (calendar == null || !calendar.maintenance().equals(spec.maintenance())) {
            calendar = new CachedCalendar(spec.maintenance());
        }
        WindowState window = settings.ignoreWindows() ? ANY_TIME : calendar.state(now);
        // Pools not managed here are planned for nothing: another agent (or nobody) acts on them.
        Map<String, String> unmanaged = new java.util.TreeMap<>();
        List<DesiredPool> managed = new ArrayList<>();
        acting.get().pools().values().forEach(p -> {
            if (settings.managed().manages(p)) {
                managed.add(DesiredPool.of(settings.byHand().map(h -> h.paced(p)).orElse(p)));
            } else {
                unmanaged.put(p.name(), settings.managed().why(p));
            }
        });
        DesiredCluster desired = new DesiredCluster(spec, managed, settings.validationsRequired(), cluster.refillsPools(),
                validations.waived(now));
        Instant observing = clock.instant();
        ObservedCluster seen = observe(desired, window);
        ObservedCluster observed = seen.withHealth(health.verdicts(desired, seen, now));
        if (settings.force()) {
            observed = forced.apply(desired, observed, cluster.machineNodes(poolNames(desired)));
        }
        if (ignoredDrains.isPresent()) {
            observed = ignoredDrains.get().apply(desired, observed, now);
        }
        Instant planning = clock.instant();
        Planned planned = plan(desired, observed, now);
        Instant executing = clock.instant();
        Executed executed = execute(planned.plan(), desired, observed, acting.get().commit(), now);
        NodeUpdateTracker.Finished finished = tracker.track(desired, observed, executed.steps(), now);
        durations.add(finished);
        Instant recording = clock.instant();
        record(executed.statuses(), observed, unmanaged.keySet());
        Instant done = clock.instant();
        if (Duration.between(now, done).compareTo(SLOW) >= 0) {
            // Where a long pass went: each stage's time, as the reconcile histogram cannot tell.
            LOG.info("reconcile took {}: accept {}, observe {}, plan {}, execute {} ({} step(s), {} left for the next pass), record {}",
                    seconds(Duration.between(now, done)), seconds(Duration.between(now, observing)),
                    seconds(Duration.between(observing, planning)), seconds(Duration.between(planning, executing)),
                    seconds(Duration.between(executing, recording)), executed.steps().size(), stepsLeft,
                    seconds(Duration.between(recording, done)));
        }
        return Optional.of(report(acting.get(), window, desired, observed, planned, executed, finished, now).withUnmanaged(unmanaged));
    }

    /** A pass this long says where its time went. */
    static final Duration SLOW = Duration.ofSeconds(2);

    private static String seconds(Duration d) {
        return String.format(java.util.Locale.ROOT, "%.2f s", d.toMillis() / 1000.0);
    }

    /** Accept: what the records say was accepted (at a new term), then the newest good spec if it may be taken. */
    private Optional<AcceptedSpecs.Acting> accept(SpecRevision offered) {
        if (rebuild) {
            acceptance.rebuildFromRecords();
            durations.forget();
            rebuild = false;
        }
        acceptance.takeOffered(offered);
        return acceptance.acting();
    }

    /** Observe: the cluster now, after writing down what finished since the last pass. */
    private ObservedCluster observe(DesiredCluster desired, WindowState window) {
        cluster.refresh(desired, acting());
        return cluster.observe(window.maintenanceState(), poolNames(desired));
    }

    /**
     * The plan and what it holds back: pools above the API server's version, pools the provider refuses, pools whose
     * provider failed in this pass.
     */
    private record Planned(Plan plan, List<String> guardReasons, Map<String, String> refused, Map<String, String> failed) {
    }

    /**
     * Plan: the pure planner; pools the version guard or the provider holds get no steps. A pool the provider refuses,
     * or whose provider failed in this pass, is planned apart: it takes no turn, so the pools after it go on.
     */
    private Planned plan(DesiredCluster desired, ObservedCluster observed, Instant now) {
        // A pool whose machines the provider will not manage as they are is held: nothing is done to it.
        Map<String, String> refused = cluster.refusals(poolNames(desired));
        // A pool whose provider failed in this pass is held too: its machines are unknown, so nothing is decided for it.
        Map<String, String> failed = cluster.providerFailures();
        Map<String, String> held = new HashMap<>(refused);
        failed.forEach((pool, error) -> held.putIfAbsent(pool, "its machine provider failed: " + error));
        DesiredCluster acted = held.isEmpty() ? desired : desired.withPools(
                desired.pools().stream().filter(p -> !held.containsKey(p.name())).toList());
        KubernetesVersionGuard.Guarded guarded = KubernetesVersionGuard.guard(planner.plan(acted, observed, now), acted,
                settings.apiServerVersion());
        Plan plan = guarded.plan();
        if (!held.isEmpty()) {
            // The held pools' reports (what they would do, marked held), in the spec's order with the others'.
            Plan all = planner.plan(desired, observed, now).holding(held);
            plan = new Plan(all.pools().stream().map(p -> held.containsKey(p.pool()) ? p : guarded.plan().pool(p.pool()).orElseThrow())
                    .toList(), guarded.plan().wakeAt());
            failed.forEach((pool, error) -> LOG.warn("pool {} held for this reconcile: its machine provider failed: {}", pool, error));
        }
        acceptance.observed(plan.reports());
        return new Planned(plan, guarded.reasons(), refused, failed);
    }

    /**
     * What the steps did: their outcomes, the steps carried out, and each pool's status after them.
     *
     * @param waits the pools a step of which waits for room in the fleet (the cluster's budget, a zone's repairs)
     * @param left  the pools some of whose steps this pass left for the next, its time for steps being up
     */
    private record Executed(List<StepExecutor.Outcome> outcomes, List<Step> steps, Map<String, PoolStatus> statuses,
                            List<StepRefusal> refusals, Map<String, FleetWait> waits, Set<String> left) {

        Executed(List<StepExecutor.Outcome> outcomes, List<Step> steps, Map<String, PoolStatus> statuses,
                 List<StepRefusal> refusals, Map<String, FleetWait> waits) {
            this(outcomes, steps, statuses, refusals, waits, Set.of());
        }
    }

    /** Guard and execute: each step, in the plan's order, checked at that moment and then carried out. */
    private Executed execute(Plan plan, DesiredCluster desired, ObservedCluster observed, String commit, Instant now) {
        List<StepExecutor.Outcome> outcomes = new ArrayList<>();
        List<Step> executed = new ArrayList<>();
        Map<String, PoolStatus> statuses = new HashMap<>();
        plan.reports().forEach((pool, report) -> statuses.put(pool, report.status()));
        List<StepRefusal> refusals = new ArrayList<>();
        Map<String, FleetWait> waits = new java.util.TreeMap<>();
        // What the drain passes started by earlier passes did (they run off this thread): reported with this pass.
        for (StepExecutor.Outcome o : runner.finished()) {
            outcomes.add(o);
            LOG.info("{} (pool {}, commit {})", o.summary(), o.step().pool(), shortCommit(commit));
        }
        if (settings.dryRun()) {
            return new Executed(outcomes, executed, statuses, refusals, waits);
        }
        Map<String, DesiredPool> byName = new HashMap<>();
        desired.pools().forEach(p -> byName.put(p.name(), p));
        StepGuard perPass = guards.forPass(desired, observed, now);
        // From the first step, not the pass's start: an observe that took seconds (a machine API answering slowly) would
        // leave every pass its one first step (the 10-pool scale run: "1 step(s), 118 left", pass after pass).
        Instant stopStarting = clock.instant().plus(STEP_TIME);
        int carriedOut = 0;
        List<Step> steps = plan.steps();
        Set<String> left = new HashSet<>();
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            // Past its time, the pass leaves the rest to the next one, asked for at once: it plans them again from what is
            // observed then. Before the guard is asked, so that no step left here was counted as started.
            if (carriedOut > 0 && !clock.instant().isBefore(stopStarting)) {
                stepsLeft = steps.size() - i;
                steps.subList(i, steps.size()).forEach(s -> left.add(s.pool()));
                LOG.debug("{} step(s) left for the next pass after {} carried out", stepsLeft, carriedOut);
                break;
            }
            StepGuard.Verdict verdict = acting.check(step);
            if (verdict.kind() == StepGuard.Verdict.Kind.ADMIT) {
                verdict = perPass.check(step);
            }
            if (verdict.kind() == StepGuard.Verdict.Kind.STOP) {
                LOG.warn("{}: {} step(s) left undone", verdict.reason().orElse("stopped"), plan.steps().size() - executed.size());
                break;
            }
            if (verdict.kind() == StepGuard.Verdict.Kind.WAIT) {
                waits.putIfAbsent(step.pool(), new FleetWait(FleetWait.Reason.CLUSTER_BUDGET.label().equals(verdict.label().orElse(""))
                        ? FleetWait.Reason.CLUSTER_BUDGET : FleetWait.Reason.ZONE_REPAIRS, Optional.empty(), verdict.reason().orElse("")));
                continue;
            }
            if (verdict.kind() == StepGuard.Verdict.Kind.REFUSE) {
                refusals.add(new StepRefusal(step.pool(), step.getClass().getSimpleName(), step.target(), verdict.label().orElse(""),
                        verdict.reason().orElse("")));
                continue;
            }
            DesiredPool pool = byName.get(step.pool());
            if (step instanceof Step.Validate) {
                // The one step that changes nothing in the cluster: its result is the pool's streak.
                statuses.put(step.pool(), validations.validate(pool, statuses.get(step.pool()), observed, now));
                continue;
            }
            // At the step's own time, not the pass's start: a pass carries out steps for up to STEP_TIME, and a deletion
            // dated back to the pass's start would let the pool's interval (or --node-interval) end that much early.
            Instant stepAt = clock.instant();
            statuses.computeIfPresent(step.pool(), (k, s) -> ValidationStreak.afterStep(s, step, stepAt));
            if (step instanceof Step.DeleteMachine || step instanceof Step.UpdateInPlace || step instanceof Step.RestartKubelet) {
                // As the streak: the next batch is validated afresh (a waiver lasts one batch).
                validations.batchStarted(step.pool());
            }
            carriedOut++;
            runner.execute(step).ifPresent(o -> {
                outcomes.add(o);
                // The audit line: one per action, with its pool and the commit it carries out.
                LOG.info("{} (pool {}, commit {})", o.summary(), step.pool(), shortCommit(commit));
                notes.executed(step, pool, observed.nodesOf(step.pool()).stream().filter(n -> n.name().equals(step.target())).findFirst(),
                        Optional.ofNullable(acceptance.targets().get(step.pool())));
            });
            executed.add(step);
        }
        logNew(refusals);
        return new Executed(outcomes, executed, statuses, refusals, waits, left);
    }

    private static String shortCommit(String commit) {
        return commit.length() > 12 ? commit.substring(0, 12) : commit;
    }

    /** Each refusal once, with its numbers, while it repeats at every pass; a new one, or one that came back, again. */
    private void logNew(List<StepRefusal> refusals) {
        refusals.stream().filter(r -> !lastRefusals.contains(r))
                .forEach(r -> LOG.warn("refused {} of {} in pool {} ({}): {}", r.step(), r.node(), r.pool(), r.reason(), r.detail()));
        lastRefusals = Set.copyOf(refusals);
    }

    /** Record: each pool's status record, only by an acting leader. */
    private void record(Map<String, PoolStatus> statuses, ObservedCluster observed, Set<String> unmanaged) {
        if (acting()) {
            records.write(statuses, observed, durations, unmanaged);
        }
    }

    /** Report: what this pass saw and did, what an operator should know, and what is left of the rollout. */
    private ReconcileReport report(AcceptedSpecs.Acting acting, WindowState window, DesiredCluster desired, ObservedCluster observed,
                                   Planned planned, Executed executed, NodeUpdateTracker.Finished finished, Instant now) {
        List<String> notices = new ArrayList<>(planned.guardReasons());
        planned.refused().forEach((pool, reason) -> notices.add(pool + ": " + reason));
        planned.failed().forEach((pool, error) -> notices.add(pool + ": its machine provider failed: " + error));
        desired.pools().stream().filter(p -> p.spec().pool().rolloutOutsideWindow()).forEach(p -> notices.add(p.name()
                + ": " + WorkerPoolSpec.ROLLOUT_OUTSIDE_WINDOW + " is set: its update may run outside"
                + " maintenance windows (exclusions still apply)"));
        List<ReconcileReport.UpdateFailure> failures = observed.nodes().stream().filter(n -> n.inPlaceFailed())
                .map(n -> new ReconcileReport.UpdateFailure(n.pool(), n.name(), cluster.inPlaceFailure(n.name()).orElse(null)))
                .sorted(Comparator.comparing(ReconcileReport.UpdateFailure::node)).toList();
        // Why each pool waits: its turn (the planner's), else room in the cluster (the guard stage's). A pool whose steps
        // this pass left is not reported current before they are done: a user, `rolling-update` or the demo would take
        // it for finished while its adoption's stamps, say, are still to be written.
        Plan plan = planned.plan().withWaits(executed.waits()).withStepsLeft(executed.left());
        return new ReconcileReport(now, acting.commit(), window, plan, executed.outcomes(), acceptance.rejected(), notices,
                overdue(plan, now), finished.updates(), finished.drains(), Duration.between(now, clock.instant()),
                Optional.empty(), acceptance.targets(), failures, eta.estimate(desired, plan, durations::of, now), executed.refusals(),
                planned.failed(), NodeStates.of(desired.pools(), observed, plan), Optional.of(calendar.upcoming(now)));
    }

    /** Whether this pass may write to the cluster: it leads and is not a dry run. */
    private boolean acting() {
        return leading.getAsBoolean() && !settings.dryRun();
    }

    private static Set<String> poolNames(DesiredCluster desired) {
        Set<String> pools = new HashSet<>();
        desired.pools().forEach(p -> pools.add(p.name()));
        return pools;
    }

    /**
     * Outdated nodes of pools that had outdated nodes already when the latest window ended: that
     * window passed without finishing them. Since when each pool has been outdated is kept in
     * memory, so after a restart it counts from then: late, never early.
     */
    private Map<String, Integer> overdue(Plan plan, Instant now) {
        outdatedSince.keySet().retainAll(plan.reports().keySet());
        plan.reports().forEach((pool, report) -> {
            if (report.outdated() == 0) {
                outdatedSince.remove(pool);
            } else {
                outdatedSince.putIfAbsent(pool, now);
            }
        });
        if (outdatedSince.isEmpty()) {
            return Map.of();
        }
        Optional<Instant> lastClose = calendar.lastClose(now);
        Map<String, Integer> overdue = new HashMap<>();
        plan.reports().forEach((pool, report) -> overdue.put(pool,
                lastClose.isPresent() && outdatedSince.containsKey(pool) && outdatedSince.get(pool).isBefore(lastClose.get())
                        ? report.outdated() : 0));
        return overdue;
    }

    @Override
    public int stepsLeft() {
        return stepsLeft;
    }

    /** The commit acted on. */
    @Override
    public Optional<String> acceptedCommit() {
        return acceptance.acting().map(AcceptedSpecs.Acting::commit);
    }

    /** Why the newest commit was not taken, for a failed pass's report. */
    @Override
    public List<String> rejected() {
        return acceptance.rejected();
    }
}
