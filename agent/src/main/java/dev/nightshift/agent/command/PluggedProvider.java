package dev.nightshift.agent.command;

import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;

import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.agent.provider.NodeUpdater;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * A machine provider type a {@link Plugin} adds to {@code nightshift run}.
 *
 * @param type    the name {@code provider.type} and {@code --provider} select it by
 * @param warning said on stderr before it starts, where whoever starts the agent looks first
 * @param factory makes its machine provider and node updater
 */
public record PluggedProvider(String type, Optional<String> warning, Factory factory) {

    /** Makes the provider against the agent's cluster; {@code scheduler} runs what its machines do over time. */
    @FunctionalInterface
    public interface Factory {
        Backend create(KubernetesClient client, ScheduledExecutorService scheduler, Clock clock);
    }

    /** What creates and deletes machines, and what updates nodes when node updates are the provider's own. */
    public record Backend(MachineProvider machines, NodeUpdater nodes) {
    }
}
