package dev.nightshift.sandbox.jobs;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.random.RandomGenerator;

/**
 * The faults injected into node updaters: per node (set by a test or the demo) or by the seeded rates of
 * {@link Behaviour}. A pod's fate is drawn once, when its container starts.
 */
final class Faults {

    /** What a pod's updater does. */
    enum Kind { SUCCEED, FAIL, NEVER_FINISH, NO_EFFECT }

    /** A pod's fate; {@code message} is the termination message of a failing one. */
    record Fate(Kind kind, String message) {
        static final Fate SUCCEED = new Fate(Kind.SUCCEED, "");
    }

    /** A fault set on one node; {@code pods} is how many more pods it hits, {@link Integer#MAX_VALUE} for all. */
    private record NodeFault(Fate fate, int pods) {
    }

    private final Map<String, NodeFault> byNode = new ConcurrentHashMap<>();
    private final RandomGenerator random;
    private final Behaviour behaviour;

    Faults(RandomGenerator random, Behaviour behaviour) {
        this.random = random;
        this.behaviour = behaviour;
    }

    void set(String node, Kind kind, String message, int pods) {
        Objects.requireNonNull(node, "node");
        if (pods < 1) {
            throw new IllegalArgumentException("a fault hits at least one pod, not " + pods);
        }
        byNode.put(node, new NodeFault(new Fate(kind, message), pods));
    }

    void clear(String node) {
        byNode.remove(node);
    }

    /** The fate of the next pod to start on {@code node}: the node's fault while it lasts, else a draw by the rates. */
    Fate next(String node) {
        NodeFault fault = byNode.computeIfPresent(node, (n, f) -> f.pods() == Integer.MAX_VALUE ? f
                : new NodeFault(f.fate(), f.pods() - 1));
        if (fault != null) {
            if (fault.pods() == 0) {
                byNode.remove(node, fault);
            }
            return fault.fate();
        }
        // Drawn only where a rate is set, so that a faultless double's random sequence (pod names) stays the same.
        if (behaviour.failureRate() > 0 && random.nextDouble() < behaviour.failureRate()) {
            return new Fate(Kind.FAIL, "injected failure (failureRate " + behaviour.failureRate() + "): the updater exited 1 on " + node);
        }
        if (behaviour.neverFinishRate() > 0 && random.nextDouble() < behaviour.neverFinishRate()) {
            return new Fate(Kind.NEVER_FINISH, "");
        }
        if (behaviour.noEffectRate() > 0 && random.nextDouble() < behaviour.noEffectRate()) {
            return new Fate(Kind.NO_EFFECT, "");
        }
        return Fate.SUCCEED;
    }
}
