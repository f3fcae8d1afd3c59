package dev.nightshift.cli;

import java.util.List;
import java.util.ServiceLoader;

import dev.nightshift.agent.command.ExitCodes;
import dev.nightshift.agent.command.Plugin;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code nightshift} command. Its own subcommands are the agent's ({@code run}) and the tools around it; a
 * {@link Plugin} on the class path adds more (the sandbox adds {@code demo} and {@code sandbox}, first in the list, and
 * the {@code simulated} provider), so the same CLI runs in the image without the sandbox.
 */
@Command(name = "nightshift",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "GitOps reconciler for Kubernetes worker pools.")
public final class Main {

    /** Usage errors exit 2, like invalid input, so scripts need to tell apart only 0, 2 and 3. */
    public static final int EXIT_USAGE = ExitCodes.USAGE;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The command line with the plug-ins found on the class path; also what tests and embedders execute. */
    public static CommandLine commandLine() {
        return commandLine(ServiceLoader.load(Plugin.class).stream().map(ServiceLoader.Provider::get).toList());
    }

    /** The command line with these plug-ins, and its usage-error handling. */
    static CommandLine commandLine(List<Plugin> plugins) {
        CommandLine cli = new CommandLine(new Main());
        plugins.forEach(plugin -> plugin.commands().forEach(cli::addSubcommand));
        List.of(new RunCommand(plugins), new PlanCommand(), new RollingUpdateCommand(plugins), new DiffCommand(), new SimulateCommand(), new WindowsCommand(),
                new PauseCommand.Pause(), new PauseCommand.Resume(), new HistoryCommand(), new CommandLine.HelpCommand()).forEach(cli::addSubcommand);
        cli.setParameterExceptionHandler((ex, a) -> {
            CommandLine c = ex.getCommandLine();
            c.getErr().println(c.getColorScheme().errorText(ex.getMessage()));
            CommandLine.UnmatchedArgumentException.printSuggestions(ex, c.getErr());
            c.getErr().println("Try '" + c.getCommandSpec().qualifiedName() + " --help' for more information.");
            return EXIT_USAGE;
        });
        return cli;
    }
}
