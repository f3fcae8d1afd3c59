package dev.nightshift.strategies.sim;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.TreeMap;

import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.Step;

/**
 * Test helper: drives the real planner against an in-memory pool on a virtual clock, like the
 * simulator does (its idea, none of its code), but lets the desired state change at a chosen plan.
 * No faults. Steps carry the hashes they apply: a replacement or an in-place update runs the target
 * of the plan that started it, not whatever the target is when it finishes.
 *
 * <p>The initial nodes run {@code running}'s hashes and have been Ready for an hour: a pool in
 * service, available from the first plan on.
 */
final class PlannerDriver {

    static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final int MAX_PLANS_PER_INSTANT = 10_000;

    private record Ev(Instant at, long seq, String kind, String node, Instant startedAt, StampedHash roll,
                      StampedHash kubelet) implements Comparable<Ev> {
        @Override
        public int compareTo(Ev o) {
            int c = at.compareTo(o.at);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    /** What a drive did: converged or why not, the timeline, and how many plans it took. */
    record Outcome(boolean converged, String reason, List<TimelineEvent> timeline, int plans, Map<String, ObservedNode> nodes) {
    }

    private final RolloutPlanner planner = new RolloutPlanner();
    private final String poolName;
    private final Duration create;
    private final Duration drain;
    private final Map<String, ObservedNode> nodes = new TreeMap<>();
    private final PriorityQueue<Ev> events = new PriorityQueue<>();
    private final List<TimelineEvent> timeline = new ArrayList<>();
    private DesiredCluster desired;
    private DesiredCluster next;
    private int switchAt = Integer.MAX_VALUE;
    private String switchAfterStep;
    private PoolStatus status = PoolStatus.NEW;
    private Instant now = START;
    private long seq;
    private int created;
    private int plans;
    private Plan lastPlan;

    PlannerDriver(DesiredCluster running, DesiredCluster target, String pool, int n, Duration create, Duration drain) {
        this.poolName = pool;
        this.create = create;
        this.drain = drain;
        this.desired = target;
        DesiredPool old = poolOf(running);
        for (int i = 1; i <= n; i++) {
            String name = pool + "-" + i;
            nodes.put(name, ObservedNode.ready(name, pool, START.minus(Duration.ofHours(1))).toBuilder()
                    .rollHash(old.rollHash()).kubeletHash(old.kubeletHash())
                    .managedLabels(old.labels()).managedTaints(old.spec().pool().taints())
                    .managedAnnotations(old.annotations()).build());
        }
    }

    /** Once {@code step} first appears in the timeline, the next plan has the target {@code then}. */
    PlannerDriver switchAfterFirst(String step, DesiredCluster then) {
        this.next = then;
        this.switchAfterStep = step;
        return this;
    }

    /** From the {@code plan}-th plan on (1-based), the target is {@code then}. */
    PlannerDriver switchTo(DesiredCluster then, int plan) {
        this.next = then;
        this.switchAt = plan;
        return this;
    }

    private DesiredPool poolOf(DesiredCluster d) {
        return d.pools().stream().filter(p -> p.name().equals(poolName)).findFirst().orElseThrow();
    }

    Outcome run(Duration horizon) {
        Instant end = START.plus(horizon);
        while (true) {
            settle();
            if (converged()) {
                return new Outcome(true, "", List.copyOf(timeline), plans, Map.copyOf(nodes));
            }
            Optional<Instant> at = nextTime();
            if (at.isEmpty() && next != null) {
                // Nothing more would happen before the switch: the target changes now.
                switchAt = plans + 1;
                continue;
            }
            if (at.isEmpty() || at.get().isAfter(end)) {
                String why = at.isEmpty() ? "nothing left to wait for" : "not finished after " + horizon;
                return new Outcome(false, why + " at t=" + t() + ": phase " + lastPlan.report(poolName).phase()
                        + ", failed " + lastPlan.report(poolName).failed() + ", nodes " + describeNodes(),
                        List.copyOf(timeline), plans, Map.copyOf(nodes));
            }
            now = at.get();
            while (!events.isEmpty() && !events.peek().at().isAfter(now)) {
                handle(events.poll());
            }
        }
    }

    private void settle() {
        for (int i = 0; i < MAX_PLANS_PER_INSTANT; i++) {
            boolean switched = false;
            boolean stepSeen = switchAfterStep != null && timeline.stream().anyMatch(e -> e.step().equals(switchAfterStep));
            if (next != null && (plans + 1 >= switchAt || stepSeen)) {
                desired = next;
                next = null;
                switched = true;
            }
            lastPlan = planner.plan(desired, new ObservedCluster(List.copyOf(nodes.values()), true, MaintenanceState.OPEN,
                    Map.of(poolName, status)), now);
            plans++;
            Map<String, ObservedNode> before = new TreeMap<>(nodes);
            PoolStatus statusBefore = status;
            status = lastPlan.report(poolName).status();
            for (Step step : lastPlan.steps()) {
                apply(step);
            }
            if (!switched && before.equals(nodes) && statusBefore.equals(status)) {
                return;
            }
        }
        throw new IllegalStateException("the planner did not settle at t=" + t());
    }

    private boolean converged() {
        if (next != null) {
            return false;
        }
        DesiredPool pool = poolOf(desired);
        return lastPlan.steps().isEmpty() && nodes.values().stream().allMatch(n -> n.registered() && n.ready()
                && n.rollHash().equals(Optional.of(pool.rollHash())) && n.kubeletHash().equals(Optional.of(pool.kubeletHash()))
                && !n.cordoned() && !n.draining() && !n.updatingInPlace() && !n.needsUpdate());
    }

    /** Each node: its target (by image version) or "other", and what keeps it from service. */
    private String describeNodes() {
        StringBuilder b = new StringBuilder();
        for (ObservedNode n : nodes.values()) {
            b.append(n.name()).append('{').append(n.rollHash().map(h -> h.equals(poolOf(desired).rollHash()) ? "desired" : "outdated")
                    .orElse("unstamped"));
            if (!n.ready()) {
                b.append(", not Ready");
            }
            if (n.cordoned()) {
                b.append(", cordoned");
            }
            if (n.draining()) {
                b.append(", draining");
            }
            if (n.updatingInPlace()) {
                b.append(", in place since t=").append(Duration.between(START, n.inPlaceStartedAt().get()).toSeconds());
            }
            if (n.inPlaceFailed()) {
                b.append(", failed");
            }
            b.append("} ");
        }
        return b.toString().trim();
    }

    private Optional<Instant> nextTime() {
        Optional<Instant> event = Optional.ofNullable(events.peek()).map(Ev::at);
        Optional<Instant> wake = lastPlan.wakeAt();
        if (event.isPresent() && wake.isPresent()) {
            return Optional.of(event.get().isBefore(wake.get()) ? event.get() : wake.get());
        }
        return event.or(() -> wake);
    }

    private void apply(Step step) {
        String name = step.target();
        ObservedNode node = nodes.get(name);
        if (step instanceof Step.Validate) {
            boolean healthy = nodes.values().stream().filter(ObservedNode::registered).allMatch(ObservedNode::ready);
            status = status.withValidationStreak(healthy ? status.validationStreak() + 1 : 0);
            return;
        }
        if (step instanceof Step.CreateMachine c) {
            boolean partnerHasOne = nodes.values().stream().anyMatch(n -> n.surgeFor().equals(Optional.of(c.surgeFor())));
            if (!partnerHasOne) {
                create(c.surgeFor(), c.rollHash(), c.kubeletHash());
            }
            return;
        }
        if (node == null) {
            return;
        }
        if (step instanceof Step.Stamp s) {
            put(node.toBuilder().rollHash(s.rollHash()).kubeletHash(s.kubeletHash()).build());
        } else if (step instanceof Step.Taint) {
            if (!node.updateTainted()) {
                put(node.toBuilder().updateTainted(true).build());
                record(name, "TAINT");
            }
        } else if (step instanceof Step.Untaint) {
            if (node.updateTainted()) {
                put(node.toBuilder().updateTainted(false).build());
                record(name, "UNTAINT");
            }
        } else if (step instanceof Step.Cordon) {
            if (!node.cordoned()) {
                put(node.toBuilder().cordoned(true).build());
                record(name, "CORDON");
            }
        } else if (step instanceof Step.Uncordon) {
            if (node.cordoned()) {
                record(name, "UNCORDON");
            }
            put(node.toBuilder().cordoned(false).drainStartedAt(null).drained(false).inPlaceStartedAt(null)
                    .kubeletRestartAt(null).blockedEvictions(List.of()).build());
        } else if (step instanceof Step.Drain) {
            if (!node.draining()) {
                put(node.toBuilder().drainStartedAt(now).build());
                record(name, "DRAIN");
                schedule(drain, "DRAINED", name, now, null, null);
            }
        } else if (step instanceof Step.ForceDeletePod) {
            put(node.toBuilder().blockedEvictions(List.of()).build());
        } else if (step instanceof Step.DeleteMachine d) {
            nodes.remove(name);
            record(name, "DELETE");
            status = status.withLastTermination(now).withValidationStreak(0);
            if (d.replace()) {
                create(null, d.rollHash(), d.kubeletHash());
            }
        } else if (step instanceof Step.UpdateInPlace u) {
            // As Step.UpdateInPlace documents: a node that finished an update (Ready again) may be asked for another.
            if (!node.updatingInPlace() || node.ready()) {
                put(node.toBuilder().inPlaceStartedAt(now).readySince(null).build());
                record(name, "UPDATE_IN_PLACE");
                schedule(create, "IN_PLACE_DONE", name, now, u.rollHash(), u.kubeletHash());
            }
        } else if (step instanceof Step.RestartKubelet r) {
            if (node.kubeletRestartAt().equals(r.unansweredSince())) {
                put(node.toBuilder().kubeletRestartAt(now).build());
                record(name, "RESTART_KUBELET");
                schedule(Duration.ofSeconds(10), "KUBELET_DONE", name, now, null, r.kubeletHash());
            }
        } else if (step instanceof Step.Propagate p) {
            put(node.toBuilder().managedLabels(p.labels()).managedTaints(p.taints()).managedAnnotations(p.annotations()).build());
            record(name, "PROPAGATE");
        } else if (step instanceof Step.LabelCandidate) {
            if (!node.candidateForUpdate()) {
                put(node.toBuilder().candidateForUpdate(true).selectedForUpdate(true).build());
                record(name, "LABEL_CANDIDATE");
            }
        }
    }

    private void create(String surgeFor, StampedHash roll, StampedHash kubelet) {
        String name = poolName + "-new-" + (++created);
        nodes.put(name, ObservedNode.ready(name, poolName, now).toBuilder().registered(false).readySince(null).createdAt(now)
                .rollHash(roll).kubeletHash(kubelet).surgeFor(surgeFor).build());
        timeline.add(new TimelineEvent(t(), name, "CREATE", Optional.ofNullable(surgeFor)));
        schedule(create, "READY", name, now, null, null);
    }

    private void handle(Ev e) {
        ObservedNode node = nodes.get(e.node());
        if (node == null) {
            return;
        }
        switch (e.kind()) {
            case "READY" -> {
                put(node.toBuilder().registered(true).readySince(now).build());
                record(e.node(), "READY");
            }
            case "DRAINED" -> {
                if (node.drainStartedAt().equals(Optional.of(e.startedAt()))) {
                    put(node.toBuilder().drained(true).build());
                }
            }
            case "IN_PLACE_DONE" -> {
                if (node.inPlaceStartedAt().equals(Optional.of(e.startedAt()))) {
                    put(node.toBuilder().rollHash(e.roll()).kubeletHash(e.kubelet()).needsUpdate(false).readySince(now).build());
                    record(e.node(), "READY");
                }
            }
            case "KUBELET_DONE" -> {
                if (node.kubeletRestartAt().equals(Optional.of(e.startedAt()))) {
                    put(node.toBuilder().kubeletHash(e.kubelet()).build());
                }
            }
            default -> throw new IllegalStateException(e.kind());
        }
    }

    private void schedule(Duration after, String kind, String node, Instant startedAt, StampedHash roll, StampedHash kubelet) {
        events.add(new Ev(now.plus(after), seq++, kind, node, startedAt, roll, kubelet));
    }

    private void put(ObservedNode n) {
        nodes.put(n.name(), n);
    }

    private void record(String node, String step) {
        timeline.add(TimelineEvent.of(t(), node, step));
    }

    private double t() {
        return Duration.between(START, now).toMillis() / 1000.0;
    }
}
