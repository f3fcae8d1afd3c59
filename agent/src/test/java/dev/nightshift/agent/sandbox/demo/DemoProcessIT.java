package dev.nightshift.agent.sandbox.demo;

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
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.sandbox.embedded.Kubectl;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * {@code nightshift demo} as a person runs it: the shaded jar in a process of its own, and a real
 * kubectl pointed at the kubeconfig the demo prints. kubectl must be installed (Debian's
 * {@code kubernetes-client}; .ci/run installs it): its absence fails the test, never skips it.
 */
class DemoProcessIT {

    private static final Path JAR = Path.of(System.getProperty("nightshift.jar", "target/nightshift.jar"));
    /** The banner's hint, e.g. {@code (kubectl --kubeconfig /tmp/x/kubeconfig get nodes)}. */
    private static final Pattern KUBECONFIG = Pattern.compile("kubectl --kubeconfig (\\S+) get nodes");
    /** A node of one of the demo's pools; its bastion pool has machines but never nodes. */
    private static final Pattern DEMO_NODE = Pattern.compile("node/(batch|cpu-worker|gpu-worker)-[0-9a-z]+");

    @TempDir
    Path tmp;

    private Process demo;


    @AfterEach
    void killLeftovers() {
        // Only when the test failed before it stopped the demo itself.
        if (demo != null && demo.isAlive()) {
            demo.descendants().forEach(ProcessHandle::destroyForcibly);
            demo.destroyForcibly();
        }
    }

    @Test
    void aRealKubectlListsTheNodesOfARunningDemoAndStoppingItLeavesNothingRunning() throws Exception {
        Path screen = tmp.resolve("demo.out");
        demo = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString(),
                "demo", "--http-port", "0", "--dir", tmp.resolve("demo").toString())
                .redirectErrorStream(true).redirectOutput(screen.toFile()).start();

        Path kubeconfig = await("the demo prints its kubeconfig").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .failFast("the demo exited", () -> !demo.isAlive())
                .until(() -> kubeconfigIn(screen), Optional::isPresent).orElseThrow();

        // The demo starts rolling its pools at once: kubectl's list is bracketed by two reads of the
        // same API, so that a node replaced meanwhile cannot make the test flaky.
        Set<String> before = nodes(kubeconfig);
        Kubectl.Run run = kubectl(kubeconfig, "get", "nodes", "-o", "name");
        Set<String> after = nodes(kubeconfig);

        assertThat(run.exitCode()).as("exit code; stderr: %s; demo: %s", run.stderr(), screen(screen)).isZero();
        List<String> listed = run.stdout().lines().toList();
        assertThat(listed).as("the demo's nodes").isNotEmpty().allMatch(DEMO_NODE.asMatchPredicate());
        Set<String> stable = new HashSet<>(before);
        stable.retainAll(after);
        Set<String> seen = new HashSet<>(before);
        seen.addAll(after);
        assertThat(stable).as("nodes present throughout").isNotEmpty();
        assertThat(listed).containsAll(stable).allMatch(seen::contains);

        List<ProcessHandle> tree = new ArrayList<>(demo.descendants().toList());
        tree.add(demo.toHandle());
        demo.destroy();
        assertThat(demo.waitFor(30, TimeUnit.SECONDS)).as("the demo stops on SIGTERM; demo: %s", screen(screen)).isTrue();
        await("the demo's process and every child gone").atMost(Duration.ofSeconds(30))
                .until(() -> tree.stream().noneMatch(ProcessHandle::isAlive));
        assertThat(kubectl(kubeconfig, "get", "nodes", "-o", "name").exitCode()).as("the demo's API server went with it")
                .isNotZero();
    }

    @Test
    void exitWhenDoneExitsZeroFromTheJarOnceEveryPoolRunsTheBumpedImage() throws Exception {
        Path screen = tmp.resolve("demo.out");
        demo = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString(),
                "demo", "--exit-when-done", "--http-port", "0", "--timeout", "120", "--dir", tmp.resolve("demo").toString())
                .redirectErrorStream(true).redirectOutput(screen.toFile()).start();

        assertThat(demo.waitFor(150, TimeUnit.SECONDS)).as("the demo exits by itself; demo: %s", screen(screen)).isTrue();
        assertThat(demo.exitValue()).as("exit code; demo: %s", screen(screen)).isZero();
        assertThat(screen(screen)).contains("every pool runs gardenlinux 1632.0.0").doesNotContain("FAILED");
    }

    private static Optional<Path> kubeconfigIn(Path screen) throws IOException {
        Matcher m = KUBECONFIG.matcher(screen(screen));
        return m.find() ? Optional.of(Path.of(m.group(1))) : Optional.empty();
    }

    private static String screen(Path screen) throws IOException {
        return Files.exists(screen) ? Files.readString(screen, StandardCharsets.UTF_8) : "";
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
