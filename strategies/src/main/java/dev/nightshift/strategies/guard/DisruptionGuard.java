package dev.nightshift.strategies.guard;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.nightshift.spec.model.FleetConcurrency;
import dev.nightshift.spec.model.IntOrPercent;
import dev.nightshift.strategies.PoolLimits;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.NodeCondition;
import dev.nightshift.strategies.model.NodesByPool;
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
 * <p>The cluster's budget ({@code rollout.concurrency.maxUnavailableNodes}, {@link ClusterBudget}) is checked by the
 * same guard, after the pool's: a step that would take one more available node away while the cluster already has as
 * many unavailable nodes as the budget allows waits, and repairs share that budget and are limited per zone.
 *
 * <p>One guard per pass: each admitted step's effect is counted, so the pass's later steps are judged against the pool
 * and the cluster as the earlier ones leave them. Not thread-safe.
 */
public final class DisruptionGuard {

    /** Why a step was refused: the label of {@code nightshift_steps_refused_total}. */
    public enum Reason {
        /** It would leave fewer than count - maxUnavailable available nodes. */
        UNAVAILABLE("unavailable"),
        /** It would make more than count + maxSurge machines. */
        SURGE("surge"),
        /** It would take the cluster past {@code rollout.concurrency.maxUnavailableNodes}: it waits, as a pool's turn does. */
        CLUSTER_BUDGET("cluster-budget"),
        /** A repair that would take its zone past its share of repairs at once: it waits. */
        ZONE_REPAIRS("zone-repairs");

        private final String label;

        Reason(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        /** A wait for room in the fleet, not a planner asking for what a pool's promises forbid. */
        public boolean fleetWait() {
            return this == CLUSTER_BUDGET || this == ZONE_REPAIRS;
        }
    }

    /** A refused step, with the numbers that refused it. */
    public record Refusal(Step step, Reason reason, String detail) {

        public String pool() {
            return step.pool();
        }
    }

    private final Map<String, PoolBudget> pools;
    private final ClusterBudget cluster;

    /**
     * @param alsoUnavailable nodes to take as unavailable whatever the observation says: disruptions this agent
     *                        started that the observation may not show yet
     */
    public DisruptionGuard(DesiredCluster desired, ObservedCluster observed, Set<String> alsoUnavailable) {
        this(desired, observed, alsoUnavailable, null);
    }

    /**
     * {@link #DisruptionGuard(DesiredCluster, ObservedCluster, Set)} for a caller that makes guards again and again:
     * the pools observed as the same node objects as in the previous guard made with {@code memo} are not counted
     * again. The same guard as without it.
     */
    public DisruptionGuard(DesiredCluster desired, ObservedCluster observed, Set<String> alsoUnavailable, GuardMemo memo) {
        // The nodes by pool in one walk: a fleet has hundreds of pools and thousands of nodes.
        List<DesiredPool> desiredPools = desired.pools();
        List<List<ObservedNode>> byPool = memo == null ? NodesByPool.of(desiredPools, observed.nodes())
                : memo.nodesByPool().group(desiredPools, observed.nodes());
        List<PoolCount> counts = new ArrayList<>(desiredPools.size());
        pools = new HashMap<>(desiredPools.size() * 2);
        int managed = 0;
        int unavailable = 0;
        for (int i = 0; i < desiredPools.size(); i++) {
            DesiredPool pool = desiredPools.get(i);
            List<ObservedNode> nodes = byPool.get(i);
            PoolCount count = memo == null ? PoolCount.of(pool, nodes, alsoUnavailable, desired.refillsPools(), observed.zones())
                    : memo.count(pool, nodes, alsoUnavailable, desired.refillsPools(), observed.zones());
            counts.add(count);
            pools.put(pool.name(), new PoolBudget(pool, nodes, alsoUnavailable, count));
            managed += count.count();
            unavailable += Math.max(0, count.count() - count.available());
        }
        cluster = new ClusterBudget(desired.cluster().name(), desired.cluster().concurrency(), managed, unavailable, counts);
    }

    /** The cluster-wide budget this guard judges by, resolved; {@link Integer#MAX_VALUE} without one. */
    public int clusterMaxUnavailable() {
        return cluster.max;
    }

    /** The most repairs at once in {@code zone} this guard allows now ({@link ClusterBudget#zoneLimit}). */
    public int zoneRepairLimit(String zone) {
        return cluster.zoneLimit(zone);
    }

    /** The refusal of {@code step}, or empty: then it is admitted and its effect counted for the steps after it. */
    public Optional<Refusal> admit(Step step) {
        PoolBudget budget = pools.get(step.pool());
        if (budget == null) {
            return Optional.empty();
        }
        boolean nodeAvailable = budget.available().contains(step.target());
        Optional<Refusal> refusal = budget.check(step);
        if (refusal.isEmpty()) {
            refusal = cluster.check(step, nodeAvailable);
        }
        if (refusal.isEmpty()) {
            cluster.apply(step, nodeAvailable);
            budget.apply(step);
        }
        return refusal;
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
    static boolean healthy(ObservedNode n) {
        for (NodeCondition c : n.conditions()) {
            if (c.type().equals(NodeCondition.READY) ? !c.isTrue() : c.isTrue()) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code step} can take capacity away or add a machine; a kubelet restart is bounded apart. */
    public static boolean disruptive(Step step) {
        return step instanceof Step.Drain || step instanceof Step.Repair || step instanceof Step.DeleteMachine
                || step instanceof Step.UpdateInPlace || step instanceof Step.RestartKubelet || step instanceof Step.CreateMachine;
    }

    /**
     * One pool's machines and available nodes, as observed and as this pass's admitted steps leave them. Its count and
     * available nodes are counted when the guard is made (the cluster's budget needs them); which nodes are available
     * or restarting is looked at only for a pool a step is asked for (a fleet has hundreds of pools, few with steps).
     */
    private static final class PoolBudget {

        private final String pool;
        private final DesiredPool desired;
        private final List<ObservedNode> nodes;
        private final Set<String> alsoUnavailable;
        private final int count;
        private final PoolLimits limits;
        /** Available nodes as observed, before any step of this pass. */
        private final int availableAtStart;
        private int machines;
        private Set<String> available;
        /** Nodes whose kubelet restart was asked for and not answered yet (the node's kubelet hash not the desired one). */
        private Set<String> restarting;

        PoolBudget(DesiredPool desired, List<ObservedNode> nodes, Set<String> alsoUnavailable, PoolCount counted) {
            this.pool = desired.name();
            this.desired = desired;
            this.nodes = nodes;
            this.alsoUnavailable = alsoUnavailable;
            this.count = counted.count();
            this.limits = counted.limits();
            this.machines = counted.machines();
            this.availableAtStart = counted.available();
        }

        /** The available nodes by name, as this pass leaves them. */
        Set<String> available() {
            if (available == null) {
                available = new HashSet<>();
                restarting = new HashSet<>();
                for (ObservedNode n : nodes) {
                    if (n.terminating()) {
                        continue;
                    }
                    if (n.kubeletRestartAt().isPresent() && !n.kubeletHash().equals(java.util.Optional.of(desired.kubeletHash()))) {
                        restarting.add(n.name());
                    }
                    if (DisruptionGuard.available(n) && !alsoUnavailable.contains(n.name())) {
                        available.add(n.name());
                    }
                }
            }
            return available;
        }

        Set<String> restarting() {
            available();
            return restarting;
        }

        /** Whether {@code step} takes an available node of the pool away (a kubelet restart and a new machine do not). */
        boolean takesAvailable(Step step) {
            return disruptive(step) && !(step instanceof Step.RestartKubelet) && !(step instanceof Step.CreateMachine)
                    && available().contains(step.target());
        }

        /** The refusal of {@code step} by the pool's promises, counting nothing. */
        Optional<Refusal> check(Step step) {
            if (step instanceof Step.RestartKubelet) {
                // No drain, the pods keep running: at most max(1, maxUnavailable) restarts at a time, as the spec promises.
                // Asked again of a node whose restart is under way (unanswered past healthTimeout): costs nothing more.
                int allowed = Math.max(1, limits.maxUnavailable());
                if (!restarting().contains(step.target()) && restarting().size() + 1 > allowed) {
                    return Optional.of(new Refusal(step, Reason.UNAVAILABLE, pool + " has " + restarting().size()
                            + " kubelet restarts under way and allows " + allowed + " at a time"));
                }
                return Optional.empty();
            }
            if (step instanceof Step.CreateMachine) {
                if (machines + 1 > count + limits.maxSurge()) {
                    return Optional.of(new Refusal(step, Reason.SURGE, pool + " has " + machines + " machines for a count of " + count
                            + " and maxSurge " + limits.maxSurge() + ": one more would make " + (machines + 1) + " > "
                            + (count + limits.maxSurge())));
                }
                return Optional.empty();
            }
            if (!takesAvailable(step)) {
                // A node already unavailable (draining, drained, not Ready, gone) costs nothing more.
                return Optional.empty();
            }
            int after = available().size() - 1;
            int floor = count - limits.maxUnavailable();
            if (after < floor) {
                return Optional.of(new Refusal(step, Reason.UNAVAILABLE, pool + " has " + available().size() + " available nodes for a count of "
                        + count + " and maxUnavailable " + limits.maxUnavailable() + ": disrupting " + step.target() + " would leave "
                        + after + " < " + floor));
            }
            return Optional.empty();
        }

        /** Counts an admitted step's effect, for the steps after it. */
        void apply(Step step) {
            if (step instanceof Step.RestartKubelet) {
                restarting().add(step.target());
                return;
            }
            if (step instanceof Step.CreateMachine) {
                machines++;
                return;
            }
            if (takesAvailable(step)) {
                available().remove(step.target());
            }
            if (step instanceof Step.DeleteMachine d && !d.replace()) {
                machines--;
            }
        }
    }

    /**
     * The cluster's budget: {@code rollout.concurrency.maxUnavailableNodes} of every managed node (the pools this agent
     * plans), and the repairs' share of it per zone.
     *
     * <ul>
     *   <li><b>Unavailable</b> is counted as each pool counts it: the pool's count minus its available nodes, summed (a
     *       node not Ready, one with a problem condition, one being drained, updated or deleted, a replacement still
     *       coming up; not a surge machine, which adds capacity). A step that would take one more available node away
     *       is admitted only while the cluster stays within the budget: nodes failing on their own count, so an outage
     *       stops rollouts, as a PodDisruptionBudget would.</li>
     *   <li><b>Repairs share the budget</b>: a repair takes no available node away (its node has failed), so it is
     *       counted by what Nightshift has under way: nodes it is draining, has drained, or is updating in place, in
     *       every pool. A repair starts only while those stay within the budget.</li>
     *   <li><b>Per zone</b> ({@link ObservedCluster#ZONE_LABEL}): at most the zone's share of the budget, in proportion
     *       to its nodes (at least 1), of Nightshift's disruptions are under way in a zone when a repair starts there; and
     *       a zone where more than {@value #ZONE_OUTAGE_PERCENT} % of the managed nodes are failing (an outage: a
     *       partition, a lost zone, not dead machines) gets one repair at a time, budget or not. A one-zone outage is
     *       then never "repaired" by replacing a third of every pool at once: its machines are replaced one by one
     *       while it lasts, and the nodes that come back stop being repaired.</li>
     * </ul>
     */
    private static final class ClusterBudget {

        /** A pool with more than this share unhealthy repairs nothing (Repairs); a zone with more repairs one at a time. */
        static final int ZONE_OUTAGE_PERCENT = 40;

        private final String name;
        private final FleetConcurrency concurrency;
        private final int managed;
        private final int max;
        private int unavailable;
        /** Nodes with a disruption of ours under way, as this pass leaves them. */
        private final Set<String> ours = new HashSet<>();
        private final Map<String, String> zoneOf = new HashMap<>();
        private final Map<String, Integer> zoneNodes = new HashMap<>();
        private final Map<String, Integer> zoneFailing = new HashMap<>();
        private final Map<String, Integer> zoneOurs = new HashMap<>();

        ClusterBudget(String name, FleetConcurrency concurrency, int managed, int unavailable, List<PoolCount> pools) {
            this.name = name;
            this.concurrency = concurrency;
            this.managed = managed;
            this.max = concurrency.resolveMaxUnavailable(managed);
            this.unavailable = unavailable;
            for (PoolCount pool : pools) {
                ours.addAll(pool.ours());
                for (PoolCount.Zoned z : pool.zoned()) {
                    zoneOf.put(z.node(), z.zone());
                    zoneNodes.merge(z.zone(), 1, Integer::sum);
                    if (z.failing()) {
                        zoneFailing.merge(z.zone(), 1, Integer::sum);
                    }
                    if (z.ours()) {
                        zoneOurs.merge(z.zone(), 1, Integer::sum);
                    }
                }
            }
        }

        /** Repairs at once allowed in {@code zone}: see the class. */
        int zoneLimit(String zone) {
            int nodes = zoneNodes.getOrDefault(zone, 0);
            if (nodes > 0 && zoneFailing.getOrDefault(zone, 0) * 100 > ZONE_OUTAGE_PERCENT * nodes) {
                return 1;
            }
            if (max == Integer.MAX_VALUE || managed == 0) {
                return Integer.MAX_VALUE;
            }
            return Math.max(1, (int) ((long) max * nodes / managed));
        }

        /**
         * Whether {@code step} takes one more of the cluster's available nodes away: a disruption of an available node
         * not counted yet, and its cordon too. The cordon goes first, in the same pass as its drain; were it admitted and
         * the drain left to wait, the node would stay cordoned for as long as the cluster has no room. So the cordon
         * waits with it, and the drain after an admitted cordon costs nothing more.
         */
        private boolean costs(Step step, boolean nodeAvailable) {
            boolean takes = step instanceof Step.Cordon
                    || (disruptive(step) && !(step instanceof Step.RestartKubelet) && !(step instanceof Step.CreateMachine));
            return takes && nodeAvailable && !ours.contains(step.target());
        }

        Optional<Refusal> check(Step step, boolean nodeAvailable) {
            boolean takesAvailable = costs(step, nodeAvailable);
            if (step instanceof Step.Repair && !ours.contains(step.target())) {
                if (ours.size() + 1 > max) {
                    return Optional.of(new Refusal(step, Reason.CLUSTER_BUDGET, "cluster " + name + " has " + ours.size()
                            + " nodes under way (drains, updates, repairs) and maxUnavailableNodes " + budget()
                            + ": repairing " + step.target() + " waits"));
                }
                String zone = zoneOf.get(step.target());
                if (zone != null) {
                    int under = zoneOurs.getOrDefault(zone, 0);
                    int limit = zoneLimit(zone);
                    if (under + 1 > limit) {
                        return Optional.of(new Refusal(step, Reason.ZONE_REPAIRS, "zone " + zone + " has " + under
                                + " nodes under way and allows " + limit + " at a time (" + zoneFailing.getOrDefault(zone, 0) + " of "
                                + zoneNodes.getOrDefault(zone, 0) + " failing): repairing " + step.target() + " waits"));
                    }
                }
            }
            if (takesAvailable && unavailable + 1 > max) {
                return Optional.of(new Refusal(step, Reason.CLUSTER_BUDGET, "cluster " + name + " has " + unavailable
                        + " unavailable nodes of " + managed + " and maxUnavailableNodes " + budget() + ": disrupting "
                        + step.target() + " would make " + (unavailable + 1) + " > " + max));
            }
            return Optional.empty();
        }

        void apply(Step step, boolean nodeAvailable) {
            boolean takesAvailable = costs(step, nodeAvailable);
            if (takesAvailable) {
                unavailable++;
            }
            if ((takesAvailable || step instanceof Step.Repair) && ours.add(step.target())) {
                String zone = zoneOf.get(step.target());
                if (zone != null) {
                    zoneOurs.merge(zone, 1, Integer::sum);
                }
            }
        }

        private String budget() {
            IntOrPercent m = concurrency.maxUnavailableNodes().orElseThrow();
            return m.percent() ? m + " (" + max + ")" : m.toString();
        }
    }

}
