package dev.nightshift.strategies.guard;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.nightshift.strategies.PoolLimits;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.NodeCondition;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;

/**
 * The pools' promises, checked before each disruptive step against what is observed, independently of the planner:
 * whatever the planner asks, a pool never has more than {@code count + maxSurge} machines and never fewer than
 * {@code count - maxUnavailable} available nodes. Planner bugs then cost time, never capacity.
 *
 * <p>Its own accounting, on purpose not the planner's: <b>available</b> is a Ready node that is not being drained,
 * updated, restarted or deleted, <em>whoever cordoned it</em> (a node an operator cordoned still serves its pods, so
 * draining it is a disruption like any other); a node that is not Ready is not available, so replacing it costs no
 * budget (its pods are gone already, as a Deployment replaces unhealthy replicas first). <b>count</b> is the machines
 * that are not being deleted, a surge machine not counted while the old machine it stands in for exists. The limits
 * are the spec's, resolved against that count ({@link PoolLimits}). Where Nightshift refills pools
 * ({@link DesiredCluster#refillsPools()}), count is at least the pool's {@code minimum}.
 *
 * <p>One guard per pass: each admitted step's effect is counted, so the pass's later steps are judged against the pool
 * as the earlier ones leave it. Not thread-safe.
 */
public final class DisruptionGuard {

    /** Why a step was refused: the label of {@code nightshift_steps_refused_total}. */
    public enum Reason {
        /** It would leave fewer than count - maxUnavailable available nodes. */
        UNAVAILABLE("unavailable"),
        /** It would make more than count + maxSurge machines. */
        SURGE("surge");

        private final String label;

        Reason(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** A refused step, with the numbers that refused it. */
    public record Refusal(Step step, Reason reason, String detail) {

        public String pool() {
            return step.pool();
        }
    }

    private final Map<String, PoolBudget> pools = new HashMap<>();

    /**
     * @param alsoUnavailable nodes to take as unavailable whatever the observation says: disruptions this agent
     *                        started that the observation may not show yet
     */
    public DisruptionGuard(DesiredCluster desired, ObservedCluster observed, Set<String> alsoUnavailable) {
        for (DesiredPool pool : desired.pools()) {
            pools.put(pool.name(), new PoolBudget(pool, observed.nodesOf(pool.name()), alsoUnavailable, desired.refillsPools()));
        }
    }

    /** The refusal of {@code step}, or empty: then it is admitted and its effect counted for the steps after it. */
    public Optional<Refusal> admit(Step step) {
        PoolBudget budget = pools.get(step.pool());
        if (budget == null) {
            return Optional.empty();
        }
        return budget.admit(step);
    }

    /**
     * Available: Ready, healthy, and no disruption of ours under way; a cordon alone takes nothing away. A node with a
     * problem condition (DiskPressure, a node-problem detector's KernelDeadlock…) is failing capacity already, as the
     * NotReady one is: repairing it costs no budget.
     */
    public static boolean available(ObservedNode n) {
        return !n.terminating() && n.registered() && n.ready() && healthy(n) && n.drainStartedAt().isEmpty() && !n.drained()
                && n.inPlaceStartedAt().isEmpty();
    }

    /** Ready True, and no other condition True: every condition but Ready names a problem when True. */
    private static boolean healthy(ObservedNode n) {
        return n.conditions().stream().allMatch(c -> c.type().equals(NodeCondition.READY) ? c.isTrue() : !c.isTrue());
    }

    /** Whether {@code step} can take capacity away or add a machine; a kubelet restart is bounded apart. */
    public static boolean disruptive(Step step) {
        return step instanceof Step.Drain || step instanceof Step.Repair || step instanceof Step.DeleteMachine
                || step instanceof Step.UpdateInPlace || step instanceof Step.RestartKubelet || step instanceof Step.CreateMachine;
    }

    /** One pool's machines and available nodes, as observed and as this pass's admitted steps leave them. */
    private static final class PoolBudget {

        private final String pool;
        private final int count;
        private final PoolLimits limits;
        private int machines;
        private final Set<String> available = new HashSet<>();
        /** Nodes whose kubelet restart was asked for and not answered yet (the node's kubelet hash not the desired one). */
        private final Set<String> restarting = new HashSet<>();

        PoolBudget(DesiredPool desired, List<ObservedNode> nodes, Set<String> alsoUnavailable, boolean refills) {
            this.pool = desired.name();
            Set<String> live = new HashSet<>();
            nodes.stream().filter(n -> !n.terminating()).forEach(n -> live.add(n.name()));
            int counted = 0;
            for (ObservedNode n : nodes) {
                if (n.terminating()) {
                    continue;
                }
                machines++;
                if (n.surgeFor().isEmpty() || !live.contains(n.surgeFor().get())) {
                    counted++;
                }
                if (n.kubeletRestartAt().isPresent() && !n.kubeletHash().equals(java.util.Optional.of(desired.kubeletHash()))) {
                    restarting.add(n.name());
                }
                if (available(n) && !alsoUnavailable.contains(n.name())) {
                    available.add(n.name());
                }
            }
            // A pool Nightshift refills is promised its minimum: machines it lost behind Nightshift's back are capacity
            // owed, not a smaller pool (the floor stays where the minimum puts it; the refill fits under the ceiling).
            this.count = refills ? Math.max(counted, desired.spec().pool().minimum()) : counted;
            this.limits = PoolLimits.of(desired.spec(), count);
        }

        Optional<Refusal> admit(Step step) {
            if (step instanceof Step.RestartKubelet) {
                // No drain, the pods keep running: at most max(1, maxUnavailable) restarts at a time, as the spec promises.
                // Asked again of a node whose restart is under way (unanswered past healthTimeout): costs nothing more.
                int allowed = Math.max(1, limits.maxUnavailable());
                if (!restarting.contains(step.target()) && restarting.size() + 1 > allowed) {
                    return Optional.of(new Refusal(step, Reason.UNAVAILABLE, pool + " has " + restarting.size()
                            + " kubelet restarts under way and allows " + allowed + " at a time"));
                }
                restarting.add(step.target());
                return Optional.empty();
            }
            if (step instanceof Step.CreateMachine) {
                if (machines + 1 > count + limits.maxSurge()) {
                    return Optional.of(new Refusal(step, Reason.SURGE, pool + " has " + machines + " machines for a count of " + count
                            + " and maxSurge " + limits.maxSurge() + ": one more would make " + (machines + 1) + " > "
                            + (count + limits.maxSurge())));
                }
                machines++;
                return Optional.empty();
            }
            if (!disruptive(step) || !available.contains(step.target())) {
                // A node already unavailable (draining, drained, not Ready, gone) costs nothing more.
                if (step instanceof Step.DeleteMachine d && !d.replace()) {
                    machines--;
                }
                return Optional.empty();
            }
            int after = available.size() - 1;
            int floor = count - limits.maxUnavailable();
            if (after < floor) {
                return Optional.of(new Refusal(step, Reason.UNAVAILABLE, pool + " has " + available.size() + " available nodes for a count of "
                        + count + " and maxUnavailable " + limits.maxUnavailable() + ": disrupting " + step.target() + " would leave "
                        + after + " < " + floor));
            }
            available.remove(step.target());
            if (step instanceof Step.DeleteMachine d && !d.replace()) {
                machines--;
            }
            return Optional.empty();
        }
    }
}
