package dev.nightshift.strategies.fleet;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.spec.model.PoolRole;

/**
 * Which pools may take new work in one plan: the fleet's turns. Asked pool by pool in {@link FleetOrder}'s order,
 * each pool's outcome settled before the next is asked (whether a pool holds the others depends on what its own plan
 * found: a pool that only reports, or waits for the user's selection, holds nobody).
 *
 * <ul>
 *   <li><b>Roles in order</b>: a pool waits while a pool of an earlier role is not done (not current, or held): every
 *       control-plane and apiserver pool is current before a node pool starts (a kubelet must never be newer than its
 *       API server), whatever {@code pools} allows.</li>
 *   <li><b>{@code after}</b>: a pool waits until each pool it names is current and healthy.</li>
 *   <li><b>Concurrency</b>: within a role, at most {@code pools} pools hold a turn, by that order. A pool whose rollout
 *       is in progress (nodes in flight, or some nodes at the target and some not) keeps its turn: a pool that became
 *       outdated later does not take it from it, so no rollout is left half done for another.</li>
 *   <li><b>Failure isolation</b>: a pool FAILED, HALTED or paused keeps its turn (its nodes may be mid-update) and holds
 *       the pools that name it in {@code after} and every pool of a later role, and no other: with {@code pools: 1}
 *       that is the next pools of its role too, as before fleets; with more, the other turns go on.</li>
 * </ul>
 *
 * <p>With {@code pools: 1} and no {@code after} this is the order of old: the first pool with work holds the turn.
 * One schedule per plan; not thread-safe.
 */
public final class FleetSchedule {

    /** A pool as the schedule needs it. {@code inProgress}: its rollout has started and is not over. */
    public record Candidate(String name, PoolRole role, List<String> after, boolean inProgress) {

        public Candidate {
            after = List.copyOf(after);
        }
    }

    /** What a pool's plan found, for the pools after it. */
    public enum Outcome {
        /** Current and healthy: the pools after it may start. */
        DONE(true, false),
        /** Nothing for a turn to do (current with failing nodes, report-only, awaiting the user's selection, node updates off). */
        FREE(true, false),
        /**
         * Current, its last machines still coming up: the next pools of its role may take its turn (as they did before
         * fleets), but a later role and the pools after it wait until they are up.
         */
        SETTLING(false, false),
        /** Rolling, or waiting for a window or validation with its turn. */
        ACTIVE(false, true),
        /** FAILED, HALTED or paused: keeps its turn and holds its dependants and later roles. */
        HELD(false, true),
        /** Has work but no turn. */
        WAITING(false, false);

        private final boolean clear;
        private final boolean occupies;

        Outcome(boolean clear, boolean occupies) {
            this.clear = clear;
            this.occupies = occupies;
        }
    }

    /** A pool's turn: granted, or why not. */
    public record Turn(boolean granted, Optional<FleetWait> waiting) {

        static final Turn GRANTED = new Turn(true, Optional.empty());

        static Turn waiting(FleetWait.Reason reason, Optional<String> pool, String detail) {
            return new Turn(false, Optional.of(new FleetWait(reason, pool, detail)));
        }
    }

    private final int concurrency;
    private final Map<String, Candidate> candidates;
    private final List<String> order;
    private final Map<String, Outcome> settled;
    private final Map<String, String> settledAs;
    /** Per role, the first pool settled that is not clear: it holds every later role. */
    private final Map<PoolRole, String> unclear = new EnumMap<>(PoolRole.class);
    /** Per role, the pools holding a turn, in order. */
    private final Map<PoolRole, List<String>> holders = new EnumMap<>(PoolRole.class);
    /** Per role, the pools in progress not settled yet: their turns are kept for them. */
    private final Map<PoolRole, Integer> inProgressAhead = new EnumMap<>(PoolRole.class);
    /** Per role, the last concurrency wait told, for how many turns taken and holders (holders are only added to). */
    private final Map<PoolRole, ConcurrencyWait> concurrencyWaits = new EnumMap<>(PoolRole.class);
    private int next;

    private record ConcurrencyWait(int taken, int holding, Turn turn) {
    }

    /** @param concurrency {@code rollout.concurrency.pools}, at least 1 */
    public FleetSchedule(int concurrency, List<Candidate> pools) {
        this(concurrency, pools, FleetOrder.sort(pools, Candidate::name, Candidate::role, Candidate::after));
    }

    private FleetSchedule(int concurrency, List<Candidate> pools, List<Candidate> ordered) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1");
        }
        this.concurrency = concurrency;
        this.candidates = new HashMap<>(pools.size() * 2);
        this.settled = new HashMap<>(pools.size() * 2);
        this.settledAs = new HashMap<>(pools.size() * 2);
        pools.forEach(p -> candidates.put(p.name(), p));
        this.order = ordered.stream().map(Candidate::name).toList();
        pools.stream().filter(Candidate::inProgress).forEach(p -> inProgressAhead.merge(p.role(), 1, Integer::sum));
    }

    /**
     * The schedule of {@code pools} given in {@link FleetOrder}'s order already, as a
     * {@link dev.nightshift.strategies.model.DesiredCluster}'s pools are: not sorted again (the planner makes one
     * schedule per plan).
     */
    public static FleetSchedule inOrder(int concurrency, List<Candidate> pools) {
        return new FleetSchedule(concurrency, pools, pools);
    }

    /** The order in which pools must be asked and settled. */
    public List<String> order() {
        return order;
    }

    /** Whether {@code pool} may take new work now; it must be the next pool of {@link #order()} not settled. */
    public Turn turn(String pool) {
        Candidate c = candidates.get(pool);
        if (c == null) {
            throw new IllegalArgumentException("no pool " + pool + " in the schedule");
        }
        if (next >= order.size() || !order.get(next).equals(pool)) {
            throw new IllegalStateException(pool + " asked for its turn out of order (next is "
                    + (next < order.size() ? order.get(next) : "none") + ")");
        }
        for (PoolRole earlier : PoolRole.values()) {
            if (earlier.compareTo(c.role()) >= 0) {
                break;
            }
            String holder = unclear.get(earlier);
            if (holder != null) {
                return Turn.waiting(FleetWait.Reason.ROLE_ORDER, Optional.of(holder), "role order: " + earlier + " pool " + holder
                        + " (" + settledAs.get(holder) + ") goes before " + c.role() + " pools");
            }
        }
        for (String a : c.after()) {
            Outcome o = settled.get(a);
            if (candidates.containsKey(a) && o != Outcome.DONE) {
                return Turn.waiting(FleetWait.Reason.AFTER, Optional.of(a), "after pool " + a
                        + (o == null ? "" : " (" + settledAs.get(a) + ")") + ": it must be current and healthy first");
            }
        }
        if (c.inProgress()) {
            return Turn.GRANTED;
        }
        List<String> holding = holders.getOrDefault(c.role(), List.of());
        int taken = holding.size() + inProgressAhead.getOrDefault(c.role(), 0);
        if (taken >= concurrency) {
            // The pools after it in its role wait for the same turns: told the same, made once (a fleet has hundreds).
            ConcurrencyWait last = concurrencyWaits.get(c.role());
            if (last != null && last.taken() == taken && last.holding() == holding.size()) {
                return last.turn();
            }
            Turn wait = Turn.waiting(FleetWait.Reason.CONCURRENCY, Optional.empty(), "concurrency: " + taken + " of " + concurrency
                    + " turns taken" + (holding.isEmpty() ? " by pools in progress"
                    : " (" + String.join(", ", holding.subList(0, Math.min(5, holding.size()))) + (holding.size() > 5 ? ", …" : "") + ")"));
            concurrencyWaits.put(c.role(), new ConcurrencyWait(taken, holding.size(), wait));
            return wait;
        }
        return Turn.GRANTED;
    }

    /**
     * What {@code pool}'s plan found, given its turn.
     *
     * @param phase the pool's phase as reports name it, for the waiting pools' sentences
     */
    public void settle(String pool, Turn turn, Outcome outcome, String phase) {
        if (next >= order.size() || !order.get(next).equals(pool)) {
            throw new IllegalStateException(pool + " settled out of order");
        }
        next++;
        Candidate c = candidates.get(pool);
        settled.put(pool, outcome);
        settledAs.put(pool, phase);
        if (c.inProgress()) {
            inProgressAhead.merge(c.role(), -1, Integer::sum);
        }
        if (!outcome.clear) {
            unclear.putIfAbsent(c.role(), pool);
        }
        if (outcome.occupies && turn.granted()) {
            holders.computeIfAbsent(c.role(), r -> new ArrayList<>()).add(pool);
        }
    }
}
