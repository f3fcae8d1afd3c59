package dev.nightshift.agent.manifests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.nightshift.image.BuiltImage;
import dev.nightshift.image.Podman;
import dev.nightshift.image.Registry;

/**
 * Runs the container of an {@link AppliedPod} from the image {@code ./build-image} built in this Maven run
 * ({@link BuiltImage}, shared with ImageIT), as a kubelet would: the image pushed with {@code skopeo copy} to a registry
 * on loopback and named by its digest in the user's overlay, pulled by the reference the applied Deployment names, and
 * run with podman (runc, cgroupfs, no default ulimits: {@link Podman}) with the Deployment's args, env, volumes (the
 * ConfigMap, the Secrets' files and the emptyDirs as {@link AppliedPod} laid them out, with its fsGroup), its user, group
 * and fsGroup, read-only root, no privilege escalation, capabilities and limits. What differs from a pod, and only that:
 * <ul>
 * <li>the network is the host's ({@code --network host}, STACK.md), so that the container reaches the embedded API
 * server, the git daemon and the machine API on 127.0.0.1; so {@code --http-port} with a free port is added after the
 * args, as a pod's own network would let it keep 9400;</li>
 * <li>the API server: {@code KUBECONFIG} names the test's kubeconfig, mounted read-only, for the in-cluster credentials a
 * pod gets (the embedded API server speaks plain HTTP, which in-cluster configuration does not).</li>
 * </ul>
 */
final class PodmanRuntime implements AgentRuntime {

    private static final String KUBECONFIG = "/var/run/nightshift/kubeconfig";

    private Path dir;
    private Podman podman;
    private Registry registry;
    private Image image;

    /** The image in the loopback registry, pushed there the first time it is asked for. */
    @Override
    public synchronized Image image() {
        if (image == null) {
            try {
                BuiltImage built = BuiltImage.get();
                System.out.printf("PodmanRuntime: the image %s in %.1f s (%s)%n", built.digest(), built.buildSeconds(),
                        built.builtHere() ? "built here" : "built by another test of this run");
                dir = Files.createTempDirectory("nightshift-podman-runtime");
                podman = new Podman(dir.resolve("podman"));
                registry = Registry.start(dir.resolve("registry"));
                // docs/operations/image.md: skopeo copy oci-archive:target/nightshift-image.tar docker://REGISTRY/nightshift:TAG
                skopeo("copy", "--quiet", "--dest-tls-verify=false", "oci-archive:" + built.archive(),
                        "docker://" + registry.host() + "/nightshift:install-it");
                image = new Image(registry.host() + "/nightshift", built.digest());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return image;
    }

    @Override
    public Running start(AppliedPod pod, Path kubeconfig, Path log) throws IOException {
        if (!pod.image().equals(image().reference())) {
            throw new AssertionError("the Deployment names the image " + pod.image() + ", not the one built: " + image().reference());
        }
        if (pod.ports().size() != 1) {
            throw new AssertionError("PodmanRuntime maps one port, the agent's --http-port; the container has " + pod.ports());
        }
        String container = "nightshift-install-it-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(4));
        int hostPort = freePort();
        List<String> run = new ArrayList<>(List.of("run", "--rm", "--name", container, "--network", "host", "--pull", "never"));
        AppliedPod.Security security = pod.security();
        security.runAsUser().ifPresent(user -> run.addAll(List.of("--user", user + security.runAsGroup().map(g -> ":" + g).orElse(""))));
        security.fsGroup().filter(g -> !g.equals(security.runAsGroup().orElse(null))).ifPresent(g -> run.addAll(List.of("--group-add",
                g.toString())));
        if (security.readOnlyRootFilesystem()) {
            // podman's --read-only otherwise mounts writable tmpfs on /run, /tmp and /var/tmp, which a pod does not have.
            run.addAll(List.of("--read-only", "--read-only-tmpfs=false"));
        }
        if (!security.allowPrivilegeEscalation()) {
            run.addAll(List.of("--security-opt", "no-new-privileges"));
        }
        security.dropCapabilities().forEach(c -> run.addAll(List.of("--cap-drop", c.toLowerCase())));
        security.addCapabilities().forEach(c -> run.addAll(List.of("--cap-add", c.toLowerCase())));
        pod.memoryLimit().ifPresent(bytes -> run.addAll(List.of("--memory", bytes + "b")));
        pod.cpuLimit().ifPresent(cores -> run.addAll(List.of("--cpus", Double.toString(cores))));
        for (AppliedPod.Mount mount : pod.mounts()) {
            run.addAll(List.of("--volume", mount.hostPath() + ":" + mount.containerPath() + (mount.readOnly() ? ":ro" : "")));
        }
        pod.env().forEach((k, v) -> run.addAll(List.of("--env", k + "=" + v)));
        run.addAll(List.of("--env", "KUBECONFIG=" + KUBECONFIG, "--volume", kubeconfig.toAbsolutePath() + ":" + KUBECONFIG + ":ro"));
        if (!pod.command().isEmpty()) {
            run.addAll(List.of("--entrypoint", pod.command().stream().map(c -> "\"" + c.replace("\"", "\\\"") + "\"")
                    .collect(Collectors.joining(",", "[", "]"))));
        }
        run.add(pod.image());
        run.addAll(pod.args());
        run.addAll(List.of("--http-port", Integer.toString(hostPort)));
        try {
            // What the kubelet does first with imagePullPolicy IfNotPresent on a node that does not have it.
            podman.check(Duration.ofMinutes(3), "pull", "--quiet", "--tls-verify=false", pod.image());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        Process process = podman.start(log, run.toArray(String[]::new));
        return new ProcessRunning(process, log, pod, hostPort) {

            /** {@code podman stop}: SIGTERM (the image's StopSignal), then SIGKILL after terminationGracePeriodSeconds (60). */
            @Override
            public int stop() throws InterruptedException {
                try {
                    podman.run(Duration.ofSeconds(90), "stop", "--time", "60", container);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new AssertionError("podman run did not return after the container stopped");
                }
                return process.exitValue();
            }

            @Override
            public void close() {
                try {
                    if (process.isAlive()) {
                        podman.run(Duration.ofMinutes(1), "rm", "--force", "--time", "5", container);
                        process.waitFor(10, TimeUnit.SECONDS);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    /** Stops the registry, deletes its storage and forgets the image's name in podman (ImageIT may run the same image now: then it stays). */
    @Override
    public synchronized void close() {
        try {
            if (podman != null && image != null) {
                podman.run(Duration.ofMinutes(1), "rmi", image.reference());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (registry != null) {
                registry.close();
            }
            deleteScratch();
        }
    }

    /** The registry's storage (the image's blobs, about 60 MB) and podman's scratch files. */
    private void deleteScratch() {
        if (dir == null) {
            return;
        }
        try (var files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            System.err.println("PodmanRuntime: could not delete " + dir + ": " + e);
        }
    }

    private static void skopeo(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("skopeo"));
        command.addAll(List.of(args));
        Process skopeo = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(skopeo.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!skopeo.waitFor(3, TimeUnit.MINUTES) || skopeo.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + ": " + out);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public String toString() {
        return "podman run " + (image == null ? "(the image of ./build-image)" : image.reference());
    }
}
