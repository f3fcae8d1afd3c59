package dev.nightshift.sandbox;

import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

import dev.nightshift.agent.command.PluggedProvider;
import dev.nightshift.agent.command.Plugin;
import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.sandbox.cli.DemoCommand;
import dev.nightshift.sandbox.cli.SandboxCommand;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;

/**
 * What the sandbox adds to {@code nightshift}: the {@code demo} and {@code sandbox} commands, and the {@code simulated}
 * provider for {@code nightshift run} against the embedded cluster or a test cluster. Registered in
 * {@code META-INF/services}; a build without this module (the image) has none of them.
 */
public final class SandboxPlugin implements Plugin {

    /** Said before the simulated provider starts: it writes Node objects into whatever cluster the kubeconfig names. */
    static final String SIMULATED_WARNING = "WARNING: the simulated provider creates and deletes Node objects in the cluster the"
            + " kubeconfig names, as machines of its own; it is for the embedded cluster (nightshift demo, nightshift sandbox)"
            + " and test clusters, never for a cluster with real nodes.";

    @Override
    public List<Object> commands() {
        return List.of(new DemoCommand(), new SandboxCommand());
    }

    @Override
    public List<PluggedProvider> providers() {
        return List.of(new PluggedProvider(AgentConfig.Provider.SIMULATED, Optional.of(SIMULATED_WARNING), (client, scheduler, clock) -> {
            SimulatedMachineProvider simulated = new SimulatedMachineProvider(client, scheduler, clock, new Random(),
                    Set.of()::contains, SimulatedMachineProvider.Behaviour.fast());
            return new PluggedProvider.Backend(simulated, simulated);
        }));
    }
}
