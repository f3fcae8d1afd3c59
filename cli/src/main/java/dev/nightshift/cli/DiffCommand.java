package dev.nightshift.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.eta.PoolDurations;
import dev.nightshift.agent.eta.PoolEstimate;
import dev.nightshift.agent.eta.PoolEta;
import dev.nightshift.agent.eta.PoolWork;
import dev.nightshift.agent.eta.RolloutEta;
import dev.nightshift.agent.git.GitSourceException;
import dev.nightshift.agent.git.SpecCommits;
import dev.nightshift.agent.kube.RecordedDurations;
import dev.nightshift.agent.kube.StampedNodes;
import dev.nightshift.agent.run.Agent;
import dev.nightshift.spec.diff.DiffReport;
import dev.nightshift.spec.diff.PoolDecision;
import dev.nightshift.spec.diff.SpecDiff;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecError;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.ObservedNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nightshift diff}: what a change from OLD to NEW means for every pool, how many nodes it
 * touches, and how long that takes in which maintenance windows ({@link RolloutEta}, from now, with
 * the pools' observed durations when {@code --kubeconfig} reaches their status records). The two
 * sides are spec directories ({@code --old}/{@code --new}) or two commits of a repository
 * ({@code --repo}/{@code --to}/{@code --from}), read as the agent reads them. Exit 0 when
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

    @Option(names = "--namespace", paramLabel = "NS", defaultValue = Agent.NAMESPACE,
            description = "With --kubeconfig: the agent's namespace, whose pool status records give the observed durations "
                    + "the ETA uses (default ${DEFAULT-VALUE}).")
    private String namespace;

    /** When the estimate starts: now. */
    private final Clock clock;

    public DiffCommand() {
        this(Clock.systemUTC());
    }

    DiffCommand(Clock clock) {
        this.clock = clock;
    }

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

    /**
     * What --kubeconfig found: the pools' nodes, and the durations their status records keep (or why
     * the records could not be read: the estimate then uses the defaults, and says why).
     */
    private record Live(Map<String, List<ObservedNode>> nodes, Map<String, PoolDurations> durations, Optional<String> recordsUnread) {
    }

    /**
     * Each decision with its impact (counted in the cluster with --kubeconfig, else the spec's
     * minimum–maximum) and its ETA: per cluster of the new side, every pool's work estimated together
     * from now, so that each pool starts when the one before it in role order finishes.
     */
    private List<DiffReview.PoolReview> reviews(DiffReport report, SpecSet after) throws UsageProblem {
        Optional<Live> live = kubernetes.kubeconfig == null ? Optional.empty() : Optional.of(live(after));
        Map<PoolDecision, PoolImpact> impacts = new LinkedHashMap<>();
        for (PoolDecision d : report.pools()) {
            Optional<ResolvedPool> pool = after.resolvedPools(d.cluster()).stream().filter(p -> p.name().equals(d.pool())).findFirst();
            impacts.put(d, live.isEmpty() || pool.isEmpty()
                    ? PoolImpact.fromSpec(d, pool)
                    : PoolImpact.fromCluster(d, pool.get(), live.get().nodes().getOrDefault(d.pool(), List.of())));
        }
        // Whole seconds: the estimate's instants are shown and compared as such.
        Instant now = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        Map<String, RolloutEta.Estimate> estimates = new LinkedHashMap<>();
        for (ClusterSpec c : after.clusters()) {
            // As the Reconciler builds it from the spec it acts on; the validations the agent requires by default.
            DesiredCluster desired = DesiredCluster.of(after, c.name(), AgentConfig.Validation.DEFAULT.consecutive());
            List<PoolWork> work = new ArrayList<>();
            impacts.forEach((d, impact) -> {
                if (d.cluster().equals(c.name()) && impact.nodes() > 0) {
                    PoolWork.of(d.pool(), impact.nodes(), d.action()).ifPresent(work::add);
                }
            });
            if (!work.isEmpty()) {
                estimates.put(c.name(), new RolloutEta().estimate(desired, work,
                        live.map(Live::durations).orElse(Map.of()), now));
            }
        }
        List<DiffReview.PoolReview> reviews = new ArrayList<>();
        impacts.forEach((d, impact) -> reviews.add(new DiffReview.PoolReview(d, impact,
                Optional.ofNullable(estimates.get(d.cluster())).map(e -> eta(d.pool(), e, impact, live)).orElse(PoolEstimate.NONE),
                after.resolvedPools(d.cluster()).stream().filter(p -> p.name().equals(d.pool())).findFirst()
                        .flatMap(p -> WavesLine.of(p.rollout())))));
        return reviews;
    }

    /** The pool's part of its cluster's estimate, with what the diff itself assumed: the node count's and durations' source. */
    private PoolEstimate eta(String pool, RolloutEta.Estimate estimate, PoolImpact impact, Optional<Live> live) {
        Optional<String> leftOut = estimate.leftOut(pool);
        Optional<PoolEta> eta = estimate.pool(pool).map(e -> {
            List<String> assumed = new ArrayList<>();
            if (impact.source() == PoolImpact.Source.SPEC) {
                assumed.add("node count from the spec: its maximum (give --kubeconfig to count the nodes outdated in the cluster)");
            }
            if (live.isEmpty()) {
                assumed.add("default durations: the pools' observed durations are read only with --kubeconfig");
            } else {
                live.get().recordsUnread().ifPresent(why -> assumed.add("default durations: " + why));
            }
            List<String> assumptions = new ArrayList<>(e.assumptions());
            assumptions.addAll(Math.min(1, assumptions.size()), assumed);
            return e.withAssumptions(assumptions);
        });
        return new PoolEstimate(eta, leftOut, estimate.zone(), estimate.rolls());
    }

    private Live live(SpecSet after) throws UsageProblem {
        if (after.clusters().size() > 1) {
            throw new UsageProblem("the spec holds several clusters: name the one --kubeconfig reaches with --cluster");
        }
        try (KubernetesClient client = kubernetes.client()) {
            Map<String, List<ObservedNode>> nodes = StampedNodes.byPool(client);
            try {
                return new Live(nodes, RecordedDurations.byPool(client, namespace), Optional.empty());
            } catch (RuntimeException e) {
                // Not worth failing the review for (a CI role may only list nodes): the estimate says what it used instead.
                return new Live(nodes, Map.of(), Optional.of("cannot read the pools' status records in namespace " + namespace + ": "
                        + causes(e)));
            }
        } catch (java.io.IOException | RuntimeException e) {
            throw new UsageProblem("cannot list the nodes of the cluster in " + kubernetes.kubeconfig + ": " + causes(e));
        }
    }

    /** fabric8's own message names only the operation; the causes say why (refused, forbidden, unknown host). */
    private static String causes(Exception e) {
        List<String> why = new ArrayList<>();
        for (Throwable t = e; t != null && why.size() < 4; t = t.getCause() == t ? null : t.getCause()) {
            why.add(t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage().replaceAll("\\s+", " ").strip());
        }
        return String.join(": ", why);
    }

    private SpecSet only(SpecSet specs) {
        return cluster == null ? specs : specs.onlyCluster(cluster);
    }

    private int usageError(String message) {
        spec.commandLine().getErr().println(message);
        return Main.EXIT_USAGE;
    }
}
