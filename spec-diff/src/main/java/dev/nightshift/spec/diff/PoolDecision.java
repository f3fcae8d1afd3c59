package dev.nightshift.spec.diff;

import java.util.List;
import java.util.Optional;

import dev.nightshift.spec.hash.StampedHash;

/**
 * The decision for one pool, with every reason behind it, not just the winning one.
 *
 * @param forceTokenUsed the {@code nightshift.dev/force-in-place-update} token this decision spends;
 *                       the agent records it so that it works only once
 */
public record PoolDecision(
        String cluster,
        String pool,
        PoolAction action,
        Optional<StampedHash> rollHashOld,
        Optional<StampedHash> rollHashNew,
        Optional<StampedHash> kubeletHashOld,
        Optional<StampedHash> kubeletHashNew,
        List<Reason> reasons,
        Optional<String> forceTokenUsed) {

    public PoolDecision {
        reasons = List.copyOf(reasons);
    }

    public boolean rejected() {
        return action == PoolAction.REJECTED;
    }
}
