package dev.nightshift.strategies;

import java.time.Instant;
import java.util.List;

import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedNode;

/**
 * A pool's accounting as the planner keeps it, for those who measure a rollout from outside (the
 * simulator's peaks and violations): the machines that exist, those that count towards the pool's
 * size, those available, and the limits resolved against that size. Asked per node, so that
 * measuring after every plan costs no more than the plan.
 */
public final class PoolAccount {

    private final PoolView view;

    private PoolAccount(PoolView view) {
        this.view = view;
    }

    public static PoolAccount of(DesiredPool pool, List<ObservedNode> nodes, Instant now) {
        return of(new PoolView(pool, nodes, now));
    }

    static PoolAccount of(PoolView view) {
        return new PoolAccount(view);
    }

    /** Machines that exist and are not terminating. */
    public int machines() {
        return view.nodes().size();
    }

    /** Counts towards the pool's size: every machine once, except a surge machine whose old partner still exists. */
    public boolean counted(ObservedNode n) {
        return !n.terminating() && !view.hasLivePartner(n);
    }

    /**
     * Available: Ready for minReadySeconds, healthy, not cordoned, drained or updating; a bastion's
     * machine running.
     */
    public boolean available(ObservedNode n) {
        return !n.terminating() && view.available(n);
    }

    /** The machine at {@code i} of {@link #machines()}, in name order. */
    public ObservedNode node(int i) {
        return view.nodes().get(i);
    }

    /** {@link #available(ObservedNode)} of {@link #node}{@code (i)}, answered when the account was made. */
    public boolean available(int i) {
        return view.available(i);
    }

    /** {@link #counted(ObservedNode)} of {@link #node}{@code (i)}, answered when the account was made. */
    public boolean counted(int i) {
        return !view.hasLivePartner(i);
    }

    public PoolLimits limits() {
        return view.limits();
    }

    /** The pool's size: what the limits are resolved against. */
    public int count() {
        return view.count();
    }

    /** Machines of the pool's size that are not available. */
    public int unavailable() {
        return count() - view.availableCount();
    }
}
