package dev.nightshift.sandbox.cli;

import dev.nightshift.agent.command.ExitCodes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import dev.nightshift.sandbox.demo.EmbeddedWorld;
import java.util.concurrent.Callable;

import dev.nightshift.sandbox.demo.Demo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code nightshift demo}: the agent at work on an embedded cluster, with nothing installed but the JDK. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Show the agent rolling pools on an embedded cluster, with nothing installed but the JDK.",
                "Starts an embedded Kubernetes API, a simulated cloud and a local Git repository, runs the",
                "agent against them, and pushes spec changes for it to roll out. Ctrl-C to stop.",
                "Exits 1 as soon as the agent reports a failure: a failed node update or",
                "machine, ProgressDeadlineExceeded, a refused or invalid commit (the message",
                "names the pool and the reason). With --exit-when-done: exits 0 once every",
                "pool runs the bumped image, and 1 also when a step exceeds --timeout."})
public final class DemoCommand implements Callable<Integer> {

    @Option(names = "--http-port", defaultValue = "9400", description = "The agent's HTTP port (default ${DEFAULT-VALUE}; 0 for any free port).")
    private int httpPort;

    @Option(names = "--exit-when-done", description = "Stop once the first rollout completes (exit 0) or fails (exit 1).")
    private boolean exitWhenDone;

    @Option(names = "--timeout", defaultValue = "300", paramLabel = "SECONDS", description = "How long one step of the story may take (default ${DEFAULT-VALUE}); a reported failure ends it at once.")
    private long timeoutSeconds;

    @Option(names = "--dir", paramLabel = "DIR", description = "Where to keep the repository, clone and kubeconfig (default: a new temporary directory).")
    private Path dir;

    @Option(names = "--provider", defaultValue = "simulated", paramLabel = "NAME",
            description = "Where the machines come from (default ${DEFAULT-VALUE}): simulated (a cloud in a box), cluster-api"
                    + " (embedded Cluster API controllers, driven through the cluster-api provider; the story of examples/cluster-api),"
                    + " or http (the embedded machine API, called over HTTP by the agent's http provider; the demo's story).")
    private String provider;

    @Option(names = "--agent-config", paramLabel = "FILE",
            description = "An agent-configuration fragment laid over the demo's own: its notifications, validation, webhook and"
                    + " dryRun sections (the rest is the demo's).")
    private Path agentConfig;

    @picocli.CommandLine.Mixin
    private HealthOptions healthOptions = new HealthOptions();

    @picocli.CommandLine.Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    /**
     * The demo tells its story on the terminal itself: the agent's audit lines (INFO by default, for a real cluster's log)
     * would say it all twice. WARN and above still show; {@code NIGHTSHIFT_LOG_LEVEL} set by the user wins.
     */
    private static void quietAgentLog() {
        if (System.getenv("NIGHTSHIFT_LOG_LEVEL") == null
                && org.slf4j.LoggerFactory.getLogger("dev.nightshift") instanceof ch.qos.logback.classic.Logger logger) {
            logger.setLevel(ch.qos.logback.classic.Level.WARN);
        }
    }

    @Override
    public Integer call() throws Exception {
        quietAgentLog();
        EmbeddedWorld.Machines machines;
        try {
            machines = EmbeddedWorld.Machines.of(provider);
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println(e.getMessage());
            return ExitCodes.USAGE;
        }
        java.util.function.UnaryOperator<dev.nightshift.agent.config.AgentConfig> overlay = java.util.function.UnaryOperator.identity();
        if (agentConfig != null) {
            dev.nightshift.agent.config.AgentConfigLoader.Fragment fragment = new dev.nightshift.agent.config.AgentConfigLoader()
                    .fragment(agentConfig);
            if (!fragment.errors().isEmpty()) {
                fragment.errors().forEach(spec.commandLine().getErr()::println);
                return ExitCodes.USAGE;
            }
            overlay = fragment.overlay().orElseThrow();
        }
        try (Demo demo = new Demo(new Demo.Options(httpPort, exitWhenDone, Duration.ofSeconds(timeoutSeconds),
                Optional.ofNullable(dir), machines, overlay), System.out, healthOptions.health())) {
            return demo.run();
        }
    }
}
