package dev.nightshift.spec.hash;

import java.util.Map;
import java.util.Optional;

import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.CredentialsRotation;
import dev.nightshift.spec.model.KubeletConfig;
import dev.nightshift.spec.model.Quantity;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.WorkerPoolSpec;

/**
 * Version 1 of the roll hash: everything that, when it changes, needs a new or rebuilt machine.
 * Kubernetes enters by minor only and reservations by their per-resource sum: a patch release or a
 * reservation moved between kubeReserved and systemReserved only restarts the kubelet.
 */
public final class RollHashV1 implements HashFunction {

    @Override
    public int version() {
        return 1;
    }

    @Override
    public void inputs(ResolvedPool resolved, HashInputSink sink) {
        WorkerPoolSpec pool = resolved.pool();
        ClusterSpec cluster = resolved.cluster();
        sink.accept("spec.kubernetes.version(minor)", resolved.kubernetesVersion().minorVersion());
        sink.accept("spec.machine.image.name", pool.machine().image().name());
        sink.accept("spec.machine.image.version", pool.machine().image().version().text());
        sink.accept("spec.machine.type", pool.machine().type());
        sink.accept("spec.volume.type", pool.volume().map(v -> v.type()).orElse(""));
        sink.accept("spec.volume.size", pool.volume().map(v -> v.size().canonical()).orElse(""),
                pool.volume().map(v -> v.size().text()).orElse(""));
        sink.accept("spec.providerConfig", CanonicalText.of(pool.providerConfig()));
        sink.accept("spec.cri.name", pool.criName());
        sink.accept("cluster.spec.systemComponents.nodeLocalDNS.enabled", Boolean.toString(cluster.nodeLocalDns()));
        rotation(sink, "certificateAuthorities", cluster.certificateAuthorities(), pool.name());
        rotation(sink, "serviceAccountKey", cluster.serviceAccountKey(), pool.name());
        KubeletConfig kubelet = resolved.kubelet();
        Map<String, Quantity> reserved = kubelet.reservedSum();
        sink.accept("spec.kubernetes.kubelet.kubeReserved+systemReserved", CanonicalText.quantities(reserved), displayQuantities(reserved));
        sink.accept("spec.kubernetes.kubelet.evictionHard", CanonicalText.of(kubelet.evictionHard().orElse(Map.of())));
        sink.accept("spec.kubernetes.kubelet.cpuManagerPolicy", kubelet.cpuManagerPolicy().orElse(""));
    }

    private static void rotation(HashInputSink sink, String name, Optional<CredentialsRotation> rotation, String pool) {
        sink.accept("cluster.spec.credentials.rotation." + name + ".lastInitiationTime",
                CredentialsRotation.initiationFor(rotation, pool).map(Object::toString).orElse(""));
    }

    static String displayQuantities(Map<String, Quantity> map) {
        StringBuilder b = new StringBuilder("{");
        map.forEach((k, v) -> b.append(b.length() > 1 ? ", " : "").append(k).append(": ").append(v.canonical()));
        return b.append('}').toString();
    }
}
