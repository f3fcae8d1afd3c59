package dev.nightshift.agent.notify;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The kinds of event the agent notifies, with their names on the wire (schema {@link EventJson#SCHEMA}). The list is
 * the contract: a new kind is added at the end and documented; a name never changes meaning.
 */
public enum EventType {
    /** Before a window opens: what will roll in it ({@code notifications.announce} ahead). */
    ROLLOUT_ANNOUNCED("rollout.announced"),
    /** The first pool of the accepted commit started to roll. */
    ROLLOUT_STARTED("rollout.started"),
    POOL_STARTED("pool.started"),
    /** Nodes of a pool became current; at most one a minute per pool. */
    POOL_PROGRESS("pool.progress"),
    POOL_COMPLETED("pool.completed"),
    /** A drain is blocked by a PodDisruptionBudget: with the pod and the budget. */
    POOL_BLOCKED("pool.blocked"),
    /** Reserved for health-gated waves: defined in the schema, emitted once halting exists. */
    POOL_HALTED("pool.halted"),
    /** A node of the pool failed, its progress deadline passed, or the pool is refused. */
    POOL_FAILED("pool.failed"),
    ROLLOUT_COMPLETED("rollout.completed"),
    /** The newest commit's specs do not load or validate: with file:line. */
    SPEC_INVALID("spec.invalid"),
    /** The newest commit is valid but not taken: a change not allowed, or git.verify refused it. */
    COMMIT_REFUSED("commit.refused"),
    /** A maintenance window ended with outdated nodes left. */
    WINDOW_CLOSED_WITH_WORK_LEFT("window.closed-with-work-left");

    /** What a destination's {@code events:} may name besides the types: every one. */
    public static final String ALL = "all";

    private final String wireName;

    EventType(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    /** The type of a wire name; empty for an unknown one. */
    public static Optional<EventType> of(String wireName) {
        return Arrays.stream(values()).filter(t -> t.wireName.equals(wireName)).findFirst();
    }

    /** Every wire name, in the schema's order. */
    public static List<String> wireNames() {
        return Arrays.stream(values()).map(EventType::wireName).toList();
    }
}
