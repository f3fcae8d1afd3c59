package dev.nightshift.agent.sandbox.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.sandbox.embedded.Kubectl;

/**
 * {@code nightshift demo --provider cluster-api --exit-when-done} from the shaded jar: it exits 0,
 * and while it runs a real kubectl lists its Cluster API objects, Machines with their nodes.
 */
class ClusterApiDemoProcessIT {

    private static final Path JAR = Path.of(System.getProperty("nightshift.jar", "target/nightshift.jar"));
    private static final Pattern KUBECONFIG = Pattern.compile("kubectl --kubeconfig (\\S+) get machinedeployments,machinesets,machines");
    /** A Machine of the example's MachineDeployment, then its node's name. */
    private static final Pattern MACHINE_WITH_NODE = Pattern.compile("capi-demo-md-0-[a-z0-9]+-[a-z0-9]+ ip-10-0-[0-9]+-[0-9]+");

    @TempDir
    Path tmp;

    private Process demo;

    @AfterEach
    void killLeftovers() {
        if (demo != null && demo.isAlive()) {
            demo.descendants().forEach(ProcessHandle::destroyForcibly);
            demo.destroyForcibly();
        }
    }

    @Test
    void theClusterApiDemoExitsZeroAndKubectlListsItsMachinesWithTheirNodesMeanwhile() throws Exception {
        Path screen = tmp.resolve("demo.out");
        demo = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString(),
                "demo", "--provider", "cluster-api", "--exit-when-done", "--http-port", "0", "--timeout", "120",
                "--dir", tmp.resolve("demo").toString())
                .redirectErrorStream(true).redirectOutput(screen.toFile()).start();

        Path kubeconfig = await("the demo prints its kubeconfig").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .failFast("the demo exited", () -> !demo.isAlive())
                .until(() -> kubeconfigIn(screen), Optional::isPresent).orElseThrow();
        Kubectl.Run machines = Kubectl.run(tmp, kubeconfig, "get", "machines", "-o",
                "custom-columns=NAME:.metadata.name,NODE:.status.nodeRef.name", "--no-headers");
        Kubectl.Run kinds = Kubectl.run(tmp, kubeconfig, "get", "machinedeployments,machinesets,machines", "-o", "name");

        assertThat(machines.exitCode()).as("kubectl get machines; stderr: %s", machines.stderr()).isZero();
        assertThat(machines.stdout().lines().map(String::trim).map(l -> l.replaceAll("\\s+", " ")).filter(MACHINE_WITH_NODE.asMatchPredicate()))
                .as("Machines with a node: %s", machines.stdout()).isNotEmpty();
        assertThat(kinds.stdout()).contains("machinedeployment.cluster.x-k8s.io/capi-demo-md-0", "machineset.cluster.x-k8s.io/",
                "machine.cluster.x-k8s.io/");
        assertThat(demo.waitFor(150, TimeUnit.SECONDS)).as("the demo exits by itself; demo: %s", screen(screen)).isTrue();
        assertThat(demo.exitValue()).as("exit code; demo: %s", screen(screen)).isZero();
        assertThat(screen(screen)).contains("every Machine of capi-demo-md-0 runs kindest-node 1.31.5")
                .contains("lowered capi-demo-md-0's replicas to 3").doesNotContain("FAILED");
    }

    @Test
    void afterTheImageBumpTheKubernetesPatchRestartsTheKubeletsThroughJobsThatKubectlLists() throws Exception {
        Path screen = tmp.resolve("demo.out");
        demo = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString(),
                "demo", "--provider", "cluster-api", "--http-port", "0", "--timeout", "120", "--dir", tmp.resolve("demo").toString())
                .redirectErrorStream(true).redirectOutput(screen.toFile()).start();

        Path kubeconfig = await("the demo prints its kubeconfig").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .failFast("the demo exited", () -> !demo.isAlive())
                .until(() -> kubeconfigIn(screen), Optional::isPresent).orElseThrow();
        assertThat(screen(screen)).as("the banner").contains("get jobs -n nightshift-node-updates");
        await("the Kubernetes patch pushed").atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(500))
                .failFast("the demo exited", () -> !demo.isAlive())
                .until(() -> screen(screen).contains("Kubernetes patch 1.31.5"));
        List<String> jobs = await("kubectl lists the kubelet restarts' Jobs").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(1)).failFast("the demo exited", () -> !demo.isAlive())
                .until(() -> Kubectl.run(tmp, kubeconfig, "get", "jobs", "-n", "nightshift-node-updates", "-o", "name").stdout().lines()
                        .map(String::trim).filter(l -> l.startsWith("job.batch/nightshift-kubelet-")).toList(), l -> !l.isEmpty());
        assertThat(jobs).as("kubelet restart Jobs of the demo's nodes").allMatch(j -> j.matches("job\\.batch/nightshift-kubelet-ip-10-0-.*"));
        assertThat(screen(screen)).doesNotContain("FAILED");
    }

    private static Optional<Path> kubeconfigIn(Path screen) throws IOException {
        Matcher m = KUBECONFIG.matcher(screen(screen));
        return m.find() ? Optional.of(Path.of(m.group(1))) : Optional.empty();
    }

    private static String screen(Path screen) throws IOException {
        return Files.exists(screen) ? Files.readString(screen, StandardCharsets.UTF_8) : "";
    }
}
