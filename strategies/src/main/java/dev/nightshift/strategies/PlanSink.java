package dev.nightshift.strategies;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.nightshift.strategies.plan.PoolReport.BlockedDrain;
import dev.nightshift.strategies.plan.Step;

/** Collects what the strategies decide for one pool during one plan; every step it takes acts in that pool. */
final class PlanSink {

    final String pool;

    final List<Step> steps = new ArrayList<>();
    final List<BlockedDrain> blockedDrains = new ArrayList<>();
    final Set<String> failed = new LinkedHashSet<>();
    final List<String> awaitingSelection = new ArrayList<>();

    PlanSink(String pool) {
        this.pool = pool;
    }

    void add(Step step) {
        if (!step.pool().equals(pool)) {
            throw new IllegalArgumentException("step " + step + " does not act in pool " + pool);
        }
        steps.add(step);
    }
}
