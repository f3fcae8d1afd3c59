package dev.nightshift.agent.provider.http;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.spec.model.KubeletConfig;
import dev.nightshift.spec.model.Quantity;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.strategies.model.DesiredPool;

/** What the machine API is asked for a pool's machine: the pool's spec, as it is in Git, and its hashes. */
final class MachineRequests {

    private MachineRequests() {
    }

    /**
     * A new machine of {@code pool}. Its node registers with the pool's labels and taints; the
     * {@code nightshift.dev/pool} label is left out on purpose: the agent labels the node together
     * with its hashes once it registers, in one write, so no node is ever seen in the pool without
     * the hashes of the machine it runs on (it would be adopted as running the current spec).
     */
    static MachineRequest create(DesiredPool pool, Optional<String> surgeFor) {
        WorkerPoolSpec spec = pool.spec().pool();
        Map<String, String> labels = new TreeMap<>(spec.labels());
        labels.remove(NodeMarks.POOL);
        Map<String, String> annotations = new HashMap<>(NodeMarks.hashes(pool.rollHash(), pool.kubeletHash()));
        surgeFor.ifPresent(partner -> annotations.put(NodeMarks.SURGE_FOR, partner));
        List<MachineRequest.Taint> taints = new ArrayList<>(spec.taints().stream()
                .map(t -> new MachineRequest.Taint(t.key(), t.value(), t.effect().name())).toList());
        // Off once the agent has seen the node (NodeMarks.STARTUP_TAINT): no pod lands on a node whose machine may be
        // deleted, as never registered, in the instant it registers.
        taints.add(new MachineRequest.Taint(NodeMarks.STARTUP_TAINT, NodeMarks.STARTUP_TAINT_VALUE, NodeMarks.STARTUP_TAINT_EFFECT));
        return new MachineRequest(labels, annotations, taints, spec(pool.spec()));
    }

    /** The pool's machine spec: machine type, image, volume, CRI, Kubernetes version, kubelet settings, providerConfig. */
    static MachineSpec spec(ResolvedPool pool) {
        WorkerPoolSpec spec = pool.pool();
        return new MachineSpec(spec.machine().type(),
                new MachineSpec.Image(spec.machine().image().name(), spec.machine().image().version().text()),
                spec.volume().map(v -> new MachineSpec.Volume(v.type(), v.size().text())).orElse(null),
                spec.criName(), pool.fullVersion(), kubelet(pool.kubelet()), spec.providerConfig().values());
    }

    /** The kubelet settings as the spec writes them; unset ones are left out. */
    private static Map<String, Object> kubelet(KubeletConfig kubelet) {
        Map<String, Object> k = new LinkedHashMap<>();
        kubelet.kubeReserved().ifPresent(m -> k.put("kubeReserved", quantities(m)));
        kubelet.systemReserved().ifPresent(m -> k.put("systemReserved", quantities(m)));
        kubelet.evictionHard().ifPresent(m -> k.put("evictionHard", new TreeMap<>(m)));
        kubelet.cpuManagerPolicy().ifPresent(p -> k.put("cpuManagerPolicy", p));
        return k;
    }

    private static Map<String, String> quantities(Map<String, Quantity> m) {
        Map<String, String> text = new TreeMap<>();
        m.forEach((k, v) -> text.put(k, v.text()));
        return text;
    }
}
