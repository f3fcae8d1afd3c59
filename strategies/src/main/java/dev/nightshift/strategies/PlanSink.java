package dev.nightshift.strategies;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.nightshift.strategies.plan.PoolReport.BlockedDrain;
import dev.nightshift.strategies.plan.Step;

/** Collects what the strategies decide for one pool during one plan. */
final class PlanSink {

    final List<Step> steps = new ArrayList<>();
    final List<BlockedDrain> blockedDrains = new ArrayList<>();
    final Set<String> failed = new LinkedHashSet<>();
    final List<String> awaitingSelection = new ArrayList<>();

    void add(Step step) {
        steps.add(step);
    }
}
