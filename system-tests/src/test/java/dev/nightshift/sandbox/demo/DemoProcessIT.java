package dev.nightshift.sandbox.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.sandbox.embedded.Kubectl;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * {@code nightshift demo} as a person runs it: the shaded jar in a process of its own, and a real
 * kubectl pointed at the kubeconfig the demo prints. kubectl must be installed (Debian's
 * {@code kubernetes-client}; .ci/run installs it): its absence fails the test, never skips it.
 */
class DemoProcessIT {

    /** A node of one of the demo's pools; its bastion pool has machines but never nodes. */
    private static final Pattern DEMO_NODE = Pattern.compile("node/(batch|cpu-worker|gpu-worker)-[0-9a-z]+");

    @TempDir
    Path tmp;

    @AutoClose
    private DemoProcess demo;

    @Test
    void aRealKubectlListsTheNodesOfARunningDemoAndStoppingItLeavesNothingRunning() throws Exception {
        demo = DemoProcess.start(tmp, "--http-port", "0");

        Path kubeconfig = demo.awaitKubeconfig();

        // The demo starts rolling its pools at once: kubectl's list is bracketed by two reads of the
        // same API, so that a node replaced meanwhile cannot make the test flaky.
        Set<String> before = nodes(kubeconfig);
        Kubectl.Run run = kubectl(kubeconfig, "get", "nodes", "-o", "name");
        Set<String> after = nodes(kubeconfig);

        assertThat(run.exitCode()).as("exit code; stderr: %s; demo: %s", run.stderr(), demo.screen()).isZero();
        List<String> listed = run.stdout().lines().toList();
        assertThat(listed).as("the demo's nodes").isNotEmpty().allMatch(DEMO_NODE.asMatchPredicate());
        Set<String> stable = new HashSet<>(before);
        stable.retainAll(after);
        Set<String> seen = new HashSet<>(before);
        seen.addAll(after);
        assertThat(stable).as("nodes present throughout").isNotEmpty();
        assertThat(listed).containsAll(stable).allMatch(seen::contains);

        List<ProcessHandle> tree = new ArrayList<>(demo.process().descendants().toList());
        tree.add(demo.process().toHandle());
        demo.process().destroy();
        assertThat(demo.process().waitFor(30, TimeUnit.SECONDS)).as("the demo stops on SIGTERM; demo: %s", demo.screen()).isTrue();
        await("the demo's process and every child gone").atMost(Duration.ofSeconds(30))
                .until(() -> tree.stream().noneMatch(ProcessHandle::isAlive));
        assertThat(kubectl(kubeconfig, "get", "nodes", "-o", "name").exitCode()).as("the demo's API server went with it")
                .isNotZero();
    }

    @Test
    void exitWhenDoneExitsZeroFromTheJarOnceEveryPoolRunsTheBumpedImage() throws Exception {
        demo = DemoProcess.start(tmp, "--exit-when-done", "--http-port", "0", "--timeout", "120");

        assertThat(demo.process().waitFor(150, TimeUnit.SECONDS)).as("the demo exits by itself; demo: %s", demo.screen()).isTrue();
        assertThat(demo.process().exitValue()).as("exit code; demo: %s", demo.screen()).isZero();
        assertThat(demo.screen()).contains("every pool runs gardenlinux 1632.0.0").doesNotContain("FAILED");
    }

    /** The node names the API behind {@code kubeconfig} holds now, in kubectl's {@code -o name} form. */
    private static Set<String> nodes(Path kubeconfig) throws IOException {
        Config config = Config.fromKubeconfig(Files.readString(kubeconfig, StandardCharsets.UTF_8));
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
            return client.nodes().list().getItems().stream().map(n -> "node/" + n.getMetadata().getName()).collect(Collectors.toSet());
        }
    }


    private Kubectl.Run kubectl(Path kubeconfig, String... args) throws IOException, InterruptedException {
        return Kubectl.run(tmp, kubeconfig, args);
    }
}
