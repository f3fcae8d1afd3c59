package dev.nightshift.spec.model;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Per-pool timeouts and drain behaviour, named after Gardener's machine-controller-manager settings.
 *
 * @param disableHealthTimeout as written; empty when left out. Its default depends on the update
 *                             strategy: see {@link ResolvedPool#disableHealthTimeout()}
 */
public record MachineControllerManager(
        Duration drainTimeout,
        Duration healthTimeout,
        Duration creationTimeout,
        int maxEvictRetries,
        Duration inPlaceUpdateTimeout,
        OnEvictionBlocked onEvictionBlocked,
        List<String> nodeConditions,
        Optional<Boolean> disableHealthTimeout) {

    public static final MachineControllerManager DEFAULTS = new MachineControllerManager(
            Duration.ofHours(2), Duration.ofMinutes(10), Duration.ofMinutes(10), 10, Duration.ofMinutes(30),
            OnEvictionBlocked.ForceDelete, List.of("KernelDeadlock", "ReadonlyFilesystem", "DiskPressure"),
            Optional.empty());

    public MachineControllerManager {
        nodeConditions = List.copyOf(nodeConditions);
    }
}
