package dev.nightshift.agent.git;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.errors.RevisionSyntaxException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.revwalk.filter.RevFilter;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.TreeWalk;

import dev.nightshift.spec.load.SpecLoader;

/**
 * The spec files of any commit of a repository, for {@code nightshift diff --repo}: read-only and
 * straight from the commits' trees, never checked out. A local path (a clone, a bare repository or
 * a linked worktree) is opened where it is; a URL is cloned bare into a temporary directory that
 * {@link #close()} removes. The agent's own reading ({@link GitSource}) keeps a long-lived cache
 * and fetches one ref; this reads many revisions once, so the two share only the rules: the spec
 * directory is a tree of the commit, and only {@code *.yaml}/{@code *.yml} files below it count.
 */
public final class SpecCommits implements AutoCloseable {

    /** {@code scheme://…} or scp-like {@code user@host:path}; anything else is a local path. */
    private static final Pattern URL = Pattern.compile("[a-zA-Z][a-zA-Z0-9+.-]*://.*|[^/\\s]+@[^/\\s:]+:.*");

    private static final String ORIGIN_HEAD = Constants.R_REMOTES + Constants.DEFAULT_REMOTE_NAME + "/" + Constants.HEAD;

    private final Repository repository;
    private final String described;
    private final Optional<Path> clone;

    private SpecCommits(Repository repository, String described, Optional<Path> clone) {
        this.repository = repository;
        this.described = described;
        this.clone = clone;
    }

    /**
     * Opens a local repository, or clones a URL bare (branches and tags) into a new directory under
     * {@code tempParent}.
     *
     * @throws GitSourceException when there is no repository at the path, or the URL cannot be cloned
     */
    public static SpecCommits open(String pathOrUrl, Path tempParent) throws GitSourceException {
        if (URL.matcher(pathOrUrl).matches()) {
            return cloned(pathOrUrl, tempParent);
        }
        Path local = Path.of(pathOrUrl).toAbsolutePath();
        if (!Files.isDirectory(local)) {
            // Else the search upwards would find whatever repository encloses the missing path.
            throw new GitSourceException("no such directory: " + pathOrUrl, null);
        }
        FileRepositoryBuilder builder = new FileRepositoryBuilder().findGitDir(local.toFile());
        if (builder.getGitDir() == null) {
            throw new GitSourceException("not a Git repository (or inside one): " + pathOrUrl, null);
        }
        try {
            return new SpecCommits(builder.setMustExist(true).build(), pathOrUrl, Optional.empty());
        } catch (IOException | IllegalArgumentException e) {
            throw new GitSourceException("cannot open the Git repository " + pathOrUrl + ": " + e.getMessage(), e);
        }
    }

    private static SpecCommits cloned(String url, Path tempParent) throws GitSourceException {
        Path dir;
        try {
            dir = Files.createTempDirectory(tempParent, "nightshift-diff-");
        } catch (IOException e) {
            throw new GitSourceException("cannot create a directory to clone " + url + " into: " + e.getMessage(), e);
        }
        try (Git git = Git.cloneRepository().setURI(url).setBare(true).setDirectory(dir.toFile()).call()) {
            // Cloned bare, the remote's branches are refs/heads/* and HEAD names the remote's default branch.
            return new SpecCommits(new FileRepositoryBuilder().setGitDir(dir.toFile()).setMustExist(true).build(), url,
                    Optional.of(dir));
        } catch (GitAPIException | IOException | RuntimeException e) {
            delete(dir);
            throw new GitSourceException("cannot clone " + url + ": " + e.getMessage(), e);
        }
    }

    /** The repository as the user named it. */
    public String describe() {
        return described;
    }

    /**
     * The commit a revision names: a branch, tag, commit (abbreviated or not) or any expression
     * {@code git rev-parse} takes, such as {@code main~2} or {@code origin/main}.
     *
     * @throws GitSourceException when it names nothing in the repository, or something that is not a commit
     */
    public String commit(String revision) throws GitSourceException {
        try {
            ObjectId id = repository.resolve(revision + "^{commit}");
            if (id != null) {
                return id.name();
            }
        } catch (RevisionSyntaxException | IOException e) {
            throw new GitSourceException("no revision \"" + revision + "\" in " + described + " (" + e.getMessage() + ")", e);
        }
        throw new GitSourceException("no revision \"" + revision + "\" in " + described
                + ": name a branch, tag or commit it holds (a shallow clone may lack it: fetch with full history)", null);
    }

    /**
     * The ref of the repository's default branch: {@code refs/remotes/origin/HEAD} where it exists
     * (what {@code git clone} sets), else the branch HEAD is on (a bare clone's HEAD is the remote's
     * default branch).
     *
     * @throws GitSourceException when neither is there: HEAD detached and no {@code origin/HEAD}
     */
    public String defaultBranch() throws GitSourceException {
        try {
            Ref originHead = repository.exactRef(ORIGIN_HEAD);
            if (originHead != null && originHead.isSymbolic()) {
                return originHead.getTarget().getName();
            }
            Ref head = repository.exactRef(Constants.HEAD);
            if (head != null && head.isSymbolic()) {
                return head.getTarget().getName();
            }
        } catch (IOException e) {
            throw new GitSourceException("cannot read the refs of " + described + ": " + e.getMessage(), e);
        }
        throw new GitSourceException("cannot tell the default branch of " + described + ": HEAD is detached and there is no "
                + ORIGIN_HEAD + "; give --from, or set it with: git remote set-head origin BRANCH", null);
    }

    /**
     * The best common ancestor of two commits, as {@code git merge-base} gives it (the first one
     * where there are several).
     *
     * @throws GitSourceException when they have none
     */
    public String mergeBase(String a, String b) throws GitSourceException {
        try (RevWalk walk = new RevWalk(repository)) {
            walk.setRevFilter(RevFilter.MERGE_BASE);
            walk.markStart(walk.parseCommit(ObjectId.fromString(a)));
            walk.markStart(walk.parseCommit(ObjectId.fromString(b)));
            RevCommit base = walk.next();
            if (base == null) {
                throw new GitSourceException("commits " + a + " and " + b + " of " + described
                        + " have no common ancestor; give --from", null);
            }
            return base.name();
        } catch (IOException e) {
            throw new GitSourceException("cannot find the merge-base of " + a + " and " + b + ": " + e.getMessage(), e);
        }
    }

    /**
     * The spec files of a commit below {@code path} (empty for the root), by path relative to it;
     * empty when the commit has no such directory.
     */
    public Optional<Map<String, byte[]>> specFiles(String commit, String path) throws GitSourceException {
        Map<String, byte[]> files = new TreeMap<>();
        try (RevWalk walk = new RevWalk(repository); ObjectReader reader = repository.newObjectReader()) {
            ObjectId tree = walk.parseCommit(ObjectId.fromString(commit)).getTree();
            String dir = path.replaceAll("^/+|/+$", "");
            if (!dir.isEmpty()) {
                try (TreeWalk sub = TreeWalk.forPath(repository, dir, tree)) {
                    if (sub == null || !sub.isSubtree()) {
                        return Optional.empty();
                    }
                    tree = sub.getObjectId(0);
                }
            }
            try (TreeWalk walkFiles = new TreeWalk(reader)) {
                walkFiles.addTree(tree);
                walkFiles.setRecursive(true);
                while (walkFiles.next()) {
                    String name = walkFiles.getPathString();
                    if (name.endsWith(".yaml") || name.endsWith(".yml")) {
                        ObjectId blob = walkFiles.getObjectId(0);
                        // A file over the limit is not read: as many bytes as one over it make the loader refuse it by its size.
                        files.put(name, reader.getObjectSize(blob, Constants.OBJ_BLOB) > SpecLoader.MAX_FILE_BYTES
                                ? new byte[(int) SpecLoader.MAX_FILE_BYTES + 1] : reader.open(blob).getBytes());
                    }
                }
            }
        } catch (IOException e) {
            throw new GitSourceException("cannot read commit " + commit + " of " + described + ": " + e.getMessage(), e);
        }
        return Optional.of(files);
    }

    @Override
    public void close() {
        repository.close();
        clone.ifPresent(SpecCommits::delete);
    }

    private static void delete(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the temporary clone " + dir, e);
        }
    }
}
