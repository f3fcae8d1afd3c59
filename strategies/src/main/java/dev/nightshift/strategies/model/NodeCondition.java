package dev.nightshift.strategies.model;

import java.time.Instant;
import java.util.Optional;

/**
 * One condition of a node's status, as the kubelet or a node-problem detector reports it.
 *
 * @param type           {@code Ready}, {@code DiskPressure}, {@code KernelDeadlock}…
 * @param status         {@code True}, {@code False} or {@code Unknown}
 * @param lastTransition when the status last changed; empty when the reporter gave none
 */
public record NodeCondition(String type, String status, Optional<Instant> lastTransition) {

    public static final String READY = "Ready";

    public static NodeCondition of(String type, String status, Instant since) {
        return new NodeCondition(type, status, Optional.of(since));
    }

    public boolean isTrue() {
        return "True".equals(status);
    }
}
