package dev.nightshift.agent.nodeupdate;

import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.spec.model.KubeletConfig;
import dev.nightshift.spec.model.Quantity;
import dev.nightshift.spec.model.ResolvedPool;

/**
 * {@code NIGHTSHIFT_TARGET}, what the node must run when the updater exits 0, as JSON with exactly
 * these keys: {@code {"machineImage": {"name", "version"}, "kubernetesVersion": "1.31.5", "kubelet":
 * {"kubeReserved": {}, "systemReserved": {}, "evictionHard": {}, "cpuManagerPolicy": null}, "cri":
 * "containerd"}}. Quantities as written in the spec; a kubelet map the spec leaves unset is empty and
 * an unset {@code cpuManagerPolicy} null (the updater keeps the kubelet's default).
 */
public final class UpdateTarget {

    private static final ObjectMapper JSON = new ObjectMapper();

    private UpdateTarget() {
    }

    public static String json(ResolvedPool pool) {
        return tree(pool).toString();
    }

    static ObjectNode tree(ResolvedPool pool) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode image = root.putObject("machineImage");
        image.put("name", pool.pool().machine().image().name());
        image.put("version", pool.pool().machine().image().version().text());
        root.put("kubernetesVersion", pool.fullVersion());
        KubeletConfig kubelet = pool.kubelet();
        ObjectNode k = root.putObject("kubelet");
        quantities(k.putObject("kubeReserved"), kubelet.kubeReserved());
        quantities(k.putObject("systemReserved"), kubelet.systemReserved());
        ObjectNode eviction = k.putObject("evictionHard");
        kubelet.evictionHard().orElse(Map.of()).forEach(eviction::put);
        k.put("cpuManagerPolicy", kubelet.cpuManagerPolicy().orElse(null));
        root.put("cri", pool.pool().criName());
        return root;
    }

    private static void quantities(ObjectNode into, Optional<Map<String, Quantity>> values) {
        values.orElse(Map.of()).forEach((resource, q) -> into.put(resource, q.text()));
    }
}
