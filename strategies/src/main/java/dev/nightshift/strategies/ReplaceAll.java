package dev.nightshift.strategies;

import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;

/**
 * Replace: stated downtime. Every outdated node is cordoned and drained at once, then deleted, and
 * the provider creates the replacements. No canary, no maxUnavailable.
 */
final class ReplaceAll implements NodeUpdatePlanner {

    @Override
    public void plan(PoolView view, StartGate gate, PlanSink sink) {
        RollingReplacement.deleteUnregistered(view, sink);
        for (ObservedNode node : view.outdatedNodes()) {
            if (!node.registered() && !view.bastion()) {
                continue;
            }
            if (node.draining() || view.bastion()) {
                if (view.bastion() ? gate.allows(node) : Drains.progress(view, node, sink)) {
                    sink.add(new Step.DeleteMachine(node.name(), view.desired().name(), true,
                            view.desired()));
                }
            } else if (gate.allows(node)) {
                Drains.start(node, sink);
            }
        }
    }
}
