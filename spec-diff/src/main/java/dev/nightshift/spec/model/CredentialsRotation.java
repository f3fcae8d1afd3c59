package dev.nightshift.spec.model;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A credentials rotation (certificate authorities or service-account key). Starting one rolls
 * every pool; a pool named in {@code pendingWorkersRollouts} rolls for the time of its own entry.
 */
public record CredentialsRotation(Instant lastInitiationTime, List<PendingWorkersRollout> pendingWorkersRollouts) {

    public CredentialsRotation {
        pendingWorkersRollouts = List.copyOf(pendingWorkersRollouts);
    }

    public record PendingWorkersRollout(String name, Instant lastInitiationTime) {
    }

    /** The initiation time that applies to one pool. */
    public Instant initiationFor(String pool) {
        return pendingWorkersRollouts.stream()
                .filter(p -> p.name().equals(pool))
                .map(PendingWorkersRollout::lastInitiationTime)
                .findFirst()
                .orElse(lastInitiationTime);
    }

    public static Optional<Instant> initiationFor(Optional<CredentialsRotation> rotation, String pool) {
        return rotation.map(r -> r.initiationFor(pool));
    }
}
