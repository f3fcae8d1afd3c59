package dev.nightshift.agent.git;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A working clone driven by the real {@code git} binary, as a user pushing specs would. */
public final class GitWork {

    private final Path dir;

    private GitWork(Path dir) {
        this.dir = dir;
    }

    /** A new bare repository under {@code base} and a clone of it at {@code work}. */
    public static GitWork create(Path base, String name, String remoteUrl, Path work) throws IOException, InterruptedException {
        run(base, "git", "init", "-q", "--bare", "-b", "main", name);
        run(work.getParent(), "git", "clone", "-q", remoteUrl, work.getFileName().toString());
        GitWork w = new GitWork(work);
        w.git("checkout", "-q", "-b", "main");
        return w;
    }

    /** A clone that exists already, such as the demo's. */
    public static GitWork open(Path work) {
        return new GitWork(work);
    }

    public void write(String path, String content) throws IOException {
        Path file = dir.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content, StandardCharsets.UTF_8);
    }

    /** Commits everything and pushes; returns the new commit. */
    public String commitAndPush(String message) throws IOException, InterruptedException {
        git("add", "-A");
        git("-c", "user.email=test@nightshift.dev", "-c", "user.name=test", "commit", "-q", "-m", message);
        git("push", "-q", "origin", "main");
        return head();
    }

    /** Commits everything signed with {@code key} by {@code git commit -S}, and pushes; returns the new commit. */
    public String signedCommitAndPush(String message, SigningKey key) throws IOException, InterruptedException {
        git("add", "-A");
        List<String> command = new ArrayList<>(List.of("-c", "user.email=test@nightshift.dev", "-c", "user.name=test"));
        command.addAll(key.gitConfig());
        command.addAll(List.of("commit", "-S", "-q", "-m", message));
        git(command.toArray(String[]::new));
        git("push", "-q", "origin", "main");
        return head();
    }

    /**
     * A commit of everything on top of {@code signed} that carries {@code signed}'s own signature, written
     * with {@code git hash-object} as an attacker would (the signature is over different content), and
     * pushed; returns it.
     */
    public String forgedCommitAndPush(String signed, String message) throws IOException, InterruptedException {
        git("add", "-A");
        String tree = git("write-tree").strip();
        String raw = git("cat-file", "commit", signed);
        String forged = raw.replaceFirst("(?m)^tree [0-9a-f]{40}$", "tree " + tree)
                .replaceFirst("(?m)^parent [0-9a-f]{40}\n", "")
                .replaceFirst("(?m)^(tree [0-9a-f]{40}\n)", "$1parent " + signed + "\n")
                .replaceFirst("\n\n[^\n]*\n?$", "\n\n" + message + "\n");
        Path file = Files.createTempFile("forged", ".commit");
        Files.writeString(file, forged, StandardCharsets.UTF_8);
        String commit = git("hash-object", "-w", "-t", "commit", file.toString()).strip();
        Files.delete(file);
        git("reset", "-q", "--hard", commit);
        git("push", "-q", "origin", "main");
        return commit;
    }

    /** Moves the annotated tag {@code name}, signed with {@code key}, to HEAD and force-pushes it. */
    public void signedTagAndPush(String name, SigningKey key) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("-c", "user.email=test@nightshift.dev", "-c", "user.name=test"));
        command.addAll(key.gitConfig());
        command.addAll(List.of("tag", "-f", "-s", name, "-m", name));
        git(command.toArray(String[]::new));
        git("push", "-q", "--force", "origin", "refs/tags/" + name);
    }

    public String head() throws IOException, InterruptedException {
        return git("rev-parse", "HEAD").strip();
    }

    /** Resets the branch to an older commit and force-pushes it. */
    public void forcePush(String commit) throws IOException, InterruptedException {
        git("reset", "-q", "--hard", commit);
        git("push", "-q", "--force", "origin", "main");
    }

    void tag(String name) throws IOException, InterruptedException {
        git("tag", "-a", name, "-m", name);
        git("push", "-q", "origin", name);
    }

    public String git(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        return run(dir, command.toArray(String[]::new));
    }

    private static String run(Path cwd, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + ": " + out).isZero();
        return out;
    }
}
