package dev.nightshift.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.nightshift.cli.JavaCommand;

/**
 * {@code nightshift run --provider http} from the built jar, in a process of its own, pointed at a
 * {@code sandbox --no-agent}: the Kubernetes API by its kubeconfig, the spec repository by its
 * {@code file://} URL, the machine API by its URL and token file. It polls Git every 2 s and keeps
 * its Git cache in a directory the caller gives, so that an agent started after a crash finds what
 * the crashed one left there, as a restarted container finds its {@code emptyDir}. Or
 * ({@link #startWithConfig}) {@code nightshift run --config} with the configuration file the sandbox
 * wrote, whatever its provider (the Git cache is then the one that file names).
 */
final class AgentProcess implements AutoCloseable {

    private final Process process;
    private final Path screen;
    private volatile boolean killed;

    private AgentProcess(Process process, Path screen) {
        this.process = process;
        this.screen = screen;
    }

    /** Starts the agent for {@code cluster} of the sandbox {@code info} describes, its output in {@code screen}. */
    static AgentProcess start(SandboxProcess.Info info, String cluster, Path cacheDir, Path screen) throws IOException {
        List<String> command = JavaCommand.jar(SandboxProcess.JAR);
        command.addAll(List.of("run", "--provider", "http", "--machine-api-url", info.machineApi().toString(),
                "--machine-api-token-file", info.machineApiTokenFile().toString(), "--kubeconfig", info.kubeconfig().toString(),
                "--repo", info.repository().toUri().toString(), "--cluster", cluster, "--http-port", "0", "--poll-interval", "2s",
                "--cache-dir", cacheDir.toString()));
        Files.createDirectories(screen.toAbsolutePath().getParent());
        return new AgentProcess(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(screen.toFile()).start(), screen);
    }

    /**
     * Starts {@code nightshift run --config FILE --kubeconfig KUBECONFIG} with the configuration file the sandbox
     * {@code info} describes wrote ({@code sandbox --no-agent --spec DIR}: the repository, cluster, provider, a free HTTP
     * port and a Git cache in the sandbox's directory), its output in {@code screen}.
     */
    static AgentProcess startWithConfig(SandboxProcess.Info info, Path screen) throws IOException {
        assertThat(info.agentConfig()).as("the agent configuration the sandbox wrote (--info key agentConfig)").isNotNull().exists();
        List<String> command = JavaCommand.jar(SandboxProcess.JAR);
        command.addAll(List.of("run", "--config", info.agentConfig().toString(), "--kubeconfig", info.kubeconfig().toString()));
        Files.createDirectories(screen.toAbsolutePath().getParent());
        return new AgentProcess(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(screen.toFile()).start(), screen);
    }

    boolean alive() {
        return process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    /** Sends SIGKILL and returns at once (from a watch's thread); {@link #kill()} then waits for the end. */
    void sigkill() {
        killed = true;
        process.destroyForcibly();
    }

    /** Whether it ended other than by the test's SIGKILL: it crashed or exited by itself. */
    boolean endedByItself() {
        return !killed && !process.isAlive();
    }

    /**
     * Kills it with SIGKILL ({@link Process#destroyForcibly()} on Linux): no shutdown hook, no
     * {@code finally}, no request finished. Returns once the process is gone, failing if it is not
     * within 10 s.
     */
    void kill() throws InterruptedException {
        sigkill();
        assertThat(process.waitFor(10, TimeUnit.SECONDS)).as("agent process %d gone after SIGKILL", process.pid()).isTrue();
        assertThat(ProcessHandle.of(process.pid()).filter(ProcessHandle::isAlive)).as("agent process %d", process.pid()).isEmpty();
        // 128 + SIGKILL (9): it was killed, it did not exit by itself
        assertThat(process.exitValue()).as("exit status of agent process %d", process.pid()).isEqualTo(137);
    }

    /** The last {@code n} lines it printed. */
    String tail(int n) throws IOException {
        if (!Files.exists(screen)) {
            return "";
        }
        List<String> lines = Files.readString(screen, StandardCharsets.UTF_8).lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    }

    /** Kills it if it still runs (a test that failed before killing it itself). */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
