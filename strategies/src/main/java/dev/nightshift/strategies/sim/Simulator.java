package dev.nightshift.strategies.sim;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.UpdateStrategy;
import dev.nightshift.strategies.EvictionBackoff;
import dev.nightshift.strategies.PoolAccount;
import dev.nightshift.strategies.PlanMemo;
import dev.nightshift.strategies.PoolLimits;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.ValidationStreak;
import dev.nightshift.strategies.model.BlockedEviction;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.NodeCondition;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.HealthVerdict;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.model.RolloutProgress;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolReport;
import dev.nightshift.strategies.plan.Step;

/**
 * A deterministic discrete-event simulation of one pool's update: a virtual clock, a simulated
 * provider and cluster, and the real planner asked again after every change. The planner is
 * stateless, so a crash is simulated by executing only part of a plan and asking again. The
 * status record evolves by the agent's own rules ({@link ValidationStreak}), and peaks and
 * violations are measured with the planner's accounting ({@link PoolAccount}). The simulated
 * cluster carries steps out as a {@link Step.Handler}, the contract the agent's executor keeps too;
 * {@link #step} shows what one step does, for the test that compares the two.
 */
public final class Simulator {

    static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final int MAX_PLANS_PER_INSTANT = 10_000;

    private final RolloutPlanner planner;

    public Simulator(RolloutPlanner planner) {
        this.planner = planner;
    }

    public SimulationResult run(SimulationSetup setup) {
        return new Run(setup).execute();
    }

    /**
     * What one step does to the simulated cluster at once, before any of the delays it starts has
     * run: the nodes after the step, as the planner would observe them. It is the simulator's side
     * of the contract that the agent's executor keeps too; the faults of {@code setup} apply.
     *
     * @param start the pool's nodes before the step
     */
    public List<ObservedNode> step(SimulationSetup setup, List<ObservedNode> start, Instant now, Step step) {
        Run run = new Run(setup, start, now);
        run.apply(step);
        return run.observed().nodes();
    }

    private enum EventKind { READY, DRAINED, EVICTION_RETRY, IN_PLACE_DONE, KUBELET_DONE, UNHEALTHY }

    /** The condition the unhealthy fault sets: one of the default nodeConditions. */
    static final String FAULT_CONDITION = "DiskPressure";

    private record Event(Instant at, long seq, EventKind kind, String node) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int c = at.compareTo(o.at);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final class Run implements Step.Handler<Void> {
        private final SimulationSetup setup;
        private final DesiredPool pool;
        private final DesiredCluster desired;
        private final Random random;
        private final Map<String, ObservedNode> nodes = new TreeMap<>();
        /** The values of {@link #nodes} in the same (name) order, kept along: what the planner observes, copied without walking the tree. */
        private final List<ObservedNode> ordered = new ArrayList<>();
        /** How many machines stand in for each old node (surge machines by partner), kept along with {@link #nodes}. */
        private final Map<String, Integer> surgeMachinesFor = new HashMap<>();
        /**
         * The nodes changed since the plan being carried out, each as it was before (empty: it did
         * not exist): what tells a plan that changed something from one that did not, without
         * copying the pool for every plan.
         */
        private final Map<String, Optional<ObservedNode>> changedBefore = new HashMap<>();
        /** What the planner judged of the nodes: a node this run did not change since is not judged again. */
        private final PlanMemo memo = new PlanMemo();
        private final PriorityQueue<Event> events = new PriorityQueue<>();
        private final Set<String> drainTimeElapsed = new HashSet<>();
        /**
         * Machines that fell ill, and those that replace or stand in for one: their slot is down
         * because of a fault, not of the planner, until they are available.
         */
        private final Set<String> faultSlots = new HashSet<>();
        private final List<TimelineEvent> timeline = new ArrayList<>();
        private final List<String> violations = new ArrayList<>();
        private PoolStatus status = PoolStatus.NEW;
        /** Whether each wave's checks fail, drawn when the wave is first judged. */
        private final Map<Integer, Boolean> waveFails = new HashMap<>();
        /** When the streak's last counted validation was made, as the agent keeps it. */
        private Optional<Instant> lastValidation = Optional.empty();
        private Instant now = START;
        private long seq;
        private int created;
        private int peakNodes;
        private int peakUnavailable;
        private Plan lastPlan;

        /** A run from the given nodes at the given instant, its pool's status new. */
        Run(SimulationSetup setup, List<ObservedNode> start, Instant now) {
            this.setup = setup;
            this.pool = setup.desired().pools().stream().filter(p -> p.name().equals(setup.pool())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no pool " + setup.pool()));
            // Only the simulated pool is planned, and nothing is refilled: the run holds the pool's outdated nodes only
            // (its current ones are not simulated), so a refill to its minimum would add work the rollout does not
            // have, and the other pools, with no node here, would each be refilled with machines made in this pool and
            // removed again for ever (the demo's ETA, whose provider Nightshift refills for: "did not settle after
            // 10000 plans", and no ETA in /status).
            DesiredCluster given = setup.desired();
            this.desired = new DesiredCluster(given.cluster(), List.of(pool), given.validationsRequired(), false,
                    given.validationWaived());
            this.random = new Random(setup.seed());
            this.now = now;
            start.forEach(this::update);
        }

        /** A run from {@code setup.nodes()} outdated nodes at {@code setup.start()}. */
        Run(SimulationSetup setup) {
            this(setup, List.of(), setup.start());
            // Outdated by a kubelet change alone, the nodes already run the desired roll hash.
            StampedHash oldRoll = setup.outdated() == SimulationSetup.Outdated.KUBELET ? pool.rollHash()
                    : new StampedHash(pool.rollHash().version(), "0".repeat(32));
            StampedHash oldKubelet = new StampedHash(pool.kubeletHash().version(), "0".repeat(32));
            for (int i = 1; i <= setup.nodes(); i++) {
                String name = pool.name() + "-" + i;
                ObservedNode.Builder b = ObservedNode.ready(name, pool.name(), setup.start()).toBuilder()
                        .rollHash(oldRoll).kubeletHash(oldKubelet)
                        .managedLabels(pool.labels()).managedTaints(pool.spec().pool().taints())
                        .managedAnnotations(pool.annotations());
                if (bastion()) {
                    b.registered(false);
                }
                put(b.build());
            }
            peakNodes = nodes.size();
            // Drawn after the initial nodes, and only when the fault is asked for: runs without it
            // draw the same numbers as before it existed.
            if (setup.faults().unhealthy() > 0) {
                long spread = setup.create().plus(setup.drain()).multipliedBy(setup.nodes()).plusMinutes(10).toMillis();
                for (String name : List.copyOf(nodes.keySet())) {
                    if (random.nextDouble() < setup.faults().unhealthy()) {
                        schedule(Duration.ofMillis((long) (random.nextDouble() * spread)), EventKind.UNHEALTHY, name);
                    }
                }
            }
        }

        private boolean bastion() {
            return pool.spec().pool().role() == PoolRole.BASTION;
        }

        SimulationResult execute() {
            Instant horizon = setup.start().plus(setup.horizon());
            String failure = "";
            while (true) {
                settle();
                if (done()) {
                    break;
                }
                Optional<Instant> next = nextTime();
                if (next.isEmpty()) {
                    failure = stuckReason();
                    break;
                }
                if (next.get().isAfter(horizon)) {
                    failure = "not finished after " + setup.horizon().toHours() + "h: " + stuckReason();
                    break;
                }
                now = next.get();
                while (!events.isEmpty() && !events.peek().at().isAfter(now)) {
                    handle(events.poll());
                }
            }
            double makespan = timeline.isEmpty() ? 0 : timeline.get(timeline.size() - 1).t();
            ResolvedPool spec = pool.spec();
            int count = setup.nodes();
            PoolLimits limits = PoolLimits.of(spec, count);
            return new SimulationResult(pool.name(), spec.pool().updateStrategy().name(), count, limits.maxSurge(),
                    limits.maxUnavailable(), failure.isEmpty(),
                    failure, makespan, LowerBound.seconds(spec, count, seconds(setup.create()), seconds(setup.drain())),
                    peakNodes, peakUnavailable, violations, timeline, t());
        }

        /** Plans and executes at the current instant until a plan changes nothing. */
        private void settle() {
            boolean changed = false;
            for (int i = 0; i < MAX_PLANS_PER_INSTANT; i++) {
                RolloutPlanner.Planned planned = planner.planWithAccounts(desired, observed(), now, memo);
                PoolAccount account = planned.accounts().get(pool.name());
                if (changed) {
                    // The nodes the last steps left, measured with the accounting this plan made of them.
                    measure(account);
                }
                lastPlan = planned.plan();
                PoolReport report = lastPlan.report(pool.name());
                changedBefore.clear();
                PoolStatus statusBefore = status;
                status = report.status();
                List<Step> steps = lastPlan.steps();
                boolean crashed = setup.faults().crash() > 0 && steps.size() > 1 && random.nextDouble() < setup.faults().crash();
                if (crashed) {
                    steps = steps.subList(0, random.nextInt(steps.size()));
                }
                for (Step step : steps) {
                    apply(step);
                }
                // After a crash the restarted agent always plans again, even if the crash left nothing changed.
                if (!crashed && unchanged() && statusBefore.equals(status)) {
                    // The nodes are those this plan saw: its accounting is theirs.
                    measure(account);
                    return;
                }
                changed = true;
            }
            throw new IllegalStateException("the planner did not settle at t=" + t() + " after " + MAX_PLANS_PER_INSTANT + " plans");
        }

        /** Every node the last plan's steps touched is as it was before them (added ones gone again, removed ones back). */
        private boolean unchanged() {
            for (Map.Entry<String, Optional<ObservedNode>> e : changedBefore.entrySet()) {
                if (!e.getValue().equals(Optional.ofNullable(nodes.get(e.getKey())))) {
                    return false;
                }
            }
            return true;
        }

        private ObservedCluster observed() {
            ObservedCluster o = new ObservedCluster(List.copyOf(ordered), true, setup.windows().at(now), Map.of(pool.name(), status));
            return pool.spec().rollout().healthChecks().isEmpty() ? o : o.withHealth(Map.of(pool.name(), verdict()));
        }

        /**
         * The pool's health checks as the simulation has them: passing, unless {@code failHealth} draws a failure for
         * the current wave, which then fails during its soak (drawn once per wave, and only when asked for: runs
         * without it draw the same numbers as before).
         */
        private HealthVerdict verdict() {
            if (setup.faults().failHealth() <= 0) {
                return HealthVerdict.PASSING;
            }
            // A wave fails its checks once its nodes run the new spec: during its soak.
            if (status.rollout().flatMap(RolloutProgress::waveAvailableAt).isEmpty()) {
                return HealthVerdict.PASSING;
            }
            int wave = status.rollout().map(RolloutProgress::wave).orElse(0);
            boolean fails = waveFails.computeIfAbsent(wave, w -> random.nextDouble() < setup.faults().failHealth());
            return fails ? new HealthVerdict.Failing(pool.spec().rollout().healthChecks().get(0).name(), "failing (simulated)",
                    "--fail-health " + setup.faults().failHealth()) : HealthVerdict.PASSING;
        }

        private boolean done() {
            // The last plan saw the nodes as they are (it changed nothing): cheap answers first.
            if (!lastPlan.steps().isEmpty() || lastPlan.report(pool.name()).outdated() > 0) {
                return false;
            }
            boolean allCurrent = nodes.values().stream().allMatch(n -> n.rollHash().equals(Optional.of(pool.rollHash()))
                    && n.kubeletHash().equals(Optional.of(pool.kubeletHash())) && n.ready() && !n.cordoned()
                    && !n.draining() && !n.updatingInPlace() && !n.needsUpdate() && (n.registered() || bastion()));
            return allCurrent && lastPlan.steps().isEmpty();
        }

        private Optional<Instant> nextTime() {
            Optional<Instant> event = Optional.ofNullable(events.peek()).map(Event::at);
            // A window opening or closing changes what the planner may start, as it wakes the agent.
            Optional<Instant> wake = earliest(lastPlan.wakeAt(), setup.windows().nextChangeAfter(now));
            return earliest(event, wake);
        }

        private static Optional<Instant> earliest(Optional<Instant> a, Optional<Instant> b) {
            if (a.isPresent() && b.isPresent()) {
                return Optional.of(a.get().isBefore(b.get()) ? a.get() : b.get());
            }
            return a.or(() -> b);
        }

        private String stuckReason() {
            PoolReport r = lastPlan.report(pool.name());
            StringBuilder b = new StringBuilder("pool " + r.pool() + " is " + r.phase() + " with " + r.outdated()
                    + " outdated node(s)");
            if (r.failed() > 0) {
                b.append(", ").append(r.failed()).append(" failed");
            }
            r.status().halt().ifPresent(h -> b.append("; halted in wave ").append(h.wave()).append(": ").append(h.check())
                    .append(' ').append(h.value()).append(' ').append(h.threshold()));
            r.blockedDrains().forEach(d -> b.append("; drain of ").append(d.node()).append(" blocked by pod ")
                    .append(d.eviction().pod()).append(" (budget ").append(d.eviction().disruptionBudget()).append(')'));
            nodes.values().stream().filter(n -> n.registered() && !n.ready())
                    .forEach(n -> b.append("; ").append(n.name()).append(" is not Ready"));
            return b.toString();
        }

        // ---- the simulated provider and cluster --------------------------------------------

        private void apply(Step step) {
            // The agent's own rules: a deletion or a started batch makes the next batch wait for fresh validations.
            status = ValidationStreak.afterStep(status, step, now);
            step.accept(this);
        }

        @Override
        public Void stamp(Step.Stamp s) {
            update(nodes.get(s.target()).toBuilder().rollHash(s.rollHash()).kubeletHash(s.kubeletHash()).build());
            return null;
        }

        @Override
        public Void taint(Step.Taint t) {
            String name = t.target();
            ObservedNode node = nodes.get(name);
            if (node != null && !node.updateTainted()) {
                update(node.toBuilder().updateTainted(true).build());
                record(name, "TAINT");
            }
            return null;
        }

        @Override
        public Void untaint(Step.Untaint t) {
            String name = t.target();
            ObservedNode node = nodes.get(name);
            if (node != null && node.updateTainted()) {
                update(node.toBuilder().updateTainted(false).build());
                record(name, "UNTAINT");
            }
            return null;
        }

        @Override
        public Void cordon(Step.Cordon c) {
            String name = c.target();
            ObservedNode node = nodes.get(name);
            if (node != null && !node.cordoned()) {
                update(node.toBuilder().cordoned(true).build());
                record(name, "CORDON");
            }
            return null;
        }

        @Override
        public Void uncordon(Step.Uncordon u) {
            String name = u.target();
            ObservedNode node = nodes.get(name);
            if (node != null) {
                if (node.cordoned()) {
                    record(name, "UNCORDON");
                }
                update(node.toBuilder().cordoned(false).drainStartedAt(null).drained(false).inPlaceStartedAt(null)
                        .kubeletRestartAt(null).blockedEvictions(List.of()).build());
            }
            return null;
        }

        @Override
        public Void repair(Step.Repair r) {
            String name = r.target();
            ObservedNode node = nodes.get(name);
            if (node != null && !node.draining()) {
                record(name, "REPAIR");
                apply(new Step.Cordon(name, r.pool()));
                apply(new Step.Drain(name, r.pool()));
            }
            return null;
        }

        @Override
        public Void drain(Step.Drain d) {
            String name = d.target();
            ObservedNode node = nodes.get(name);
            if (node != null && !node.draining()) {
                List<BlockedEviction> blocked = random.nextDouble() < setup.faults().pdbBlocked()
                        // The drain's first request was refused: one attempt, as the agent counts it.
                        ? List.of(new BlockedEviction(name + "-pod", pool.name() + "-pdb", 1)) : List.of();
                update(node.toBuilder().drainStartedAt(now).blockedEvictions(blocked).build());
                record(name, "DRAIN");
                schedule(setup.drain(), EventKind.DRAINED, name);
                if (!blocked.isEmpty()) {
                    schedule(EvictionBackoff.after(1), EventKind.EVICTION_RETRY, name);
                }
            }
            return null;
        }

        @Override
        public Void forceDeletePod(Step.ForceDeletePod f) {
            String name = f.target();
            ObservedNode node = nodes.get(name);
            if (node != null) {
                List<BlockedEviction> left = node.blockedEvictions().stream().filter(b -> !b.pod().equals(f.pod())).toList();
                update(node.toBuilder().blockedEvictions(left)
                        .drained(left.isEmpty() && drainTimeElapsed.contains(name)).build());
            }
            return null;
        }

        @Override
        public Void deleteMachine(Step.DeleteMachine d) {
            String name = d.target();
            ObservedNode node = nodes.get(name);
            if (node != null) {
                remove(name);
                drainTimeElapsed.remove(name);
                faultSlots.remove(name);
                record(name, "DELETE");
                if (!node.conditions().isEmpty()) {
                    nodes.values().stream().filter(n -> n.surgeFor().equals(Optional.of(name)) && !n.ready())
                            .forEach(n -> faultSlots.add(n.name()));
                }
                if (d.replace()) {
                    String replacement = create(null, d.rollHash(), d.kubeletHash());
                    if (!node.conditions().isEmpty()) {
                        faultSlots.add(replacement);
                    }
                }
            }
            return null;
        }

        @Override
        public Void createMachine(Step.CreateMachine c) {
            boolean partnerHasOne = surgeMachinesFor.containsKey(c.surgeFor());
            if (!partnerHasOne) {
                create(c.surgeFor(), c.rollHash(), c.kubeletHash());
            }
            return null;
        }

        @Override
        public Void updateInPlace(Step.UpdateInPlace u) {
            String name = u.target();
            ObservedNode node = nodes.get(name);
            // A node that finished an update (Ready again) may be asked for another: the target moved.
            if (node != null && (!node.updatingInPlace() || node.ready())) {
                update(node.toBuilder().inPlaceStartedAt(now).readySince(null).build());
                record(name, "UPDATE_IN_PLACE");
                schedule(jittered(setup.inPlace()), EventKind.IN_PLACE_DONE, name);
            }
            return null;
        }

        @Override
        public Void restartKubelet(Step.RestartKubelet r) {
            String name = r.target();
            ObservedNode node = nodes.get(name);
            if (node != null && node.kubeletRestartAt().equals(r.unansweredSince())) {
                update(node.toBuilder().kubeletRestartAt(now).build());
                record(name, "RESTART_KUBELET");
                schedule(setup.kubeletRestart(), EventKind.KUBELET_DONE, name);
            }
            return null;
        }

        @Override
        public Void propagate(Step.Propagate p) {
            String name = p.target();
            ObservedNode node = nodes.get(name);
            if (node != null) {
                update(node.toBuilder().managedLabels(p.labels()).managedTaints(p.taints())
                        .managedAnnotations(p.annotations()).build());
                record(name, "PROPAGATE");
            }
            return null;
        }

        @Override
        public Void labelCandidate(Step.LabelCandidate l) {
            String name = l.target();
            ObservedNode node = nodes.get(name);
            if (node != null && !node.candidateForUpdate()) {
                // The simulated user selects every candidate at once.
                update(node.toBuilder().candidateForUpdate(true).selectedForUpdate(true).build());
                record(name, "LABEL_CANDIDATE");
            }
            return null;
        }

        @Override
        public Void validate(Step.Validate v) {
            ValidationStreak.Check check = ValidationStreak.validate(status, RolloutPlanner.healthy(pool, observed(), now),
                    lastValidation, ValidationStreak.DEFAULT_INTERVAL, now);
            status = check.status();
            if (check.counted()) {
                lastValidation = Optional.of(now);
            }
            return null;
        }

        private String create(String surgeFor, StampedHash roll, StampedHash kubelet) {
            String name = pool.name() + "-new-" + (++created);
            ObservedNode machine = ObservedNode.ready(name, pool.name(), now).toBuilder()
                    .registered(false).readySince(null).createdAt(now).rollHash(roll).kubeletHash(kubelet)
                    .surgeFor(surgeFor).build();
            update(machine);
            timeline.add(new TimelineEvent(t(), name, "CREATE", Optional.ofNullable(surgeFor)));
            if (random.nextDouble() >= setup.faults().createFailure()) {
                schedule(jittered(setup.create()), EventKind.READY, name);
            }
            return name;
        }

        private Duration jittered(Duration base) {
            if (setup.faults().createJitter() <= 0) {
                return base;
            }
            return base.plusMillis((long) (base.toMillis() * setup.faults().createJitter() * random.nextDouble()));
        }

        private void handle(Event e) {
            ObservedNode node = nodes.get(e.node());
            if (node == null) {
                return;
            }
            switch (e.kind()) {
                case READY -> {
                    boolean neverReady = random.nextDouble() < setup.faults().neverReady();
                    update(node.toBuilder().registered(!bastion()).readySince(neverReady ? null : now).build());
                    if (!neverReady) {
                        record(e.node(), "READY");
                    }
                }
                case DRAINED -> {
                    drainTimeElapsed.add(e.node());
                    if (node.draining() && node.blockedEvictions().isEmpty()) {
                        update(node.toBuilder().drained(true).build());
                    }
                }
                case EVICTION_RETRY -> {
                    if (node.draining() && !node.blockedEvictions().isEmpty()) {
                        List<BlockedEviction> retried = node.blockedEvictions().stream()
                                .map(b -> new BlockedEviction(b.pod(), b.disruptionBudget(), b.attempts() + 1)).toList();
                        update(node.toBuilder().blockedEvictions(retried).build());
                        // Past maxEvictRetries more refusals change nothing the planner reads: stop ticking.
                        int limit = pool.spec().pool().machineControllerManager().maxEvictRetries();
                        if (retried.stream().anyMatch(b -> b.attempts() < limit)) {
                            // The agent's own backoff: each refusal doubles the wait before the next request.
                            int refusals = retried.stream().mapToInt(BlockedEviction::attempts).max().orElse(0);
                            schedule(EvictionBackoff.after(refusals), EventKind.EVICTION_RETRY, e.node());
                        }
                    }
                }
                case IN_PLACE_DONE -> {
                    if (random.nextDouble() < setup.faults().inPlaceFailure()) {
                        update(node.toBuilder().inPlaceFailed(true).readySince(now).build());
                    } else {
                        // The update rebooted the node: whatever ailed it is gone.
                        update(node.toBuilder().rollHash(pool.rollHash()).kubeletHash(pool.kubeletHash())
                                .needsUpdate(false).readySince(now).conditions(List.of()).build());
                        record(e.node(), "READY");
                    }
                }
                case KUBELET_DONE -> update(node.toBuilder().kubeletHash(pool.kubeletHash()).build());
                case UNHEALTHY -> {
                    if (node.registered() && node.conditions().isEmpty()) {
                        update(node.toBuilder().conditions(List.of(NodeCondition.of(NodeCondition.READY, "True", setup.start()),
                                NodeCondition.of(FAULT_CONDITION, "True", now))).build());
                        faultSlots.add(e.node());
                        record(e.node(), "UNHEALTHY");
                    }
                }
            }
        }

        private void schedule(Duration after, EventKind kind, String node) {
            events.add(new Event(now.plus(after), seq++, kind, node));
        }

        private void update(ObservedNode node) {
            remember(node.name());
            put(node);
        }

        private void remove(String name) {
            remember(name);
            ObservedNode gone = nodes.remove(name);
            if (gone != null) {
                ordered.remove(position(name));
                gone.surgeFor().ifPresent(this::forgetSurge);
            }
        }

        private void put(ObservedNode node) {
            ObservedNode before = nodes.put(node.name(), node);
            int at = position(node.name());
            if (before == null) {
                ordered.add(-at - 1, node);
            } else {
                ordered.set(at, node);
                before.surgeFor().ifPresent(this::forgetSurge);
            }
            node.surgeFor().ifPresent(partner -> surgeMachinesFor.merge(partner, 1, Integer::sum));
        }

        private void forgetSurge(String partner) {
            surgeMachinesFor.computeIfPresent(partner, (p, n) -> n == 1 ? null : n - 1);
        }

        /** Where the named node is in {@link #ordered}, or (-(insertion point) - 1), as a binary search says. */
        private int position(String name) {
            int low = 0;
            int high = ordered.size() - 1;
            while (low <= high) {
                int mid = (low + high) >>> 1;
                int c = ordered.get(mid).name().compareTo(name);
                if (c < 0) {
                    low = mid + 1;
                } else if (c > 0) {
                    high = mid - 1;
                } else {
                    return mid;
                }
            }
            return -(low + 1);
        }

        private void remember(String name) {
            if (!changedBefore.containsKey(name)) {
                changedBefore.put(name, Optional.ofNullable(nodes.get(name)));
            }
        }

        private void record(String node, String step) {
            timeline.add(TimelineEvent.of(t(), node, step));
        }

        private double t() {
            return Duration.between(setup.start(), now).toMillis() / 1000.0;
        }

        /**
         * Peaks as the planner's own accounting gives them, after every plan's steps; the tests
         * recompute them from the timeline. The accounting is the one the next plan makes of the
         * same nodes at the same instant, so the pool is not judged twice.
         */
        private void measure(PoolAccount account) {
            int byFaults = 0;
            // The account's nodes are the pool's, all of them (the simulator terminates none): asked by index,
            // a node is looked at only when it is unavailable and counts.
            for (int i = 0; i < account.machines(); i++) {
                if (account.available(i)) {
                    if (!faultSlots.isEmpty()) {
                        faultSlots.remove(account.node(i).name());
                    }
                } else if (account.counted(i)) {
                    ObservedNode n = account.node(i);
                    if (!n.conditions().isEmpty() || faultSlots.contains(n.name())) {
                        byFaults++;
                    }
                }
            }
            int count = account.count();
            int s = account.limits().maxSurge();
            int u = account.limits().maxUnavailable();
            peakNodes = Math.max(peakNodes, account.machines());
            peakUnavailable = Math.max(peakUnavailable, account.unavailable());
            boolean replace = pool.spec().pool().updateStrategy() == UpdateStrategy.Replace;
            if (account.machines() > count + s && !replace) {
                violations.add("t=" + t() + ": " + account.machines() + " machines exist, more than count " + count + " + maxSurge " + s);
            }
            // Nodes that fell ill, and their replacements until Ready, are down because of a fault, not of the planner.
            if (account.unavailable() - byFaults > u && !replace) {
                violations.add("t=" + t() + ": " + account.unavailable() + " unavailable (" + byFaults + " by faults), more than maxUnavailable " + u);
            }
        }
    }

    private static double seconds(Duration d) {
        return d.toMillis() / 1000.0;
    }
}
