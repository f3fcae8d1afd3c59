package dev.nightshift.agent.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.strategies.guard.DisruptionGuard;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;

/**
 * The pools' promises in the guard stage: each pass gets a {@link DisruptionGuard} made from what it observed. A
 * disruption this agent started is taken as such until the observation shows it (the cache may lag the write that
 * started it by a moment, and the next pass must not take the node for available meanwhile), for at most
 * {@link #REMEMBERED}.
 */
final class DisruptionStage implements StepGuard.PerPass {

    /** Longer than any lag of the informers' caches; short enough that a kubelet restart done unseen is forgotten. */
    static final Duration REMEMBERED = Duration.ofSeconds(60);

    /** Nodes this agent disrupted, and when, until the observation shows it. */
    private final Map<String, Instant> started = new HashMap<>();

    @Override
    public StepGuard forPass(DesiredCluster desired, ObservedCluster observed, Instant now) {
        Map<String, ObservedNode> byName = new HashMap<>();
        observed.nodes().forEach(n -> byName.put(n.name(), n));
        started.entrySet().removeIf(e -> e.getValue().plus(REMEMBERED).isBefore(now)
                || Optional.ofNullable(byName.get(e.getKey())).map(n -> !DisruptionGuard.available(n)).orElse(true));
        DisruptionGuard guard = new DisruptionGuard(desired, observed, Map.copyOf(started).keySet());
        return step -> {
            Optional<DisruptionGuard.Refusal> refusal = guard.admit(step);
            if (refusal.isPresent()) {
                DisruptionGuard.Reason reason = refusal.get().reason();
                // Room in the fleet (the cluster's budget, a zone's repairs) is waited for, as a turn is: not a refusal.
                return reason.fleetWait() ? StepGuard.Verdict.await(reason.label(), refusal.get().detail())
                        : StepGuard.Verdict.refuse(reason.label(), refusal.get().detail());
            }
            if (DisruptionGuard.disruptive(step) && !(step instanceof Step.CreateMachine) && !(step instanceof Step.RestartKubelet)) {
                started.putIfAbsent(step.target(), now);
            }
            return StepGuard.Verdict.ADMIT;
        };
    }

    /** A new term as leader: another replica may have acted; what it started is observed, not remembered. */
    @Override
    public void forgetTerm() {
        started.clear();
    }
}
