package dev.nightshift.agent.reconcile;

import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Whether the API server reports itself ready, asked at most once per pass and only when a step needs the answer
 * (a validation or a repair): an idle pass never asks.
 */
final class ApiServerCheck {

    private final BooleanSupplier probe;
    private Optional<Boolean> answer = Optional.empty();

    ApiServerCheck(BooleanSupplier probe) {
        this.probe = probe;
    }

    /** A new pass: the last answer is stale. */
    void reset() {
        answer = Optional.empty();
    }

    boolean ready() {
        if (answer.isEmpty()) {
            answer = Optional.of(probe.getAsBoolean());
        }
        return answer.get();
    }
}
