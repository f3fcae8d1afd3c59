package dev.nightshift.spec.model;

import java.util.List;
import java.util.Optional;

/** The {@code Cluster} document: what every pool of the cluster shares. */
public record ClusterSpec(
        String name,
        KubernetesVersion kubernetesVersion,
        KubeletConfig kubelet,
        boolean nodeLocalDns,
        Optional<CredentialsRotation> certificateAuthorities,
        Optional<CredentialsRotation> serviceAccountKey,
        Optional<Maintenance> maintenance,
        RollingUpdateDefaults rollingUpdate,
        List<MachineImage> machineImages,
        Optional<Rollout> rollout) {

    public ClusterSpec {
        machineImages = List.copyOf(machineImages);
    }

    /** {@code rollout.concurrency} as written, else one pool at a time without a cluster-wide budget. */
    public FleetConcurrency concurrency() {
        return rollout.flatMap(Rollout::concurrency).orElse(FleetConcurrency.DEFAULT);
    }

    public Optional<MachineImage> machineImage(String imageName) {
        return machineImages.stream().filter(i -> i.name().equals(imageName)).findFirst();
    }
}
