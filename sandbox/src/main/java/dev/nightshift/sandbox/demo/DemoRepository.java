package dev.nightshift.sandbox.demo;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.revwalk.RevCommit;

/**
 * The spec repository of the demo and the sandbox: a bare repository the agent polls, made from
 * the demo spec bundled in the jar (so the demo runs from any directory) or from the files of a
 * directory (the sandbox), and a working clone that the demo, or the user, commits to and pushes
 * from, with {@code git push} working as in any clone.
 */
public final class DemoRepository implements AutoCloseable {

    /** The files of the bundled demo spec, under {@code examples/demo/} in the jar. */
    static final List<String> FILES = List.of("cluster.yaml", "pools/bastion.yaml", "pools/cpu-worker.yaml",
            "pools/gpu-worker.yaml", "pools/batch.yaml");

    private static final PersonIdent AUTHOR = new PersonIdent("nightshift demo", "demo@nightshift.dev");

    private final Path bare;
    private final Path work;
    private final Git git;

    private DemoRepository(Path bare, Path work, Git git) {
        this.bare = bare;
        this.work = work;
        this.git = git;
    }

    /** The files of the demo spec bundled in the jar, by their path in the repository. */
    public static Map<String, byte[]> bundledDemo() throws IOException {
        return bundled("demo", FILES);
    }

    /** The named files of {@code examples/<dir>} as the jar carries them, by their path below it. */
    static Map<String, byte[]> bundled(String dir, List<String> names) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        for (String file : names) {
            try (InputStream in = DemoRepository.class.getResourceAsStream("/examples/" + dir + "/" + file)) {
                if (in == null) {
                    throw new IOException("the jar lacks examples/" + dir + "/" + file);
                }
                files.put(file, in.readAllBytes());
            }
        }
        return files;
    }

    /**
     * Every regular file below {@code dir} (a {@code .git} directory aside), by its path relative
     * to it with {@code /} separators; a single file stands at the repository's root.
     */
    public static Map<String, byte[]> filesOf(Path dir) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        if (Files.isRegularFile(dir)) {
            files.put(dir.getFileName().toString(), Files.readAllBytes(dir));
            return files;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                Path relative = dir.relativize(file);
                if (!relative.startsWith(".git")) {
                    files.put(StreamSupport.stream(relative.spliterator(), false).map(Path::toString)
                            .collect(Collectors.joining("/")), Files.readAllBytes(file));
                }
            }
        }
        return files;
    }

    /** The repository under {@code dir} ({@code specs.git}, cloned to {@code specs}) holding {@code files} in its first commit. */
    public static DemoRepository create(Path dir, Map<String, byte[]> files, String message) throws IOException, GitAPIException {
        Path bare = dir.resolve("specs.git");
        Path work = dir.resolve("specs");
        Git.init().setBare(true).setInitialBranch("main").setDirectory(bare.toFile()).call().close();
        Git git = Git.cloneRepository().setURI(bare.toUri().toString()).setDirectory(work.toFile()).call();
        git.checkout().setOrphan(true).setName("main").call();
        // A clone of an empty repository tracks nothing: without this, a plain `git push` in the clone fails.
        StoredConfig config = git.getRepository().getConfig();
        config.setString("branch", "main", "remote", "origin");
        config.setString("branch", "main", "merge", "refs/heads/main");
        config.save();
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
            Path target = work.resolve(file.getKey());
            Files.createDirectories(target.getParent());
            Files.write(target, file.getValue());
        }
        DemoRepository repo = new DemoRepository(bare, work, git);
        repo.commitAll(message);
        return repo;
    }

    /** Edits files (path to text transformation), commits and pushes; returns the new commit. */
    public String commit(String message, Map<String, UnaryOperator<String>> edits) throws IOException, GitAPIException {
        for (Map.Entry<String, UnaryOperator<String>> e : edits.entrySet()) {
            Path file = work.resolve(e.getKey());
            String before = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
            Files.createDirectories(file.getParent());
            Files.writeString(file, e.getValue().apply(before), StandardCharsets.UTF_8);
        }
        return commitAll(message);
    }

    private String commitAll(String message) throws GitAPIException {
        git.add().addFilepattern(".").call();
        RevCommit commit = git.commit().setMessage(message).setAuthor(AUTHOR).setCommitter(AUTHOR).setAllowEmpty(true).call();
        git.push().setRemote("origin").add("main").call();
        return commit.getName();
    }

    public URI url() {
        return bare.toUri();
    }

    public Path bare() {
        return bare;
    }

    public Path work() {
        return work;
    }

    @Override
    public void close() {
        git.close();
    }
}
