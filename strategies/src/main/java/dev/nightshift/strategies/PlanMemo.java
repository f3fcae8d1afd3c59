package dev.nightshift.strategies;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.NodesByPool;
import dev.nightshift.strategies.model.ObservedNode;

/**
 * What the planner judged of each node in its previous plan, for a caller that plans the same
 * pools again and again with few nodes changed in between (the simulator): a node observed again as
 * the same object is not judged again, and where the nodes come in the same order as before they
 * are not compared by name again. Only a cache: a plan made with it is the plan made without it
 * ({@link NodeFacts} are a function of the node object and the pool's desired state, both
 * immutable). Facts are kept per pool for the same {@link DesiredPool} object: a new desired state
 * (even an equal one) starts the pool's memo afresh.
 *
 * <p>It also keeps the decisions and reports of pools that are waiting or done ({@link DecisionMemo}). One caller at a
 * time.
 */
public final class PlanMemo {

    private final Map<String, PoolMemo> pools = new HashMap<>();
    private final NodesByPool nodesByPool;
    private final DecisionMemo decisions = new DecisionMemo();

    public PlanMemo() {
        this(new NodesByPool());
    }

    /** With the grouping of nodes by pool shared with another caller that groups the same observations (a guard's memo). */
    public PlanMemo(NodesByPool nodesByPool) {
        this.nodesByPool = nodesByPool;
    }

    /** The cluster's nodes by pool, remembered from the previous plan. */
    NodesByPool nodesByPool() {
        return nodesByPool;
    }

    /** The decisions and reports of pools waiting or done, kept from the previous plans. */
    DecisionMemo decisions() {
        return decisions;
    }

    /**
     * Facts of {@code nodes} in their order for the pool (not to be changed; another pool's nodes may
     * be among them or left out), and whether the nodes are in name order.
     */
    record Judged(NodeFacts[] facts, boolean sorted) {
    }

    /**
     * Without a memo: every node judged (with {@code othersAmong}, only the pool's, the others left
     * out), nothing known of their order.
     */
    static Judged judgeAll(DesiredPool pool, List<ObservedNode> nodes, boolean othersAmong) {
        NodeFacts.Judge judge = new NodeFacts.Judge(pool);
        NodeFacts[] facts = new NodeFacts[nodes.size()];
        String name = pool.name();
        int size = 0;
        for (ObservedNode n : nodes) {
            if (!othersAmong || n.pool().equals(name)) {
                facts[size++] = judge.judge(n);
            }
        }
        return new Judged(size == facts.length ? facts : Arrays.copyOf(facts, size), false);
    }

    Judged judge(DesiredPool pool, List<ObservedNode> nodes) {
        PoolMemo memo = pools.get(pool.name());
        if (memo == null || memo.judge.pool() != pool) {
            memo = new PoolMemo(new NodeFacts.Judge(pool));
            pools.put(pool.name(), memo);
        }
        return memo.judge(nodes);
    }

    /**
     * One pool's facts from the previous plan, by position in the nodes that plan observed. The
     * nodes of the next plan are matched by walking both lists side by side: a node that is the
     * same object as the previous plan's at the matching position keeps its facts (and its order
     * relative to its predecessor, when that is the same too); a node that changed, arrived or
     * moved is judged again. A mismatch costs a judgement, never a wrong answer.
     */
    private static final class PoolMemo {
        private final NodeFacts.Judge judge;
        private NodeFacts[] facts = new NodeFacts[0];
        /** The nodes of {@link #facts}, side by side: matched without reading the facts. */
        private ObservedNode[] judged = new ObservedNode[0];
        /** Whether the node at that position does not sort before its predecessor by name. */
        private boolean[] orderedAfterPrevious = new boolean[0];

        PoolMemo(NodeFacts.Judge judge) {
            this.judge = judge;
        }

        Judged judge(List<ObservedNode> nodes) {
            int size = nodes.size();
            NodeFacts[] before = facts;
            ObservedNode[] judgedBefore = judged;
            boolean[] orderedBefore = orderedAfterPrevious;
            NodeFacts[] now = new NodeFacts[size];
            ObservedNode[] judgedNow = nodes.toArray(new ObservedNode[0]);
            boolean[] ordered = new boolean[size];
            boolean sorted = true;
            int j = 0;
            int previousMatch = -2;
            for (int i = 0; i < size; i++) {
                ObservedNode n = judgedNow[i];
                int match = -1;
                if (j < before.length && judgedBefore[j] == n) {
                    match = j;
                } else if (j + 1 < before.length && judgedBefore[j + 1] == n) {
                    // The previous plan's node at j is gone.
                    match = j + 1;
                }
                if (match >= 0) {
                    now[i] = before[match];
                    j = match + 1;
                } else {
                    now[i] = judge.judge(n);
                    // A node that arrived leaves j where it is (the next node may be j's); a changed one replaces j's.
                    boolean arrived = i + 1 < size && j < before.length && judgedNow[i + 1] == judgedBefore[j];
                    if (!arrived) {
                        j++;
                    }
                }
                if (i > 0) {
                    ordered[i] = match >= 0 && previousMatch == match - 1 ? orderedBefore[match]
                            : judgedNow[i - 1].name().compareTo(n.name()) <= 0;
                    sorted &= ordered[i];
                }
                previousMatch = match >= 0 ? match : -2;
            }
            facts = now;
            judged = judgedNow;
            orderedAfterPrevious = ordered;
            return new Judged(now, sorted);
        }
    }
}
