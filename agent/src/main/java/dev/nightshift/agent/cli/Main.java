package dev.nightshift.agent.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code nightshift} command. */
@Command(name = "nightshift",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "GitOps reconciler for Kubernetes worker pools.",
        subcommands = {DemoCommand.class, SandboxCommand.class, RunCommand.class, PlanCommand.class, DiffCommand.class, SimulateCommand.class,
                WindowsCommand.class,
                PauseCommand.Pause.class, PauseCommand.Resume.class,
                CommandLine.HelpCommand.class})
public final class Main {

    /** Usage errors exit 2, like invalid input, so scripts need to tell apart only 0, 2 and 3. */
    public static final int EXIT_USAGE = 2;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The command line with its usage-error handling; also what tests and embedders execute. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Main());
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
