package dev.nightshift.agent.git;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A real {@code git daemon} on loopback serving bare repositories under a base directory. Its
 * upload-pack children trace every packet they receive, so tests can count the fetches the server
 * saw ({@code want} lines) rather than trust the client's own bookkeeping.
 */
public final class GitDaemon implements AutoCloseable {

    private final Process process;
    private final Path trace;
    private final int port;

    public GitDaemon(Path base) throws IOException {
        this.port = freePort();
        this.trace = base.resolveSibling(base.getFileName() + "-trace.log");
        ProcessBuilder pb = new ProcessBuilder("git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack",
                "--base-path=" + base, "--listen=127.0.0.1", "--port=" + port, base.toString());
        pb.environment().put("GIT_TRACE_PACKET", trace.toString());
        pb.redirectErrorStream(true).redirectOutput(base.resolveSibling("daemon.log").toFile());
        this.process = pb.start();
        await().atMost(Duration.ofSeconds(20)).until(this::accepting);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private boolean accepting() {
        try {
            new Socket("127.0.0.1", port).close();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public String url(String repository) {
        return "git://127.0.0.1:" + port + "/" + repository;
    }

    /** Objects the server was asked to send, over every fetch so far. */
    public long wants() throws IOException {
        if (!Files.exists(trace)) {
            return 0;
        }
        List<String> lines = Files.readAllLines(trace);
        return lines.stream().filter(l -> l.contains("< want ")).count();
    }

    /**
     * Stops the daemon and its upload-pack children and waits for them to exit: a child still tracing a fetch after this
     * returns would write into a directory the test is deleting (JUnit's {@code @TempDir} then fails the test).
     */
    @Override
    public void close() {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(process.toHandle());
        tree.forEach(ProcessHandle::destroy);
        for (ProcessHandle member : tree) {
            try {
                member.onExit().get(10, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                member.destroyForcibly();
            } catch (ExecutionException e) {
                throw new IllegalStateException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
