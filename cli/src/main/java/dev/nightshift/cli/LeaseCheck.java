package dev.nightshift.cli;

import java.time.Instant;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;

/** Whether an agent leads now: its Lease has a holder and was renewed within its duration (a released Lease has no holder). */
final class LeaseCheck {

    private LeaseCheck() {
    }

    /** The holder of the Lease when it is held at {@code now}; empty when there is no Lease, or it was released or expired. */
    static Optional<String> holder(KubernetesClient client, String namespace, String name, Instant now) {
        Lease lease = client.leases().inNamespace(namespace).withName(name).get();
        return lease == null ? Optional.empty() : holder(lease, now);
    }

    static Optional<String> holder(Lease lease, Instant now) {
        if (lease.getSpec() == null || lease.getSpec().getHolderIdentity() == null || lease.getSpec().getHolderIdentity().isEmpty()) {
            return Optional.empty();
        }
        var renewed = lease.getSpec().getRenewTime() != null ? lease.getSpec().getRenewTime() : lease.getSpec().getAcquireTime();
        Integer seconds = lease.getSpec().getLeaseDurationSeconds();
        if (renewed == null || seconds == null || !now.isBefore(renewed.toInstant().plusSeconds(seconds))) {
            return Optional.empty();
        }
        return Optional.of(lease.getSpec().getHolderIdentity());
    }
}
