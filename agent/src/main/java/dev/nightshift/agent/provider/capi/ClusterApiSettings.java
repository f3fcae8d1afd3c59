package dev.nightshift.agent.provider.capi;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the {@code cluster-api} provider is told.
 *
 * @param namespace where the MachineDeployments (and their templates and Machines) live
 * @param cluster   the Cluster API cluster name ({@code cluster.x-k8s.io/cluster-name}); the spec's cluster name
 * @param mappings  infrastructure template kinds beyond {@link InfrastructureMapping#BUILT_IN}, by kind (they override)
 */
public record ClusterApiSettings(String namespace, String cluster, Map<String, InfrastructureMapping> mappings) {

    public ClusterApiSettings {
        Map<String, InfrastructureMapping> all = new TreeMap<>(InfrastructureMapping.BUILT_IN);
        all.putAll(mappings);
        mappings = Map.copyOf(all);
    }

    public Optional<InfrastructureMapping> mapping(String kind) {
        return Optional.ofNullable(mappings.get(kind));
    }
}
