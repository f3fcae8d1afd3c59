package dev.nightshift.strategies;

import dev.nightshift.strategies.plan.Step;

/**
 * A pool that lost machines behind Nightshift's back (a spot interruption, a cloud health check that terminated an
 * instance without replacing it, someone's {@code DELETE}) is brought back to its {@code minimum} at the pool's current
 * spec, as a MachineSet brings back a Machine a MachineHealthCheck deleted. Only where the backend does not do so
 * itself ({@link dev.nightshift.strategies.model.DesiredCluster#refillsPools()}), and never above {@code minimum}:
 * between {@code minimum} and {@code maximum} the size is an autoscaler's to choose.
 *
 * <p>Counted as {@link PoolView#count()} counts: machines asked for and not registered yet count, machines being
 * deleted do not, a surge machine counts once its old partner is gone; so a refill asked for in one pass is seen in the
 * next and never asked for twice. While a pool is short, no new disruption starts in it (the caller's gate): its
 * capacity is restored before any more is taken.
 */
final class Refills {

    private Refills() {
    }

    /** How many machines the pool lacks to reach its minimum (0 when it has them). */
    static int shortfall(PoolView view) {
        return Math.max(0, view.spec().minimum() - view.count());
    }

    /** One create per missing machine, standing in for no one. */
    static void plan(PoolView view, int shortfall, PlanSink sink) {
        String pool = view.desired().name();
        for (int i = 1; i <= shortfall; i++) {
            sink.add(new Step.CreateMachine(pool + "-refill-" + i, pool, "", view.desired()));
        }
    }
}
