package dev.nightshift.agent.provider.http;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a new machine must be ({@code MachineRequest} in the OpenAPI file): it registers as a node
 * with {@code labels} and {@code taints} (what a kubelet can set at registration); its
 * {@code annotations} stay on the machine record.
 */
public record MachineRequest(Map<String, String> labels, Map<String, String> annotations, List<Taint> taints, MachineSpec spec) {

    public MachineRequest {
        labels = Map.copyOf(labels);
        annotations = Map.copyOf(annotations);
        taints = List.copyOf(taints);
        Objects.requireNonNull(spec, "spec");
    }

    /** A taint the node registers with; {@code value} may be null. */
    public record Taint(String key, String value, String effect) {
    }
}
