package dev.nightshift.agent.kube.embedded;

import static dev.nightshift.agent.kube.embedded.Fixtures.NS;
import static dev.nightshift.agent.kube.embedded.Fixtures.node;
import static dev.nightshift.agent.kube.embedded.Fixtures.readyPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * A real kubectl against the embedded cluster: what a person running {@code nightshift demo} does. kubectl must be
 * installed (Debian's {@code kubernetes-client}; .ci/run installs it): its absence fails the test, never skips it.
 */
class KubectlIT {

    private final EmbeddedKubernetes cluster = EmbeddedKubernetes.start();
    private final KubernetesClient client = cluster.client();

    @TempDir
    Path tmp;

    private Path kubeconfig;

    /** What a kubectl run printed. */
    private record Run(int exitCode, String stdout, String stderr) {
    }

    @BeforeEach
    void workloads() {
        client.nodes().resource(node("cpu-worker-1", Map.of("pool", "cpu"))).create();
        client.nodes().resource(node("cpu-worker-2", Map.of("pool", "cpu"))).create();
        client.pods().inNamespace(NS).resource(readyPod("web-1", Map.of("app", "web"))).create();
        client.pods().inNamespace("kube-system").resource(readyPod("coredns-1", Map.of("k8s-app", "kube-dns")).edit()
                .editMetadata().withNamespace("kube-system").endMetadata().build()).create();
        kubeconfig = cluster.writeKubeconfig(tmp.resolve("kubeconfig"));
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private static Path kubectl() {
        Optional<Path> found = Optional.ofNullable(System.getenv("PATH")).stream()
                .flatMap(path -> List.of(path.split(File.pathSeparator)).stream())
                .map(dir -> Path.of(dir, "kubectl"))
                .filter(Files::isExecutable)
                .findFirst();
        if (found.isEmpty()) {
            fail("kubectl is not on the PATH: install Debian's kubernetes-client (apt-get install -y kubernetes-client);"
                    + " .ci/run installs it");
        }
        return found.get();
    }

    private Run kubectl(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(kubectl().toString(), "--kubeconfig", kubeconfig.toString(),
                "--cache-dir", tmp.resolve("cache").toString(), "--request-timeout", "20s"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectOutput(tmp.resolve("out").toFile())
                .redirectError(tmp.resolve("err").toFile());
        // A home of its own, so that nothing from the user's ~/.kube takes part or is written to.
        builder.environment().put("HOME", tmp.toString());
        builder.environment().remove("KUBECONFIG");
        Process process = builder.start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("kubectl %s did not finish in 60 s", String.join(" ", args));
        }
        return new Run(process.exitValue(), Files.readString(tmp.resolve("out"), StandardCharsets.UTF_8),
                Files.readString(tmp.resolve("err"), StandardCharsets.UTF_8));
    }

    @Test
    void getNodesPrintsTheNodeNames() throws Exception {
        Run run = kubectl("get", "nodes");

        assertThat(run.exitCode()).as("exit code; stderr: %s", run.stderr()).isZero();
        assertThat(run.stdout()).contains("NAME").contains("cpu-worker-1").contains("cpu-worker-2");
    }

    @Test
    void getPodsInAllNamespacesPrintsEveryPod() throws Exception {
        Run run = kubectl("get", "pods", "-A");

        assertThat(run.exitCode()).as("exit code; stderr: %s", run.stderr()).isZero();
        assertThat(run.stdout()).contains("web-1").contains("coredns-1").contains(NS).contains("kube-system");
    }

    @Test
    void getNodesByLabelPrintsOnlyThoseNodes() throws Exception {
        client.nodes().resource(node("gpu-worker-1", Map.of("pool", "gpu"))).create();

        Run run = kubectl("get", "nodes", "-l", "pool=gpu", "-o", "name");

        assertThat(run.exitCode()).as("exit code; stderr: %s", run.stderr()).isZero();
        assertThat(run.stdout().strip()).isEqualTo("node/gpu-worker-1");
    }

    @Test
    void versionReportsTheServersGitVersion() throws Exception {
        Run run = kubectl("version", "-o", "json");

        assertThat(run.exitCode()).as("exit code; stderr: %s", run.stderr()).isZero();
        assertThat(run.stdout()).contains("\"serverVersion\"").contains("\"gitVersion\": \"v1.31.4\"");
    }
}
