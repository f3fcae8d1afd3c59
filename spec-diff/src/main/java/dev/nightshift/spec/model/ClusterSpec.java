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

    public Optional<MachineImage> machineImage(String imageName) {
        return machineImages.stream().filter(i -> i.name().equals(imageName)).findFirst();
    }
}
