package dev.nightshift.image;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's {@code podman}, run as it works on these machines (../shared/STACK.md): with {@code runc} (crun fails on
 * this cgroup layout), the {@code cgroupfs} manager, and a containers.conf of its own whose {@code default_ulimits} is
 * empty (podman's default RLIMIT_NOFILE cannot be set here).
 */
public final class Podman {

    private final Path containersConf;
    private final Path scratch;

    /** Keeps its containers.conf and the commands' output in {@code dir}. */
    public Podman(Path dir) throws IOException {
        this.scratch = Files.createDirectories(dir);
        this.containersConf = Files.writeString(dir.resolve("containers.conf"), "[containers]\ndefault_ulimits = []\n");
    }

    /** What a command printed (stdout and stderr together) and its exit status. */
    public record Result(List<String> command, int exit, String output) {

        public boolean ok() {
            return exit == 0;
        }
    }

    /** Runs {@code podman ARGS}, killed after {@code timeout}. */
    public Result run(Duration timeout, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("podman", "--runtime", "runc", "--cgroup-manager", "cgroupfs"));
        command.addAll(List.of(args));
        Path output = Files.createTempFile(scratch, "podman", ".out");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().put("CONTAINERS_CONF", containersConf.toString());
        Process process = builder.start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("podman did not finish within " + timeout + ": " + String.join(" ", command) + "\n"
                    + Files.readString(output, StandardCharsets.UTF_8));
        }
        String printed = Files.readString(output, StandardCharsets.UTF_8);
        Files.delete(output);
        return new Result(command, process.exitValue(), printed);
    }

    /** Starts {@code podman ARGS} (e.g. a {@code run} in the foreground), its output going to {@code log}; does not wait. */
    public Process start(Path log, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("podman", "--runtime", "runc", "--cgroup-manager", "cgroupfs"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("CONTAINERS_CONF", containersConf.toString());
        return builder.start();
    }

    /** Runs {@code podman ARGS} and returns what it printed; fails, with the command and its output, unless it exits 0. */
    public String check(Duration timeout, String... args) throws IOException, InterruptedException {
        Result result = run(timeout, args);
        if (!result.ok()) {
            throw new AssertionError("podman exited " + result.exit() + ": " + String.join(" ", result.command()) + "\n"
                    + result.output());
        }
        return result.output();
    }
}
