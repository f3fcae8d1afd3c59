package dev.nightshift.sandbox.embedded;

import static dev.nightshift.sandbox.embedded.Fixtures.NS;
import static dev.nightshift.sandbox.embedded.Fixtures.node;
import static dev.nightshift.sandbox.embedded.Fixtures.readyPod;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

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


    private Kubectl.Run kubectl(String... args) throws IOException, InterruptedException {
        return Kubectl.run(tmp, kubeconfig, args);
    }

    @Test
    void getNodesPrintsTheNodeNames() throws Exception {
        Kubectl.Run run = kubectl("get", "nodes");

        assertThat(run.exitCode()).as("exit code; stderr: %s", run.stderr()).isZero();
        assertThat(run.stdout()).contains("NAME").contains("cpu-worker-1").contains("cpu-worker-2");
    }

    @Test
    void getPodsInAllNamespacesPrintsEveryPod() throws Exception {
        Kubectl.Run run = kubectl("get", "pods", "-A");

        assertThat(run.exitCode()).as("exit code; stderr: %s", run.stderr()).isZero();
        assertThat(run.stdout()).contains("web-1").contains("coredns-1").contains(NS).contains("kube-system");
    }

    @Test
    void getNodesByLabelPrintsOnlyThoseNodes() throws Exception {
        client.nodes().resource(node("gpu-worker-1", Map.of("pool", "gpu"))).create();

        Kubectl.Run run = kubectl("get", "nodes", "-l", "pool=gpu", "-o", "name");

        assertThat(run.exitCode()).as("exit code; stderr: %s", run.stderr()).isZero();
        assertThat(run.stdout().strip()).isEqualTo("node/gpu-worker-1");
    }

    @Test
    void versionReportsTheServersGitVersion() throws Exception {
        Kubectl.Run run = kubectl("version", "-o", "json");

        assertThat(run.exitCode()).as("exit code; stderr: %s", run.stderr()).isZero();
        assertThat(run.stdout()).contains("\"serverVersion\"").contains("\"gitVersion\": \"v1.31.4\"");
    }
}
