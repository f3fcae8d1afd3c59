package dev.nightshift.spec.hash;

import java.util.Map;

import dev.nightshift.spec.model.KubeletConfig;
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
        sink.accept("spec.kubernetes.version", resolved.kubernetesVersion().toString());
        sink.accept("spec.kubernetes.kubelet.kubeReserved", CanonicalText.quantities(kubelet.kubeReserved().orElse(Map.of())),
                RollHashV1.displayQuantities(kubelet.kubeReserved().orElse(Map.of())));
        sink.accept("spec.kubernetes.kubelet.systemReserved", CanonicalText.quantities(kubelet.systemReserved().orElse(Map.of())),
                RollHashV1.displayQuantities(kubelet.systemReserved().orElse(Map.of())));
        sink.accept("spec.kubernetes.kubelet.evictionHard", CanonicalText.of(kubelet.evictionHard().orElse(Map.of())));
        sink.accept("spec.kubernetes.kubelet.cpuManagerPolicy", kubelet.cpuManagerPolicy().orElse(""));
    }
}
