package dev.nightshift.strategies;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import dev.nightshift.spec.model.DurationText;
import dev.nightshift.spec.model.IntOrPercent;
import dev.nightshift.spec.model.RolloutPolicy;
import dev.nightshift.strategies.model.HealthVerdict;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.model.RolloutProgress;
import dev.nightshift.strategies.model.RolloutProgress.Halt;

/**
 * A rollout in waves, with soak, health checks and {@code maxFailedMachines}: how many more nodes
 * may start now, and whether the pool has halted. Level-triggered like the rest of the planner:
 * which nodes moved and which are in flight is observed again each time; only what cannot be
 * observed (the pool's size when the rollout began, the wave, when its soak started, since when the
 * checks were unknown, the failed machines, the halt) is in the pool's record ({@link RolloutProgress}).
 *
 * <p>Wave k's cumulative target is its share of the outdated nodes at the rollout's start (counts
 * as written, at most that; percentages rounded up). A node has moved when it is no longer outdated;
 * a node started is outdated and in flight (draining, updating in place, or paired with a surge
 * machine). Starts are allowed while moved + started stays within the wave's target. When the wave's
 * nodes have all moved and nothing is in flight, its soak starts; the next wave starts only after
 * the soak, with the checks passing. maxSurge, maxUnavailable and the canary still bound each wave.
 *
 * <p>With the default policy (waves {@code [1, "100%"]}, no soak, no checks, no machine limit) it is
 * inactive: the canary of the update strategies is today's first wave, and nothing changes.
 */
final class Waves {

    /** The decision for one pool and one plan. */
    static final class Decision {

        private static final Decision INACTIVE = new Decision(Integer.MAX_VALUE, false, Optional.empty(), Optional.empty());

        private final int budget;
        private final boolean halted;
        private final Optional<RolloutProgress> next;
        private final Optional<Instant> wake;

        private Decision(int budget, boolean halted, Optional<RolloutProgress> next, Optional<Instant> wake) {
            this.budget = budget;
            this.halted = halted;
            this.next = next;
            this.wake = wake;
        }

        /**
         * The gate with the wave's budget: each node it lets through uses one start. Asked after the
         * other conditions, so that only a start they allow uses it up. Call once per plan.
         */
        StartGate limit(StartGate gate) {
            if (budget == Integer.MAX_VALUE) {
                return gate;
            }
            int[] left = {budget};
            return node -> {
                if (left[0] <= 0 || !gate.allows(node)) {
                    return false;
                }
                left[0]--;
                return true;
            };
        }

        /** The pool halted: nothing new starts, no machine is retired or refilled, work in flight finishes. */
        boolean halted() {
            return halted;
        }

        /** The record to keep; empty between rollouts and for pools rolled with the default policy. */
        Optional<RolloutProgress> next() {
            return next;
        }

        /** When a soak ends, or unknown checks turn into a failure. */
        Optional<Instant> wake() {
            return wake;
        }
    }

    private Waves() {
    }

    static boolean active(RolloutPolicy policy) {
        return !policy.waves().equals(RolloutPolicy.DEFAULT_WAVES) || !policy.soak().isZero() || !policy.healthChecks().isEmpty()
                || policy.maxFailedMachines() > 0;
    }

    static Decision judge(PoolView view, PoolStatus status, Optional<HealthVerdict> given, Instant now) {
        RolloutPolicy policy = view.desired().spec().rollout();
        if (!active(policy)) {
            return Decision.INACTIVE;
        }
        String target = view.desired().rollHash().toString();
        int[] outdatedIndices = view.outdatedIndices();
        int outdated = outdatedIndices.length;
        if (outdated == 0 && view.updatesInFlight() == 0) {
            // Every node at the target and available: the rollout is over, and so is any halt of it.
            return new Decision(Integer.MAX_VALUE, false, Optional.empty(), Optional.empty());
        }
        int availableAtTarget = availableAtTarget(view);
        RolloutProgress p = status.rollout().filter(r -> r.target().equals(target))
                .orElseGet(() -> new RolloutProgress(target, outdated, 0, Optional.empty(), Optional.empty(), Set.of(),
                        availableAtTarget, Optional.empty()));
        // The pool grew during the rollout: the shares are of the larger number.
        int atStart = Math.max(p.outdatedAtStart(), outdated);

        Optional<Halt> recorded = p.halt();
        Optional<Halt> halt = recorded.filter(h -> status.resumedAt().filter(r -> !r.isBefore(h.at())).isEmpty());
        boolean resumed = recorded.isPresent() && halt.isEmpty();
        Optional<Instant> waveAvailableAt = resumed ? p.waveAvailableAt().map(t -> now) : p.waveAvailableAt();
        Optional<Instant> unknownSince = resumed ? Optional.empty() : p.unknownSince();

        Set<String> failures = new LinkedHashSet<>(resumed || availableAtTarget > p.availableAtTarget() ? Set.of() : p.failedMachines());
        if (policy.maxFailedMachines() > 0) {
            failures.addAll(failedMachines(view));
        }

        List<Integer> targets = targets(policy.waves(), atStart);
        int last = targets.size() - 1;
        int wave = Math.min(p.wave(), last);
        int moved = Math.max(0, atStart - outdated);
        int started = 0;
        for (int i : outdatedIndices) {
            if (view.inFlight(i) || view.partnered(i)) {
                started++;
            }
        }
        if (waveAvailableAt.isEmpty() && moved >= targets.get(wave) && view.updatesInFlight() == 0) {
            waveAvailableAt = Optional.of(now);
        }

        HealthVerdict verdict = policy.healthChecks().isEmpty() ? HealthVerdict.PASSING
                : given.orElse(new HealthVerdict.Unknown("", "no verdict for the pool's checks"));
        Duration soak = policy.soak();
        Optional<Instant> wake = Optional.empty();
        if (halt.isEmpty()) {
            if (verdict instanceof HealthVerdict.Failing f) {
                halt = Optional.of(new Halt(f.check(), f.value(), f.threshold(), wave + 1, now));
            } else if (verdict instanceof HealthVerdict.Unknown u) {
                Instant since = unknownSince.orElse(now);
                unknownSince = Optional.of(since);
                if (!now.isBefore(since.plus(soak))) {
                    halt = Optional.of(new Halt(u.check(), "unknown", u.why() + " for " + DurationText.format(soak), wave + 1, now));
                } else {
                    wake = Optional.of(since.plus(soak));
                }
            } else {
                unknownSince = Optional.empty();
            }
        }
        if (halt.isEmpty() && policy.maxFailedMachines() > 0 && failures.size() >= policy.maxFailedMachines()) {
            halt = Optional.of(new Halt(Halt.MAX_FAILED_MACHINES, Integer.toString(failures.size()),
                    ">= " + policy.maxFailedMachines() + " in a row", wave + 1, now));
        }
        boolean passing = verdict instanceof HealthVerdict.Passing;
        if (halt.isEmpty() && passing && wave < last && waveAvailableAt.isPresent()) {
            Instant soaked = waveAvailableAt.get().plus(soak);
            if (!now.isBefore(soaked)) {
                wave++;
                waveAvailableAt = Optional.empty();
            } else {
                wake = Optional.of(soaked);
            }
        }

        int budget;
        if (halt.isPresent() || !passing || (wave < last && waveAvailableAt.isPresent())) {
            budget = 0;
        } else {
            budget = Math.max(0, targets.get(wave) - moved - started);
        }
        if (policy.maxFailedMachines() > 0 && !failures.isEmpty()) {
            // After a failure, no more machines come up at once than the limit has room for.
            budget = Math.min(budget, Math.max(0, policy.maxFailedMachines() - failures.size() - comingUp(view)));
        }
        RolloutProgress next = new RolloutProgress(target, atStart, wave, waveAvailableAt, unknownSince, failures,
                availableAtTarget, halt);
        return new Decision(budget, halt.isPresent(), Optional.of(next), wake);
    }

    /** Each wave's cumulative number of nodes: rising, at most {@code total}, the last one all of them. */
    static List<Integer> targets(List<IntOrPercent> waves, int total) {
        List<Integer> targets = new ArrayList<>();
        int previous = 0;
        for (IntOrPercent w : waves) {
            int t = Math.min(total, w.resolve(total, true));
            previous = Math.max(previous, t);
            targets.add(previous);
        }
        targets.set(targets.size() - 1, total);
        return targets;
    }

    private static int availableAtTarget(PoolView view) {
        int n = 0;
        for (ObservedNode node : view.nodes()) {
            if (node.rollHash().isPresent() && view.current(node) && view.available(node)) {
                n++;
            }
        }
        return n;
    }

    /** Machines at the target that did not come up within creationTimeout, and failed in-place updates. */
    private static Set<String> failedMachines(PoolView view) {
        Set<String> failed = new LinkedHashSet<>();
        Duration timeout = view.spec().machineControllerManager().creationTimeout();
        for (int i : view.pendingCreation()) {
            ObservedNode node = view.nodes().get(i);
            boolean pending = view.bastion() ? !node.ready() : !node.registered();
            if (pending && node.createdAt().isPresent() && !view.outdated(node)
                    && !node.createdAt().get().plus(timeout).isAfter(view.now())) {
                failed.add(node.name());
            }
        }
        for (int i : view.outdatedIndices()) {
            if (view.inPlaceFailed(i)) {
                failed.add(view.nodes().get(i).name());
            }
        }
        return failed;
    }

    /** New machines at the target not registered yet (for bastions: not Ready yet). */
    private static int comingUp(PoolView view) {
        int n = 0;
        for (int i : view.pendingCreation()) {
            ObservedNode node = view.nodes().get(i);
            if (!view.outdated(node) && (view.bastion() ? !node.ready() : !node.registered())) {
                n++;
            }
        }
        return n;
    }
}
