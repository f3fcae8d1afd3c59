package dev.nightshift.agent.manifests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs the container of an {@link AppliedPod} as {@code java -jar cli/target/nightshift.jar} (the image's entrypoint
 * runs the same jar) with the container's args and env, and nothing of this machine's environment but {@code PATH}.
 * What a container would have and a process on this machine has not is given in the closest way, and only that:
 * <ul>
 * <li>the container's paths: every path under a mount, in the args, the env and the ConfigMaps' files (the agent's
 * configuration), is rewritten to where {@link AppliedPod} laid the volume out ({@link AppliedPod#rebase});</li>
 * <li>its port: {@code --http-port} with a free port of this machine is added after the args, as a container runtime
 * maps a container port to a host port;</li>
 * <li>its limits: {@code -XX:MaxRAM} and {@code -XX:ActiveProcessorCount} from {@code resources.limits}, which the JVM
 * would read from the container's cgroup;</li>
 * <li>the API server: {@code KUBECONFIG} names the test's kubeconfig, for the in-cluster credentials a pod gets.</li>
 * </ul>
 */
final class JarRuntime implements AgentRuntime {

    private final Path jar;

    JarRuntime(Path jar) {
        this.jar = jar.toAbsolutePath().normalize();
    }

    /** A digest of the jar: what a registry would hold in its place; nothing pulls it. */
    @Override
    public Image image() {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(jar));
            return new Image("registry.example.com/platform/nightshift", "sha256:" + java.util.HexFormat.of().formatHex(digest));
        } catch (IOException e) {
            throw new UncheckedIOException("the jar to run, " + jar + ", cannot be read: build it (mvn -B -o package -DskipTests)", e);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Running start(AppliedPod pod, Path kubeconfig, Path log) throws IOException {
        if (!pod.command().isEmpty()) {
            throw new AssertionError("the Deployment overrides the image's entrypoint with " + pod.command() + "; JarRuntime runs the entrypoint");
        }
        if (pod.ports().size() != 1) {
            throw new AssertionError("JarRuntime maps one port, the agent's --http-port; the container has " + pod.ports());
        }
        // The agent's configuration names files under the mounts: rewrite them where the volumes are.
        for (AppliedPod.Mount mount : pod.mounts()) {
            if (mount.source() == AppliedPod.Source.CONFIG_MAP) {
                try (Stream<Path> files = Files.isDirectory(mount.hostPath()) ? Files.list(mount.hostPath()) : Stream.of(mount.hostPath())) {
                    for (Path file : files.toList()) {
                        Files.writeString(file, pod.rebase(Files.readString(file, StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
                    }
                }
            }
        }
        int hostPort = freePort();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        pod.memoryLimit().ifPresent(bytes -> command.add("-XX:MaxRAM=" + bytes));
        pod.cpuLimit().ifPresent(cores -> command.add("-XX:ActiveProcessorCount=" + (int) Math.max(1, Math.ceil(cores))));
        command.addAll(List.of("-jar", jar.toString()));
        pod.args().forEach(a -> command.add(pod.rebase(a)));
        command.addAll(List.of("--http-port", Integer.toString(hostPort)));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
                .directory(log.getParent().toFile());
        Map<String, String> env = builder.environment();
        String path = env.getOrDefault("PATH", "/usr/bin:/bin");
        env.clear();
        env.put("PATH", path);
        pod.env().forEach((k, v) -> env.put(k, pod.rebase(v)));
        env.put("KUBECONFIG", kubeconfig.toString());
        Process process = builder.start();
        return new ProcessRunning(process, log, pod, hostPort) {

            @Override
            public int stop() throws InterruptedException {
                process.destroy();
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new AssertionError("the agent did not exit within 60 s of SIGTERM (terminationGracePeriodSeconds is 60)");
                }
                return process.exitValue();
            }

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
        };
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public String toString() {
        return "java -jar " + jar;
    }
}
