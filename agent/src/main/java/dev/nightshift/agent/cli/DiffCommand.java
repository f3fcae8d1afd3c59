package dev.nightshift.agent.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import dev.nightshift.spec.diff.DiffReport;
import dev.nightshift.spec.diff.SpecDiff;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.SpecSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nightshift diff}: what a change from OLD to NEW means for every pool. Exit 0 when both
 * sides are valid, 3 when a change is rejected, 2 for invalid input or usage.
 */
@Command(name = "diff", mixinStandardHelpOptions = true,
        description = {"Decide what a spec change means for every worker pool, and why.",
                "Actions: ROLL, IN_PLACE, KUBELET_RESTART, PROPAGATE, NONE, CREATE, DELETE, REJECTED.",
                "Exit codes: 0 valid, 3 a change is rejected, 2 invalid input or usage."})
public final class DiffCommand implements Callable<Integer> {

    public static final int EXIT_REJECTED = 3;

    @Spec
    private CommandSpec spec;

    @Option(names = "--old", required = true, paramLabel = "OLD", description = "Spec file or directory before the change.")
    private Path oldPath;

    @Option(names = "--new", required = true, paramLabel = "NEW", description = "Spec file or directory after the change.")
    private Path newPath;

    @Option(names = "--cluster", paramLabel = "NAME", description = "Only this cluster's pools.")
    private String cluster;

    @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "text", description = "text or json (default ${DEFAULT-VALUE}).")
    private OutputFormat output;

    @Override
    public Integer call() {
        SpecLoader loader = new SpecLoader();
        LoadResult before = loader.load(oldPath);
        LoadResult after = loader.load(newPath);
        List<SideError> errors = new ArrayList<>();
        before.errors().forEach(e -> errors.add(new SideError("old", e)));
        after.errors().forEach(e -> errors.add(new SideError("new", e)));
        if (cluster != null && errors.isEmpty()
                && before.specs().cluster(cluster).isEmpty() && after.specs().cluster(cluster).isEmpty()) {
            return usageError("no cluster named \"" + cluster + "\" in OLD or NEW");
        }
        DiffReport report = errors.isEmpty()
                ? new SpecDiff().diff(only(before.specs()), only(after.specs()))
                : new DiffReport(List.of());
        PrintWriter out = spec.commandLine().getOut();
        if (output == OutputFormat.json) {
            out.println(DiffJson.write(report, errors));
        } else {
            DiffTable.print(report, errors, out);
        }
        out.flush();
        if (!errors.isEmpty()) {
            return Main.EXIT_USAGE;
        }
        return report.anyRejected() ? EXIT_REJECTED : 0;
    }

    private SpecSet only(SpecSet specs) {
        return cluster == null ? specs : specs.onlyCluster(cluster);
    }

    private int usageError(String message) {
        spec.commandLine().getErr().println(message);
        return Main.EXIT_USAGE;
    }
}
