package dev.nightshift.strategies.sim;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;

import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.spec.model.UpdateStrategy;
import dev.nightshift.strategies.PlanMemo;
import dev.nightshift.strategies.PoolAccount;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.ValidationStreak;
import dev.nightshift.strategies.guard.DisruptionGuard;
import dev.nightshift.strategies.guard.GuardMemo;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.NodesByPool;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolReport;
import dev.nightshift.strategies.plan.Step;

/**
 * Every pool of a cluster rolled together on a virtual clock, with the real planner (and so the fleet's turns, roles
 * and {@code after}) and the real disruption guard between the plan and its execution, as the agent's guard stage
 * has it (and so each pool's limits and the cluster's budget). A step the guard does not admit is not carried out;
 * the planner asks again at the next change. No faults, windows always open, validations pass; timing as
 * {@link Simulator}'s: a machine is Ready {@code create} after it is asked for (an in-place update takes as long), a
 * drain takes {@code drain}, a kubelet restart 10 s.
 */
public final class FleetSimulator {

    private static final Instant START = Simulator.START;
    private static final int MAX_PLANS_PER_INSTANT = 10_000;

    private final RolloutPlanner planner;

    public FleetSimulator(RolloutPlanner planner) {
        this.planner = planner;
    }

    public FleetSimulation run(FleetSimulation.Setup setup) {
        return new Run(setup).execute();
    }

    private enum Kind { READY, DRAINED, IN_PLACE_DONE, KUBELET_DONE }

    private record Event(Instant at, long seq, Kind kind, String node) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int c = at.compareTo(o.at);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final class Run implements Step.Handler<Void> {
        private final FleetSimulation.Setup setup;
        private final Map<String, DesiredPool> pools = new HashMap<>();
        private final FleetNodes nodes = new FleetNodes();
        private final Map<String, PoolStatus> statuses = new HashMap<>();
        private final Map<String, Optional<Instant>> lastValidation = new HashMap<>();
        private final Map<String, Double> started = new HashMap<>();
        private final Map<String, Double> ended = new HashMap<>();
        private final Map<String, Integer> created = new HashMap<>();
        /** The planner and the guard group the same observation by pool: once. */
        private final NodesByPool byPool = new NodesByPool();
        private final PlanMemo memo = new PlanMemo(byPool);
        private final GuardMemo guardMemo = new GuardMemo(byPool);
        private final PriorityQueue<Event> events = new PriorityQueue<>();
        private final List<String> violations = new ArrayList<>();
        private final int budget;
        private boolean changed;
        private Instant now = START;
        private long seq;
        private int peakUnavailable;
        private Plan lastPlan;

        Run(FleetSimulation.Setup setup) {
            this.setup = setup;
            int managed = 0;
            for (DesiredPool p : setup.desired().pools()) {
                pools.put(p.name(), p);
                statuses.put(p.name(), PoolStatus.NEW);
                StampedHash oldRoll = new StampedHash(p.rollHash().version(), "0".repeat(32));
                StampedHash oldKubelet = new StampedHash(p.kubeletHash().version(), "0".repeat(32));
                int n = setup.nodesOf(p.name());
                managed += n;
                for (int i = 1; i <= n; i++) {
                    String name = p.name() + "-" + i;
                    ObservedNode.Builder b = ObservedNode.ready(name, p.name(), START).toBuilder().rollHash(oldRoll)
                            .kubeletHash(oldKubelet).managedLabels(p.labels()).managedTaints(p.spec().pool().taints())
                            .managedAnnotations(p.annotations());
                    if (bastion(p)) {
                        b.registered(false);
                    }
                    nodes.put(b.build());
                }
            }
            budget = setup.desired().cluster().concurrency().resolveMaxUnavailable(managed);
        }

        private boolean bastion(DesiredPool p) {
            return p.spec().pool().role() == PoolRole.BASTION;
        }

        FleetSimulation execute() {
            Instant horizon = START.plus(setup.horizon());
            String failure = "";
            while (true) {
                settle();
                if (done()) {
                    break;
                }
                Optional<Instant> next = Optional.ofNullable(events.peek()).map(Event::at);
                Optional<Instant> wake = lastPlan.wakeAt();
                if (next.isEmpty() || (wake.isPresent() && wake.get().isBefore(next.get()))) {
                    next = wake.or(() -> Optional.ofNullable(events.peek()).map(Event::at));
                }
                if (next.isEmpty()) {
                    failure = "stuck at t=" + t() + ": " + stuck();
                    break;
                }
                if (next.get().isAfter(horizon)) {
                    failure = "not finished after " + setup.horizon().toHours() + "h: " + stuck();
                    break;
                }
                now = next.get();
                while (!events.isEmpty() && !events.peek().at().isAfter(now)) {
                    handle(events.poll());
                }
            }
            List<FleetSimulation.PoolSpan> spans = new ArrayList<>();
            double c = seconds(setup.create());
            double d = seconds(setup.drain());
            for (DesiredPool p : setup.desired().pools()) {
                int n = setup.nodesOf(p.name());
                spans.add(new FleetSimulation.PoolSpan(p.name(), p.spec().pool().role().yamlName(), n, started.getOrDefault(p.name(), -1.0),
                        ended.getOrDefault(p.name(), -1.0), LowerBound.seconds(p.spec(), n, c, d)));
            }
            double makespan = ended.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
            return new FleetSimulation(failure.isEmpty(), failure, makespan,
                    FleetLowerBound.seconds(setup.desired(), setup::nodesOf, c, d), budget == Integer.MAX_VALUE ? -1 : budget,
                    peakUnavailable, violations, spans);
        }

        /** Plans, guards and executes at the current instant until a plan changes nothing. */
        private void settle() {
            for (int i = 0; i < MAX_PLANS_PER_INSTANT; i++) {
                ObservedCluster observed = observed();
                RolloutPlanner.Planned planned = planner.planWithAccounts(setup.desired(), observed, now, memo);
                measure(planned.accounts());
                lastPlan = planned.plan();
                Map<String, PoolStatus> before = new HashMap<>(statuses);
                lastPlan.reports().forEach((pool, report) -> statuses.put(pool, report.status()));
                changed = false;
                List<Step> steps = lastPlan.steps();
                // Most plans of a settled instant ask for nothing: no guard to make.
                DisruptionGuard guard = steps.isEmpty() ? null : new DisruptionGuard(setup.desired(), observed, Set.of(), guardMemo);
                for (Step step : steps) {
                    if (guard.admit(step).isEmpty()) {
                        statuses.computeIfPresent(step.pool(), (k, s) -> ValidationStreak.afterStep(s, step, now));
                        step.accept(this);
                    }
                }
                if (!changed && before.equals(statuses)) {
                    return;
                }
            }
            throw new IllegalStateException("the planner did not settle at t=" + t());
        }

        private ObservedCluster observed() {
            return new ObservedCluster(nodes.observed(), true, MaintenanceState.OPEN, statuses);
        }

        private boolean done() {
            // The planner takes a pool for current once its last replacement is asked for: the machine must be up too.
            if (!lastPlan.steps().isEmpty() || events.stream().anyMatch(e -> e.kind() != Kind.DRAINED)) {
                return false;
            }
            for (PoolReport r : lastPlan.reports().values()) {
                if (r.outdated() > 0 || r.updating() > 0) {
                    return false;
                }
            }
            return true;
        }

        private String stuck() {
            StringBuilder b = new StringBuilder();
            lastPlan.reports().values().stream().filter(r -> r.outdated() > 0).limit(5).forEach(r -> b.append(b.isEmpty() ? "" : "; ")
                    .append(r.pool()).append(" is ").append(r.phase()).append(" with ").append(r.outdated()).append(" outdated")
                    .append(r.waitingFor().map(w -> " (waiting for " + w.detail() + ")").orElse("")));
            return b.toString();
        }

        /** Cluster-wide and per pool, after each plan: the accounting the planner made of the nodes as they are. */
        private void measure(Map<String, PoolAccount> accounts) {
            int unavailable = 0;
            for (Map.Entry<String, PoolAccount> e : accounts.entrySet()) {
                PoolAccount a = e.getValue();
                unavailable += Math.max(0, a.unavailable());
                boolean replace = pools.get(e.getKey()).spec().pool().updateStrategy() == UpdateStrategy.Replace;
                if (!replace && a.machines() > a.count() + a.limits().maxSurge()) {
                    violations.add("t=" + t() + ": " + e.getKey() + " has " + a.machines() + " machines, more than count " + a.count()
                            + " + maxSurge " + a.limits().maxSurge());
                }
                if (!replace && a.unavailable() > a.limits().maxUnavailable()) {
                    violations.add("t=" + t() + ": " + e.getKey() + " has " + a.unavailable() + " unavailable, more than maxUnavailable "
                            + a.limits().maxUnavailable());
                }
            }
            peakUnavailable = Math.max(peakUnavailable, unavailable);
            if (unavailable > budget) {
                violations.add("t=" + t() + ": " + unavailable + " nodes unavailable in the cluster, more than maxUnavailableNodes " + budget);
            }
        }

        // ---- the simulated provider and cluster --------------------------------------------

        private void started(String pool) {
            started.putIfAbsent(pool, t());
        }

        private void put(ObservedNode node) {
            nodes.put(node);
            changed = true;
        }

        @Override
        public Void stamp(Step.Stamp s) {
            put(nodes.get(s.target()).toBuilder().rollHash(s.rollHash()).kubeletHash(s.kubeletHash()).build());
            return null;
        }

        @Override
        public Void taint(Step.Taint t) {
            ObservedNode n = nodes.get(t.target());
            if (n != null && !n.updateTainted()) {
                put(n.toBuilder().updateTainted(true).build());
            }
            return null;
        }

        @Override
        public Void untaint(Step.Untaint t) {
            ObservedNode n = nodes.get(t.target());
            if (n != null && n.updateTainted()) {
                put(n.toBuilder().updateTainted(false).build());
            }
            return null;
        }

        @Override
        public Void cordon(Step.Cordon c) {
            ObservedNode n = nodes.get(c.target());
            if (n != null && !n.cordoned()) {
                started(c.pool());
                put(n.toBuilder().cordoned(true).build());
            }
            return null;
        }

        @Override
        public Void uncordon(Step.Uncordon u) {
            ObservedNode n = nodes.get(u.target());
            if (n != null) {
                put(n.toBuilder().cordoned(false).drainStartedAt(null).drained(false).inPlaceStartedAt(null).kubeletRestartAt(null)
                        .blockedEvictions(List.of()).build());
            }
            return null;
        }

        @Override
        public Void repair(Step.Repair r) {
            ObservedNode n = nodes.get(r.target());
            if (n != null && !n.draining()) {
                cordon(new Step.Cordon(r.target(), r.pool()));
                drain(new Step.Drain(r.target(), r.pool()));
            }
            return null;
        }

        @Override
        public Void drain(Step.Drain d) {
            ObservedNode n = nodes.get(d.target());
            if (n != null && !n.draining()) {
                started(d.pool());
                put(n.toBuilder().drainStartedAt(now).build());
                schedule(setup.drain(), Kind.DRAINED, d.target());
            }
            return null;
        }

        @Override
        public Void forceDeletePod(Step.ForceDeletePod f) {
            return null;
        }

        @Override
        public Void deleteMachine(Step.DeleteMachine d) {
            ObservedNode n = nodes.remove(d.target());
            if (n != null) {
                changed = true;
                started(d.pool());
                ended.put(d.pool(), t());
                if (d.replace()) {
                    create(d.pool(), null, d.rollHash(), d.kubeletHash());
                }
            }
            return null;
        }

        @Override
        public Void createMachine(Step.CreateMachine c) {
            boolean partnerHasOne = nodes.hasStandIn(c.surgeFor());
            if (!partnerHasOne) {
                started(c.pool());
                create(c.pool(), c.surgeFor(), c.rollHash(), c.kubeletHash());
            }
            return null;
        }

        @Override
        public Void updateInPlace(Step.UpdateInPlace u) {
            ObservedNode n = nodes.get(u.target());
            if (n != null && (!n.updatingInPlace() || n.ready())) {
                started(u.pool());
                put(n.toBuilder().inPlaceStartedAt(now).readySince(null).build());
                schedule(setup.create(), Kind.IN_PLACE_DONE, u.target());
            }
            return null;
        }

        @Override
        public Void restartKubelet(Step.RestartKubelet r) {
            ObservedNode n = nodes.get(r.target());
            if (n != null && n.kubeletRestartAt().equals(r.unansweredSince())) {
                started(r.pool());
                put(n.toBuilder().kubeletRestartAt(now).build());
                schedule(Duration.ofSeconds(10), Kind.KUBELET_DONE, r.target());
            }
            return null;
        }

        @Override
        public Void propagate(Step.Propagate p) {
            ObservedNode n = nodes.get(p.target());
            if (n != null) {
                put(n.toBuilder().managedLabels(p.labels()).managedTaints(p.taints()).managedAnnotations(p.annotations()).build());
            }
            return null;
        }

        @Override
        public Void labelCandidate(Step.LabelCandidate l) {
            ObservedNode n = nodes.get(l.target());
            if (n != null && !n.candidateForUpdate()) {
                // The simulated user selects every candidate at once.
                put(n.toBuilder().candidateForUpdate(true).selectedForUpdate(true).build());
            }
            return null;
        }

        @Override
        public Void validate(Step.Validate v) {
            DesiredPool pool = pools.get(v.pool());
            ValidationStreak.Check check = ValidationStreak.validate(statuses.get(v.pool()),
                    // The pool's machines are those the check looks at: not every machine of the fleet.
                    RolloutPlanner.healthy(pool, observed().withNodes(nodes.ofPool(v.pool())), now), lastValidation.getOrDefault(v.pool(), Optional.empty()),
                    ValidationStreak.DEFAULT_INTERVAL, now);
            statuses.put(v.pool(), check.status());
            if (check.counted()) {
                lastValidation.put(v.pool(), Optional.of(now));
            }
            return null;
        }

        private void create(String pool, String surgeFor, StampedHash roll, StampedHash kubelet) {
            String name = pool + "-new-" + created.merge(pool, 1, Integer::sum);
            put(ObservedNode.ready(name, pool, now).toBuilder().registered(false).readySince(null).createdAt(now).rollHash(roll)
                    .kubeletHash(kubelet).surgeFor(surgeFor).build());
            schedule(setup.create(), Kind.READY, name);
        }

        private void handle(Event e) {
            ObservedNode n = nodes.get(e.node());
            if (n == null) {
                return;
            }
            DesiredPool pool = pools.get(n.pool());
            switch (e.kind()) {
                case READY -> {
                    put(n.toBuilder().registered(!bastion(pool)).readySince(now).build());
                    ended.put(n.pool(), t());
                }
                case DRAINED -> {
                    if (n.draining()) {
                        put(n.toBuilder().drained(true).build());
                    }
                }
                case IN_PLACE_DONE -> {
                    put(n.toBuilder().rollHash(pool.rollHash()).kubeletHash(pool.kubeletHash()).needsUpdate(false).readySince(now).build());
                    ended.put(n.pool(), t());
                }
                case KUBELET_DONE -> {
                    put(n.toBuilder().kubeletHash(pool.kubeletHash()).build());
                    ended.put(n.pool(), t());
                }
            }
        }

        private void schedule(Duration after, Kind kind, String node) {
            events.add(new Event(now.plus(after), seq++, kind, node));
        }

        private double t() {
            return Duration.between(START, now).toMillis() / 1000.0;
        }
    }

    private static double seconds(Duration d) {
        return d.toMillis() / 1000.0;
    }
}
