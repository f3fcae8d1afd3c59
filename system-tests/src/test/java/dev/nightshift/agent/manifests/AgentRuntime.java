package dev.nightshift.agent.manifests;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;

/**
 * What runs the agent's container of an {@link AppliedPod}: the seam between InstallIT, which applies the manifests
 * and reads back what a kubelet would be given, and the thing that runs. {@link JarRuntime} runs
 * {@code cli/target/nightshift.jar} as the image's entrypoint would (quick, without podman); {@link PodmanRuntime}
 * runs the image itself, as the kubelet would.
 */
interface AgentRuntime extends AutoCloseable {

    /** The image the user's overlay sets ({@code images:} {@code newName} and {@code digest}), which the Deployment then names. */
    record Image(String name, String digest) {

        /** {@code name@digest}, as kustomize writes it into the Deployment. */
        String reference() {
            return name + "@" + digest;
        }
    }

    /** The image to set in the overlay: what this runtime runs when the Deployment names it. */
    Image image();

    /**
     * Starts the container of {@code pod}, as its Deployment describes it, against the API server {@code kubeconfig}
     * points at (what the pod's ServiceAccount token and {@code KUBERNETES_SERVICE_HOST} give it in a cluster); its
     * output goes to {@code log}.
     */
    Running start(AppliedPod pod, Path kubeconfig, Path log) throws IOException;

    /** Frees what it holds for all its containers (a registry, an image's name); nothing by default. */
    @Override
    default void close() {
    }

    /** A started container. */
    interface Running extends AutoCloseable {

        /** Where this machine reaches the container's port {@code name}, e.g. {@code http://127.0.0.1:41234}. */
        URI port(String name);

        boolean alive();

        /** Stops it as the kubelet does (SIGTERM) and waits for it to exit; returns its exit code. */
        int stop() throws InterruptedException;

        /** The last {@code lines} lines it printed. */
        String tail(int lines) throws IOException;

        /** Kills it if it still runs. */
        @Override
        void close();
    }

    /**
     * A container run as a local process ({@code java -jar} or {@code podman run}) whose one port is published on the
     * loopback at {@code hostPort} and whose output goes to {@code log}: what both runtimes share; how it stops is theirs.
     */
    abstract class ProcessRunning implements Running {

        protected final Process process;
        private final Path log;
        private final String portName;
        private final URI url;

        protected ProcessRunning(Process process, Path log, AppliedPod pod, int hostPort) {
            this.process = process;
            this.log = log;
            this.portName = pod.ports().keySet().iterator().next();
            this.url = URI.create("http://127.0.0.1:" + hostPort);
        }

        @Override
        public URI port(String name) {
            if (!name.equals(portName)) {
                throw new IllegalArgumentException("the container has port " + portName + ", not " + name);
            }
            return url;
        }

        @Override
        public boolean alive() {
            return process.isAlive();
        }

        @Override
        public String tail(int lines) throws IOException {
            java.util.List<String> all = java.nio.file.Files.exists(log)
                    ? java.nio.file.Files.readAllLines(log, java.nio.charset.StandardCharsets.UTF_8) : java.util.List.of();
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        }
    }
}
