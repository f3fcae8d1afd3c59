package dev.nightshift.sandbox.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.sandbox.embedded.Kubectl;

/**
 * {@code nightshift demo --provider cluster-api} from the shaded jar: while it runs a real kubectl lists its Cluster API
 * objects, Machines with their nodes, and after the image bump the Jobs that restart the kubelets.
 */
class ClusterApiDemoProcessIT {

    /** A Machine of the example's MachineDeployment, then its node's name. */
    private static final Pattern MACHINE_WITH_NODE = Pattern.compile("capi-demo-md-0-[a-z0-9]+-[a-z0-9]+ ip-10-0-[0-9]+-[0-9]+");

    @TempDir
    Path tmp;

    @AutoClose
    private DemoProcess demo;

    /**
     * One run of the story through its first two chapters (the image bump, then the Kubernetes patch): a second run
     * with {@code --exit-when-done} would end at the bump, and how the demo ends on its own is
     * {@code DemoProcessIT}'s case.
     */
    @Test
    void kubectlListsTheMachinesWithTheirNodesAndAfterTheImageBumpTheKubeletRestartsJobs() throws Exception {
        demo = DemoProcess.start(tmp, "--provider", "cluster-api", "--http-port", "0", "--timeout", "120");

        Path kubeconfig = demo.awaitKubeconfig();
        assertThat(demo.screen()).as("the banner").contains("get jobs -n nightshift-node-updates");
        Kubectl.Run machines = Kubectl.run(tmp, kubeconfig, "get", "machines", "-o",
                "custom-columns=NAME:.metadata.name,NODE:.status.nodeRef.name", "--no-headers");
        Kubectl.Run kinds = Kubectl.run(tmp, kubeconfig, "get", "machinedeployments,machinesets,machines", "-o", "name");

        assertThat(machines.exitCode()).as("kubectl get machines; stderr: %s", machines.stderr()).isZero();
        assertThat(machines.stdout().lines().map(String::trim).map(l -> l.replaceAll("\\s+", " ")).filter(MACHINE_WITH_NODE.asMatchPredicate()))
                .as("Machines with a node: %s", machines.stdout()).isNotEmpty();
        assertThat(kinds.stdout()).contains("machinedeployment.cluster.x-k8s.io/capi-demo-md-0", "machineset.cluster.x-k8s.io/",
                "machine.cluster.x-k8s.io/");

        await("the Kubernetes patch pushed").atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(500))
                .failFast("the demo exited", () -> !demo.process().isAlive())
                .until(() -> demo.screen().contains("Kubernetes patch 1.31.5"));
        assertThat(demo.screen()).as("the image bump's chapter ended before the patch")
                .contains("every Machine of capi-demo-md-0 runs kindest-node 1.31.5").contains("lowered capi-demo-md-0's replicas to 3");
        List<String> jobs = await("kubectl lists the kubelet restarts' Jobs").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(1)).failFast("the demo exited", () -> !demo.process().isAlive())
                .until(() -> Kubectl.run(tmp, kubeconfig, "get", "jobs", "-n", "nightshift-node-updates", "-o", "name").stdout().lines()
                        .map(String::trim).filter(l -> l.startsWith("job.batch/nightshift-kubelet-")).toList(), l -> !l.isEmpty());
        assertThat(jobs).as("kubelet restart Jobs of the demo's nodes").allMatch(j -> j.matches("job\\.batch/nightshift-kubelet-ip-10-0-.*"));
        assertThat(demo.screen()).doesNotContain("FAILED");
    }
}
