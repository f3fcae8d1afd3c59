package dev.nightshift.spec.hash;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;

import dev.nightshift.spec.model.ClusterSpec;
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
        sink.accept("spec.kubernetes.version(minor)", resolved.minorVersion());
        sink.accept("spec.machine.image.name", pool.machine().image().name());
        sink.accept("spec.machine.image.version", pool.machine().image().version().text());
        sink.accept("spec.machine.type", pool.machine().type());
        sink.accept("spec.volume.type", pool.volume().map(v -> v.type()).orElse(""));
        sink.accept("spec.volume.size", pool.volume().map(v -> v.size().canonical()).orElse(""),
                () -> pool.volume().map(v -> v.size().text()).orElse(""));
        sink.accept("spec.providerConfig", pool.providerConfig().canonical());
        sink.accept("spec.cri.name", pool.criName());
        sink.accept("cluster.spec.systemComponents.nodeLocalDNS.enabled", Boolean.toString(cluster.nodeLocalDns()));
        sink.accept("cluster.spec.credentials.rotation.certificateAuthorities.lastInitiationTime",
                resolved.canonicalCertificateAuthoritiesRotation(),
                () -> resolved.certificateAuthoritiesRotation().map(Instant::toString).orElse(""));
        sink.accept("cluster.spec.credentials.rotation.serviceAccountKey.lastInitiationTime",
                resolved.canonicalServiceAccountKeyRotation(),
                () -> resolved.serviceAccountKeyRotation().map(Instant::toString).orElse(""));
        KubeletConfig kubelet = resolved.kubelet();
        sink.accept("spec.kubernetes.kubelet.kubeReserved+systemReserved", kubelet.canonicalReservedSum(),
                () -> displayQuantities(kubelet.reservedSum()));
        sink.accept("spec.kubernetes.kubelet.evictionHard", kubelet.canonicalEvictionHard());
        sink.accept("spec.kubernetes.kubelet.cpuManagerPolicy", kubelet.cpuManagerPolicy().orElse(""));
    }

    static String displayQuantities(Map<String, Quantity> map) {
        StringBuilder b = new StringBuilder("{");
        new TreeMap<>(map).forEach((k, v) -> b.append(b.length() > 1 ? ", " : "").append(k).append(": ").append(v.canonical()));
        return b.append('}').toString();
    }
}
