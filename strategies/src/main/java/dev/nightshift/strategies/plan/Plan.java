package dev.nightshift.strategies.plan;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The next steps, pool by pool in rollout order: every pool's plan holds its own steps and its
 * report, so no consumer maps a step to a pool by name.
 *
 * @param pools  one plan per desired pool, in the order the pools roll (bastions first, then by role and name)
 * @param wakeAt the earliest time at which the plan would change with nothing else happening
 *               (minReadySeconds passing, an interval ending, a deadline); empty if none
 */
public record Plan(List<PoolPlan> pools, Optional<Instant> wakeAt) {

    public Plan {
        pools = List.copyOf(pools);
        if (pools.stream().map(PoolPlan::pool).distinct().count() != pools.size()) {
            throw new IllegalArgumentException("a pool appears twice in the plan");
        }
    }

    /** Every step of every pool, in the order they are carried out: pool by pool, each pool's in order. */
    public List<Step> steps() {
        return pools.stream().flatMap(p -> p.steps().stream()).toList();
    }

    /** Every pool's report by name, in rollout order. */
    public Map<String, PoolReport> reports() {
        Map<String, PoolReport> reports = new LinkedHashMap<>();
        pools.forEach(p -> reports.put(p.pool(), p.report()));
        return reports;
    }

    /** The named pool's plan, if the pool is desired. */
    public Optional<PoolPlan> pool(String name) {
        return pools.stream().filter(p -> p.pool().equals(name)).findFirst();
    }

    /** The named pool's report; the pool must be in the plan. */
    public PoolReport report(String pool) {
        return pool(pool).orElseThrow(() -> new IllegalArgumentException("no pool " + pool + " in the plan")).report();
    }

    /** The same plan with the named pools' steps dropped (their reports kept). */
    public Plan withoutStepsIn(Set<String> held) {
        return new Plan(pools.stream().map(p -> held.contains(p.pool()) ? p.withoutSteps() : p).toList(), wakeAt);
    }

    /**
     * The same plan with the named pools' reports saying why they wait in the fleet, where they said nothing yet (the
     * guard stage's waits for the cluster's budget, added to the schedule's).
     */
    public Plan withWaits(Map<String, dev.nightshift.strategies.fleet.FleetWait> waits) {
        if (waits.isEmpty()) {
            return this;
        }
        return new Plan(pools.stream().map(p -> waits.containsKey(p.pool()) && p.report().waitingFor().isEmpty()
                ? new PoolPlan(p.pool(), p.steps(), p.report().withWaitingFor(Optional.of(waits.get(p.pool())))) : p).toList(), wakeAt);
    }

    /** The same plan with the named pools' reports saying that a pass left some of their steps ({@link PoolReport#withStepsLeft}). */
    public Plan withStepsLeft(Set<String> left) {
        if (left.isEmpty()) {
            return this;
        }
        return new Plan(pools.stream().map(p -> left.contains(p.pool()) ? new PoolPlan(p.pool(), p.steps(), p.report().withStepsLeft())
                : p).toList(), wakeAt);
    }

    /**
     * The same plan with the named pools held: their steps dropped, their reports saying why
     * (a machine provider that refuses the pool's backing objects).
     */
    public Plan holding(Map<String, String> reasons) {
        return new Plan(pools.stream().map(p -> reasons.containsKey(p.pool())
                ? new PoolPlan(p.pool(), List.of(), p.report().held(reasons.get(p.pool()))) : p).toList(), wakeAt);
    }
}
