package dev.nightshift.spec.model;

import java.time.Duration;
import java.util.List;

/** Per-pool timeouts and drain behaviour, named after Gardener's machine-controller-manager settings. */
public record MachineControllerManager(
        Duration drainTimeout,
        Duration healthTimeout,
        Duration creationTimeout,
        int maxEvictRetries,
        Duration inPlaceUpdateTimeout,
        OnEvictionBlocked onEvictionBlocked,
        List<String> nodeConditions) {

    public static final MachineControllerManager DEFAULTS = new MachineControllerManager(
            Duration.ofHours(2), Duration.ofMinutes(10), Duration.ofMinutes(10), 10, Duration.ofMinutes(30),
            OnEvictionBlocked.ForceDelete, List.of("KernelDeadlock", "ReadonlyFilesystem", "DiskPressure"));

    public MachineControllerManager {
        nodeConditions = List.copyOf(nodeConditions);
    }
}
