package dev.nightshift.agent.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import dev.nightshift.agent.git.GitSourceException;
import dev.nightshift.agent.git.SpecCommits;
import dev.nightshift.agent.kube.StampedNodes;
import dev.nightshift.spec.diff.DiffReport;
import dev.nightshift.spec.diff.PoolDecision;
import dev.nightshift.spec.diff.SpecDiff;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecError;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.strategies.model.ObservedNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nightshift diff}: what a change from OLD to NEW means for every pool, and how many nodes
 * it touches. The two sides are spec directories ({@code --old}/{@code --new}) or two commits of a
 * repository ({@code --repo}/{@code --to}/{@code --from}), read as the agent reads them. Exit 0 when
 * both sides are valid, 3 when a change is rejected, 2 for invalid input or usage.
 */
@Command(name = "diff", mixinStandardHelpOptions = true,
        description = {"Decide what a spec change means for every worker pool, and why.",
                "Compare two spec directories (--old/--new) or two commits of a repository (--repo/--to [--from]).",
                "Actions: ROLL, IN_PLACE, KUBELET_RESTART, PROPAGATE, NONE, CREATE, DELETE, REJECTED.",
                "Exit codes: 0 valid, 3 a change is rejected, 2 invalid input or usage."})
public final class DiffCommand implements Callable<Integer> {

    public static final int EXIT_REJECTED = 3;

    @Spec
    private CommandSpec spec;

    @Mixin
    private KubernetesOptions kubernetes;

    @Option(names = "--old", paramLabel = "OLD", description = "Spec file or directory before the change.")
    private Path oldPath;

    @Option(names = "--new", paramLabel = "NEW", description = "Spec file or directory after the change.")
    private Path newPath;

    @Option(names = "--repo", paramLabel = "PATH_OR_URL",
            description = "Git repository: a local path (opened in place) or a URL (cloned bare into a temporary directory).")
    private String repo;

    @Option(names = "--to", paramLabel = "REV", description = "With --repo: the revision after the change (branch, tag, commit).")
    private String to;

    @Option(names = "--from", paramLabel = "REV",
            description = "With --repo: the revision before the change (default: the merge-base of --to and the default branch).")
    private String from;

    @Option(names = "--path", paramLabel = "DIR", defaultValue = "", description = "With --repo: the spec directory in the repository (default: its root).")
    private String specDir;

    @Option(names = "--cluster", paramLabel = "NAME", description = "Only this cluster's pools.")
    private String cluster;

    @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "text", description = "text, json or markdown (default ${DEFAULT-VALUE}).")
    private DiffFormat output;

    /** The two sides, loaded; or why they could not be. */
    private record Sides(LoadResult before, LoadResult after, List<SideError> errors, Optional<DiffReview.Revisions> revisions) {
    }

    /** A problem with the command line or the repository: printed on stderr, exit 2. */
    private static final class UsageProblem extends Exception {
        UsageProblem(String message) {
            super(message);
        }
    }

    @Override
    public Integer call() {
        Sides sides;
        try {
            sides = repo == null ? fromDirectories() : fromRepository();
        } catch (UsageProblem e) {
            return usageError(e.getMessage());
        }
        LoadResult before = sides.before();
        LoadResult after = sides.after();
        List<SideError> errors = sides.errors();
        if (cluster != null && errors.isEmpty()
                && before.specs().cluster(cluster).isEmpty() && after.specs().cluster(cluster).isEmpty()) {
            return usageError("no cluster named \"" + cluster + "\" in OLD or NEW");
        }
        List<DiffReview.PoolReview> pools;
        if (errors.isEmpty()) {
            DiffReport report = new SpecDiff().diff(only(before.specs()), only(after.specs()));
            try {
                pools = reviews(report, only(after.specs()));
            } catch (UsageProblem e) {
                return usageError(e.getMessage());
            }
        } else {
            pools = List.of();
        }
        DiffReview review = new DiffReview(sides.revisions(), pools, errors);
        PrintWriter out = spec.commandLine().getOut();
        switch (output) {
            case json -> out.println(DiffJson.write(review));
            case markdown -> out.print(DiffMarkdown.write(review));
            case text -> DiffTable.print(review, out);
        }
        out.flush();
        if (!errors.isEmpty()) {
            return Main.EXIT_USAGE;
        }
        return review.anyRejected() ? EXIT_REJECTED : 0;
    }

    private Sides fromDirectories() throws UsageProblem {
        if (to != null || from != null || !specDir.isEmpty()) {
            throw new UsageProblem("--to, --from and --path need --repo");
        }
        if (oldPath == null || newPath == null) {
            throw new UsageProblem("Missing required option: '" + (oldPath == null ? "--old=OLD" : "--new=NEW")
                    + "' (or compare two revisions with --repo and --to)");
        }
        SpecLoader loader = new SpecLoader();
        LoadResult before = loader.load(oldPath);
        LoadResult after = loader.load(newPath);
        return new Sides(before, after, sideErrors(before, after), Optional.empty());
    }

    /** Both sides straight from the commits' trees, loaded as the agent loads a commit. */
    private Sides fromRepository() throws UsageProblem {
        if (oldPath != null || newPath != null) {
            throw new UsageProblem("--old/--new and --repo are mutually exclusive: compare two spec directories, "
                    + "or two revisions of a repository");
        }
        if (to == null) {
            throw new UsageProblem("Missing required option: '--to=REV' (the revision to compare, with --repo)");
        }
        try (SpecCommits commits = SpecCommits.open(repo, Path.of(System.getProperty("java.io.tmpdir")))) {
            String toCommit = commits.commit(to);
            Optional<String> base = Optional.empty();
            String fromCommit;
            if (from != null) {
                fromCommit = commits.commit(from);
            } else {
                base = Optional.of(commits.defaultBranch());
                fromCommit = commits.mergeBase(toCommit, commits.commit(base.get()));
            }
            if (fromCommit.equals(toCommit)) {
                // Most often HEAD is on the branch under review in a repository without origin/HEAD.
                spec.commandLine().getErr().println("note: both sides are commit " + toCommit
                        + base.map(b -> ": " + to + " has no commit that the default branch (" + b + ") lacks; give --from to compare with another")
                        .orElse(""));
            }
            SpecLoader loader = new SpecLoader();
            LoadResult before = load(commits, fromCommit, loader);
            LoadResult after = load(commits, toCommit, loader);
            return new Sides(before, after, sideErrors(before, after),
                    Optional.of(new DiffReview.Revisions(repo, fromCommit, toCommit, base)));
        } catch (GitSourceException e) {
            throw new UsageProblem(e.getMessage());
        }
    }

    private LoadResult load(SpecCommits commits, String commit, SpecLoader loader) throws GitSourceException {
        Optional<Map<String, byte[]>> files = commits.specFiles(commit, specDir);
        if (files.isEmpty()) {
            // As the agent does: a commit without the spec directory is an invalid spec, not an empty one (every pool deleted).
            return new LoadResult(SpecSet.EMPTY, List.of(new SpecError(specDir, 1, 1, "", "no directory \"" + specDir
                    + "\" in commit " + commit)));
        }
        return loader.load(files.get());
    }

    private static List<SideError> sideErrors(LoadResult before, LoadResult after) {
        List<SideError> errors = new ArrayList<>();
        before.errors().forEach(e -> errors.add(new SideError("old", e)));
        after.errors().forEach(e -> errors.add(new SideError("new", e)));
        return errors;
    }

    /** Each decision with its impact: counted in the cluster with --kubeconfig, else the spec's minimum–maximum. */
    private List<DiffReview.PoolReview> reviews(DiffReport report, SpecSet after) throws UsageProblem {
        Map<String, List<ObservedNode>> nodes = kubernetes.kubeconfig == null ? null : liveNodes(after);
        List<DiffReview.PoolReview> reviews = new ArrayList<>();
        for (PoolDecision d : report.pools()) {
            Optional<ResolvedPool> pool = after.resolvedPools(d.cluster()).stream().filter(p -> p.name().equals(d.pool())).findFirst();
            PoolImpact impact = nodes == null || pool.isEmpty()
                    ? PoolImpact.fromSpec(d, pool)
                    : PoolImpact.fromCluster(d, pool.get(), nodes.getOrDefault(d.pool(), List.of()));
            reviews.add(new DiffReview.PoolReview(d, impact));
        }
        return reviews;
    }

    private Map<String, List<ObservedNode>> liveNodes(SpecSet after) throws UsageProblem {
        if (after.clusters().size() > 1) {
            throw new UsageProblem("the spec holds several clusters: name the one --kubeconfig reaches with --cluster");
        }
        try (KubernetesClient client = kubernetes.client()) {
            return StampedNodes.byPool(client);
        } catch (java.io.IOException | RuntimeException e) {
            // fabric8's own message names only the operation; the causes say why (refused, forbidden, unknown host).
            List<String> why = new ArrayList<>();
            for (Throwable t = e; t != null && why.size() < 4; t = t.getCause() == t ? null : t.getCause()) {
                why.add(t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage().replaceAll("\\s+", " ").strip());
            }
            throw new UsageProblem("cannot list the nodes of the cluster in " + kubernetes.kubeconfig + ": " + String.join(": ", why));
        }
    }

    private SpecSet only(SpecSet specs) {
        return cluster == null ? specs : specs.onlyCluster(cluster);
    }

    private int usageError(String message) {
        spec.commandLine().getErr().println(message);
        return Main.EXIT_USAGE;
    }
}
