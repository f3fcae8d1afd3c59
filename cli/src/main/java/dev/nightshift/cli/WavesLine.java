package dev.nightshift.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import dev.nightshift.spec.model.HealthCheck;
import dev.nightshift.spec.model.RolloutPolicy;

/**
 * How a pool rolls when not as today's canary, in one line for {@code plan} and {@code diff --output markdown}:
 * {@code 4 waves, 3 soaks of 10m; checks: error-rate; on failure: Halt}. The ETA's assumptions say the waves too, but
 * folded away with the rest; a reviewer should see at once that a change soaks and may halt or roll back.
 */
final class WavesLine {

    private WavesLine() {
    }

    /** Empty for the default rollout (the canary, then the rest, nothing judged or limited). */
    static Optional<String> of(RolloutPolicy rollout) {
        if (!rollout.inWaves() && rollout.maxFailedMachines() == 0) {
            return Optional.empty();
        }
        List<String> parts = new ArrayList<>();
        parts.add(rollout.describe());
        if (!rollout.healthChecks().isEmpty()) {
            parts.add("checks: " + rollout.healthChecks().stream().map(HealthCheck::name).collect(Collectors.joining(", ")));
        }
        if (rollout.maxFailedMachines() > 0) {
            parts.add("at most " + rollout.maxFailedMachines() + " failed machines in a row");
        }
        if (!rollout.healthChecks().isEmpty() || rollout.maxFailedMachines() > 0) {
            parts.add("on failure: " + rollout.onFailure());
        }
        return Optional.of(String.join("; ", parts));
    }
}
