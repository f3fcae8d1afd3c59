package dev.nightshift.spec.hash;

import java.util.Map;

import dev.nightshift.spec.model.KubeletConfig;
import dev.nightshift.spec.model.Quantity;
import dev.nightshift.spec.model.ResolvedPool;

/** Version 1 of the kubelet hash: the full Kubernetes version and the full effective kubelet configuration. */
public final class KubeletHashV1 implements HashFunction {

    @Override
    public int version() {
        return 1;
    }

    @Override
    public void inputs(ResolvedPool resolved, HashInputSink sink) {
        KubeletConfig kubelet = resolved.kubelet();
        sink.accept("spec.kubernetes.version", resolved.fullVersion());
        Map<String, Quantity> kubeReserved = kubelet.kubeReserved().orElse(Map.of());
        Map<String, Quantity> systemReserved = kubelet.systemReserved().orElse(Map.of());
        sink.accept("spec.kubernetes.kubelet.kubeReserved", kubelet.canonicalKubeReserved(),
                () -> RollHashV1.displayQuantities(kubeReserved));
        sink.accept("spec.kubernetes.kubelet.systemReserved", kubelet.canonicalSystemReserved(),
                () -> RollHashV1.displayQuantities(systemReserved));
        sink.accept("spec.kubernetes.kubelet.evictionHard", kubelet.canonicalEvictionHard());
        sink.accept("spec.kubernetes.kubelet.cpuManagerPolicy", kubelet.cpuManagerPolicy().orElse(""));
    }
}
