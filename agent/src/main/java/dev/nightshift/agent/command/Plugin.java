package dev.nightshift.agent.command;

import java.util.List;

/**
 * What a jar on the class path adds to the {@code nightshift} command, found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/dev.nightshift.agent.command.Plugin}). The sandbox is one: it adds {@code demo} and
 * {@code sandbox} and the {@code simulated} provider, so that what runs in a cluster (the agent and the CLI) is built
 * and shipped without the embedded API server and its doubles.
 */
public interface Plugin {

    /** picocli command objects (classes annotated {@code @Command}) to add as subcommands of {@code nightshift}. */
    List<Object> commands();

    /** Machine provider types that {@code nightshift run} may select by name. */
    List<PluggedProvider> providers();
}
