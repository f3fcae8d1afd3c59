package dev.nightshift.agent.reconcile;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.agent.git.SpecRevision;
import dev.nightshift.spec.diff.PoolTarget;
import dev.nightshift.strategies.plan.PoolReport;

/**
 * The accept stage: which commit the agent acts on, pool by pool, and why each pool's nodes change. Kept in the pool
 * records ({@link AcceptedSpecs}); a fake in the pass's tests.
 */
interface Acceptance {

    /** Reads what each pool accepted from its record: at start and at every term as leader. */
    void rebuildFromRecords();

    /** Takes the newest good spec from Git, unless a change in it is not allowed now; null when none came yet. */
    void takeOffered(SpecRevision offered);

    /** What the agent acts on; empty until something was accepted or read from the records. */
    Optional<AcceptedSpecs.Acting> acting();

    /** What the plan says of each pool: a pool that became current is current at the acting spec. */
    void observed(Map<String, PoolReport> reports);

    /** Why the newest commit, or parts of it, were refused. */
    List<String> rejected();

    /** Each pool's target: why its nodes change. */
    Map<String, PoolTarget> targets();
}
