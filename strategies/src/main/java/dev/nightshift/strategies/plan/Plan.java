package dev.nightshift.strategies.plan;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.strategies.model.ObservedCluster;

/**
 * The next steps, in order, and every pool's report.
 *
 * @param wakeAt the earliest time at which the plan would change with nothing else happening
 *               (minReadySeconds passing, an interval ending, a deadline); empty if none
 */
public record Plan(List<Step> steps, Map<String, PoolReport> pools, Optional<Instant> wakeAt) {

    public Plan {
        steps = List.copyOf(steps);
        pools = Map.copyOf(pools);
    }

    /**
     * The steps that act in {@code pool}, in order: machine steps by the pool they carry, a
     * validation by the pool it names, every other step by the pool its node is observed in (the
     * node's {@code nightshift.dev/pool} label), never by its name, which a cloud chooses.
     */
    public List<Step> stepsIn(String pool, ObservedCluster observed) {
        Map<String, String> poolOfNode = new HashMap<>();
        observed.nodes().forEach(n -> poolOfNode.put(n.name(), n.pool()));
        return steps.stream().filter(step -> pool.equals(poolOf(step, poolOfNode))).toList();
    }

    private static String poolOf(Step step, Map<String, String> poolOfNode) {
        if (step instanceof Step.CreateMachine create) {
            return create.pool();
        }
        if (step instanceof Step.DeleteMachine delete) {
            return delete.pool();
        }
        if (step instanceof Step.Validate validate) {
            return validate.target();
        }
        return poolOfNode.get(step.target());
    }
}
