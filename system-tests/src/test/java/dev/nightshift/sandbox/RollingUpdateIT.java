package dev.nightshift.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.nightshift.cli.JavaCommand;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.agent.run.Agent;
import dev.nightshift.cli.Main;
import dev.nightshift.sandbox.demo.DemoWorkloads;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * {@code nightshift rolling-update} against {@code sandbox --no-agent} (the embedded API server and the machine API, provider
 * {@code http}), judged from the API server's request log (its hidden {@code --kubernetes-request-log}, with each request's
 * User-Agent: the command's is {@code nightshift/…}), the objects it stored, and the machine API's log: the preview writes
 * nothing; an agent's Lease held refuses the run; {@code --instance-group web --yes} replaces only pool web's machines and
 * writes only to its nodes; {@code --cloudonly --yes} replaces batch's machine through the machine API with no Kubernetes
 * request at all, the Lease held or not. Then, flag by flag, with the command run in this JVM (the jar's classes, without
 * a JVM start each): {@code --repo} and {@code --ref} on a {@code git} repository, {@code --instance-group-roles},
 * {@code --node-interval} and {@code --force}, and the drain and validation timeouts with and without
 * {@code --fail-on-*-error}. The scenarios share one sandbox and run in order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RollingUpdateIT {

    private static final String CLUSTER = "ru";
    /**
     * Longer than two replacements are apart without it (cordon, drain, replace, the new node Ready, a validation): 2.2 s
     * measured at load 7 on the 2-core machine, before the flag paced anything.
     */
    private static final Duration NODE_INTERVAL = Duration.ofSeconds(5);
    private static final String CONTROL_PLANE_NODE = "control-plane-1";
    private static final ObjectMapper JSON = new ObjectMapper();

    private Path tmp;

    private SandboxProcess sandbox;
    private Path requestLog;
    private Path newSpec;
    private KubernetesClient kube;
    private MachineApiLogs machineLogs;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        tmp = dir;
        Path oldSpec = writeSpec(tmp.resolve("spec-old"), "1631.0.0");
        newSpec = writeSpec(tmp.resolve("spec-new"), "1632.0.0");
        requestLog = tmp.resolve("kubernetes-requests.jsonl");
        sandbox = SandboxProcess.start(tmp.resolve("run"), oldSpec, "--no-agent", "--kubernetes-request-log", requestLog.toString());
        kube = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(sandbox.info().kubeconfig()))).build();
        machineLogs = new MachineApiLogs(sandbox.info().kubeconfig().getParent());
        org.awaitility.Awaitility.await().atMost(60, TimeUnit.SECONDS).until(() -> kube.nodes().list().getItems().size() == 3
                && machineIds("jump").size() == 1);
    }

    @AfterAll
    void stop() {
        if (kube != null) {
            kube.close();
        }
        if (sandbox != null) {
            sandbox.close();
        }
    }

    @Test
    @Order(1)
    void thePreviewPrintsKopsTableAndWritesNothing() throws Exception {
        long k8s = kubernetesRequests().size();
        long machineApi = machineLogs.requests().size();

        SandboxProcess.Ended run = rollingUpdate();

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(run.stdout()).contains("NAME", "STATUS", "NEEDUPDATE", "READY", "MIN", "TARGET", "MAX", "NODES")
                .containsPattern("web\\s+NeedsUpdate\\s+2\\s+0\\s+2\\s+2\\s+2\\s+2")
                .containsPattern("batch\\s+NeedsUpdate\\s+1\\s+0\\s+1\\s+1\\s+1\\s+1")
                .containsPattern("jump\\s+NeedsUpdate\\s+1\\s+0\\s+1\\s+1\\s+1\\s+0")
                .contains("Must specify --yes to rolling-update.");
        List<JsonNode> commands = kubernetesRequestsSince(k8s).stream()
                .filter(RollingUpdateIT::fromNightshift).toList();
        assertThat(commands).as("the command read the cluster").isNotEmpty();
        assertThat(commands).as("and wrote nothing to it").noneMatch(RollingUpdateIT::write);
        assertThat(machineApiRequestsSince(machineApi))
                .as("nothing written to the machine API").allMatch(r -> r.method().equals("GET"));
    }

    @Test
    @Order(2)
    void anAgentsLeaseHeldRefusesTheRunWithExitTwo() throws Exception {
        holdLease();
        long k8s = kubernetesRequests().size();
        try {
            SandboxProcess.Ended run = rollingUpdate("--yes");

            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.stderr()).contains("an agent holds the Lease nightshift-system/nightshift-leader (nightshift-7d9f-abc)");
            assertThat(kubernetesRequestsSince(k8s).stream()
                    .filter(RollingUpdateIT::fromNightshift).toList()).noneMatch(RollingUpdateIT::write);
        } finally {
            releaseLease();
        }
    }

    @Test
    @Order(3)
    void anInstanceGroupRollsOnlyThatPool() throws Exception {
        Set<String> batchMachines = machineIds("batch");
        Set<String> webMachines = machineIds("web");
        Set<String> batchNodes = nodesOf("batch");
        long k8s = kubernetesRequests().size();
        long machineApi = machineLogs.requests().size();

        SandboxProcess.Ended run = rollingUpdate("--instance-group", "web", "--yes", "--node-interval", "1s");

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        assertThat(run.stdout()).contains("rolling-update done");
        assertThat(machineIds("web")).as("web's machines replaced").hasSize(2).doesNotContainAnyElementsOf(webMachines);
        assertThat(machineIds("batch")).as("batch's left alone").isEqualTo(batchMachines);
        List<MachineApiLogs.Request> writes = machineApiRequestsSince(machineApi).stream()
                .filter(r -> !r.method().equals("GET")).toList();
        assertThat(writes).isNotEmpty().allMatch(r -> batchMachines.stream().noneMatch(m -> r.path().contains(m)));
        List<JsonNode> nodeWrites = kubernetesRequestsSince(k8s).stream()
                .filter(RollingUpdateIT::fromNightshift).filter(RollingUpdateIT::write)
                .filter(r -> r.path("path").asText().startsWith("/api/v1/nodes/")).toList();
        assertThat(nodeWrites).as("cordons and marks").isNotEmpty()
                .noneMatch(r -> batchNodes.stream().anyMatch(n -> r.path("path").asText().startsWith("/api/v1/nodes/" + n)));
    }

    @Test
    @Order(4)
    void cloudOnlyReplacesThroughTheMachineApiWithNoKubernetesRequestEvenWhileTheLeaseIsHeld() throws Exception {
        Set<String> batchMachines = machineIds("batch");
        holdLease();
        long k8s = kubernetesRequests().size();

        SandboxProcess.Ended run;
        try {
            run = rollingUpdate("--instance-group", "batch", "--cloudonly", "--yes", "--node-interval", "0s");
        } finally {
            releaseLease();
        }

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        assertThat(run.stderr()).contains("--cloudonly: no Kubernetes request is made, so whether an agent holds its Lease is not"
                + " checked: stop the agent first");
        assertThat(machineIds("batch")).hasSize(1).doesNotContainAnyElementsOf(batchMachines);
        assertThat(machineLogs.requests()).anyMatch(r -> r.method().equals("POST") && batchMachines.stream()
                .anyMatch(m -> r.path().contains(m)) && r.path().endsWith("/replace"));
        assertThat(kubernetesRequestsSince(k8s))
                .as("no Kubernetes request from the command").noneMatch(RollingUpdateIT::fromNightshift);
    }

    @Test
    @Order(5)
    void repoAndRefRollTheCommitTheyNameAndInstanceGroupRolesOnlyPoolsOfThoseRoles() throws Exception {
        // A branch of the sandbox's repository, made and pushed with git: web and batch to 1633, the bastion jump to 1632.
        writeSpec(sandbox.info().workingClone(), "1633.0.0", "1632.0.0");
        sandbox.git("checkout", "-q", "-b", "bump");
        sandbox.git("add", "-A");
        sandbox.git("commit", "-q", "-m", "web and batch to 1633, the bastion to 1632");
        sandbox.git("push", "-q", "origin", "bump");
        String commit = sandbox.git("rev-parse", "HEAD").strip();
        Set<String> jump = machineIds("jump");
        Set<String> others = new java.util.TreeSet<>(machineIds("web"));
        others.addAll(machineIds("batch"));
        long k8s = kubernetesRequests().size();
        long machineApi = machineLogs.requests().size();

        SandboxProcess.Ended run = inProcess("--repo", sandbox.info().repository().toUri().toString(), "--ref", "bump",
                "--instance-group-roles", "Bastion", "--bastion-interval", "0s", "--yes");

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        assertThat(machineIds("jump")).as("the bastion's machine replaced").hasSize(1).doesNotContainAnyElementsOf(jump);
        assertThat(machineApiRequestsSince(machineApi)).filteredOn(r -> !r.method().equals("GET"))
                .isNotEmpty().allMatch(r -> jump.stream().anyMatch(m -> r.path().contains(m)));
        Set<String> after = new java.util.TreeSet<>(machineIds("web"));
        after.addAll(machineIds("batch"));
        assertThat(after).as("web and batch, outdated at that commit, are of another role: untouched").isEqualTo(others);
        assertThat(kubernetesRequestsSince(k8s)).filteredOn(RollingUpdateIT::fromNightshift)
                .filteredOn(RollingUpdateIT::write).noneMatch(r -> r.path("path").asText().startsWith("/api/v1/nodes"));
        assertThat(PoolStatusRecords.accepted(record("jump"))).as("jump's record names the commit --ref named")
                .hasValueSatisfying(a -> assertThat(a.commit()).isEqualTo(commit));
        assertThat(PoolStatusRecords.accepted(record("web")).map(PoolStatusRecords.Accepted::commit)).isNotEqualTo(Optional.of(commit));
    }

    @Test
    @Order(6)
    void forceReplacesCurrentMachinesTooAndTheNodeIntervalSpacesTheirReplacements() throws Exception {
        Set<String> web = machineIds("web");
        long machineApi = machineLogs.requests().size();

        SandboxProcess.Ended run = inProcess("--spec", newSpec.toString(), "--instance-group", "web", "--force", "--node-interval",
                NODE_INTERVAL.toSeconds() + "s", "--yes");

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        assertThat(machineIds("web")).as("both machines, current at the start, replaced").hasSize(2).doesNotContainAnyElementsOf(web);
        List<MachineApiLogs.Request> replaces = machineApiRequestsSince(machineApi).stream()
                .filter(r -> r.method().equals("POST") && r.path().endsWith("/replace") && r.status() < 300).toList();
        assertThat(replaces).hasSize(2);
        Duration apart = Duration.between(replaces.get(0).time(), replaces.get(1).time());
        System.out.println("rolling-update --node-interval " + NODE_INTERVAL.toSeconds() + "s: replacements " + apart.toMillis() + " ms apart");
        assertThat(apart).as("the second machine's replacement after the first's, with its cordon and drain")
                .isGreaterThanOrEqualTo(NODE_INTERVAL);
    }

    @Test
    @Order(7)
    void aDrainPastTheDrainTimeoutStopsTheRunWithExitOneAndTheNodeIsNotDeleted() throws Exception {
        String node = blockEvictionsFromTheNodeOf("batch");
        Set<String> batch = machineIds("batch");
        long k8s = kubernetesRequests().size();
        long machineApi = machineLogs.requests().size();

        SandboxProcess.Ended run = inProcess("--spec", newSpec.toString(), "--instance-group", "batch", "--force", "--node-interval", "0s", "--drain-timeout", "1s",
                "--yes");

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isEqualTo(1);
        assertThat(run.stderr()).contains("pool batch: the drain of " + node + " took longer than 1s (--drain-timeout); stopping"
                + " (--fail-on-drain-error)");
        assertThat(run.stdout()).contains("rolling-update failed");
        assertThat(kubernetesRequestsSince(k8s)).filteredOn(RollingUpdateIT::fromNightshift)
                .as("its pod's eviction asked for, refused").anyMatch(r -> r.path("path").asText().endsWith("/eviction")
                        && r.path("status").asInt() == 429)
                .noneMatch(r -> r.path("method").asText().equals("DELETE"));
        assertThat(machineApiRequestsSince(machineApi)).as("no machine deleted or replaced")
                .allMatch(r -> r.method().equals("GET"));
        assertThat(machineIds("batch")).isEqualTo(batch);
        assertThat(kube.nodes().withName(node).get().getSpec().getUnschedulable()).as("left cordoned, as kops leaves it").isTrue();
    }

    @Test
    @Order(8)
    void withFailOnDrainErrorFalseADrainPastItsTimeoutIsIgnoredAndTheNodeGoesWithItsPod() throws Exception {
        Set<String> batch = machineIds("batch");
        long k8s = kubernetesRequests().size();
        try {
            SandboxProcess.Ended run = inProcess("--spec", newSpec.toString(), "--instance-group", "batch", "--force", "--node-interval", "0s", "--drain-timeout", "1s",
                    "--fail-on-drain-error=false", "--yes");

            assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
            assertThat(machineIds("batch")).as("replaced though its pod was never evicted").hasSize(1).doesNotContainAnyElementsOf(batch);
            assertThat(kubernetesRequestsSince(k8s)).filteredOn(RollingUpdateIT::fromNightshift)
                    .noneMatch(r -> r.path("path").asText().endsWith("/eviction") && r.path("status").asInt() < 300);
        } finally {
            kube.policy().v1().podDisruptionBudget().inNamespace(DemoWorkloads.NAMESPACE).withName("batch").delete();
            kube.pods().inNamespace(DemoWorkloads.NAMESPACE).withLabel("app", "batch").delete();
        }
    }

    @Test
    @Order(9)
    void aClusterThatDoesNotValidateWithinTheValidationTimeoutStopsTheRunWithExitOneBeforeAnyDisruption() throws Exception {
        notReadyControlPlaneNode();
        String node = nodeOf("batch");
        long machineApi = machineLogs.requests().size();

        SandboxProcess.Ended run = inProcess("--spec", newSpec.toString(), "--instance-group", "batch", "--force", "--node-interval", "0s", "--validation-timeout",
                "1s", "--yes");

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isEqualTo(1);
        assertThat(run.stderr()).contains("pool batch: the cluster did not validate within 1s (--validation-timeout); stopping"
                + " (--fail-on-validate-error)");
        assertThat(machineApiRequestsSince(machineApi)).allMatch(r -> r.method().equals("GET"));
        assertThat(kube.nodes().withName(node).get().getSpec().getUnschedulable()).as("not cordoned").isNotEqualTo(Boolean.TRUE);
    }

    @Test
    @Order(10)
    void withFailOnValidateErrorFalseThePoolsBatchStartsAnywayPastTheValidationTimeout() throws Exception {
        Set<String> batch = machineIds("batch");
        try {
            SandboxProcess.Ended run = inProcess("--spec", newSpec.toString(), "--instance-group", "batch", "--force", "--node-interval", "0s", "--validation-timeout",
                    "1s", "--fail-on-validate-error=false", "--yes");

            assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
            assertThat(machineIds("batch")).as("replaced while the control plane is not Ready").hasSize(1).doesNotContainAnyElementsOf(batch);
            assertThat(kube.nodes().withName(CONTROL_PLANE_NODE).get()).as("still there, still NotReady").isNotNull();
        } finally {
            kube.nodes().withName(CONTROL_PLANE_NODE).delete();
        }
    }

    /**
     * {@code rolling-update} against the sandbox run in this JVM, as {@code Main} runs it from the jar, within 60 s; {@code options}
     * name the spec.
     */
    private SandboxProcess.Ended inProcess(String... options) throws Exception {
        SandboxProcess.Info info = sandbox.info();
        List<String> args = new ArrayList<>(List.of("rolling-update", "--kubeconfig", info.kubeconfig().toString(), "--provider", "http",
                "--machine-api-url", info.machineApi().toString(), "--machine-api-token-file", info.machineApiTokenFile().toString()));
        args.addAll(List.of(options));
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        picocli.CommandLine cli = Main.commandLine();
        cli.setOut(new java.io.PrintWriter(out, true));
        cli.setErr(new java.io.PrintWriter(err, true));
        java.util.concurrent.ExecutorService thread = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "rolling-update");
            t.setDaemon(true);
            return t;
        });
        try {
            int code = thread.submit(() -> cli.execute(args.toArray(String[]::new))).get(60, TimeUnit.SECONDS);
            return new SandboxProcess.Ended(code, out.toString(), err.toString());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("rolling-update did not end within 60 s: " + out + err, e);
        } finally {
            thread.shutdownNow();
        }
    }

    private void holdLease() {
        kube.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata()
                .withName("nightshift-system").endMetadata().build()).createOr(c -> c.update());
        kube.leases().inNamespace("nightshift-system").resource(new LeaseBuilder().withNewMetadata().withName("nightshift-leader")
                .endMetadata().withNewSpec().withHolderIdentity("nightshift-7d9f-abc").withLeaseDurationSeconds(60)
                .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC)).withAcquireTime(ZonedDateTime.now(ZoneOffset.UTC)).endSpec().build())
                .create();
    }

    private void releaseLease() {
        kube.leases().inNamespace("nightshift-system").withName("nightshift-leader").delete();
    }

    private io.fabric8.kubernetes.api.model.ConfigMap record(String pool) {
        return kube.configMaps().inNamespace(Agent.NAMESPACE).withName(PoolStatusRecords.name(pool)).get();
    }

    /** The node of the pool's one machine, once it is registered. */
    private String nodeOf(String pool) {
        return org.awaitility.Awaitility.await("the node of " + pool + "'s machine").atMost(30, TimeUnit.SECONDS).until(() -> {
            JsonNode list = JSON.readTree(sandbox.machineApi("GET", "/v1/pools/" + pool + "/machines", null).body());
            for (JsonNode m : list.path("machines").isMissingNode() ? list : list.path("machines")) {
                String name = m.path("nodeName").asText("");
                if (!"deleting".equals(m.path("state").asText()) && !name.isEmpty() && kube.nodes().withName(name).get() != null) {
                    return name;
                }
            }
            return null;
        }, java.util.Objects::nonNull);
    }

    /** An application pod on the pool's node under a budget that refuses every eviction (the demo's workloads). */
    private String blockEvictionsFromTheNodeOf(String pool) {
        String node = nodeOf(pool);
        new DemoWorkloads(kube).deploy(pool, pool, List.of(node), 1);
        kube.policy().v1().podDisruptionBudget().inNamespace(DemoWorkloads.NAMESPACE).withName(pool).edit(pdb -> {
            pdb.getSpec().setMaxUnavailable(new io.fabric8.kubernetes.api.model.IntOrString(0));
            return pdb;
        });
        return node;
    }

    /** A control-plane node, in no pool, NotReady: no pool validates while it is there. */
    private void notReadyControlPlaneNode() {
        kube.nodes().resource(new io.fabric8.kubernetes.api.model.NodeBuilder().withNewMetadata().withName(CONTROL_PLANE_NODE)
                .addToLabels("node-role.kubernetes.io/control-plane", "").endMetadata().withNewStatus().addNewCondition().withType("Ready")
                .withStatus("False").withReason("KubeletNotReady").endCondition().endStatus().build()).create();
    }

    private SandboxProcess.Ended rollingUpdate(String... options) throws IOException, InterruptedException {
        SandboxProcess.Info info = sandbox.info();
        List<String> command = JavaCommand.jar(SandboxProcess.JAR);
        command.addAll(List.of("rolling-update", "--spec", newSpec.toString(), "--kubeconfig", info.kubeconfig().toString(),
                "--provider", "http", "--machine-api-url", info.machineApi().toString(), "--machine-api-token-file",
                info.machineApiTokenFile().toString()));
        command.addAll(List.of(options));
        Path out = Files.createTempFile(tmp, "ru", ".out");
        Path err = Files.createTempFile(tmp, "ru", ".err");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("rolling-update did not end within 90 s: " + Files.readString(out) + Files.readString(err));
        }
        return new SandboxProcess.Ended(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private List<JsonNode> kubernetesRequests() throws IOException {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(requestLog, StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                lines.add(JSON.readTree(line));
            }
        }
        return lines;
    }

    private static boolean fromNightshift(JsonNode request) {
        return request.path("userAgent").asText().startsWith("nightshift/");
    }

    private static boolean write(JsonNode request) {
        return Set.of("POST", "PUT", "PATCH", "DELETE").contains(request.path("method").asText());
    }

    private Set<String> machineIds(String pool) throws Exception {
        JsonNode list = JSON.readTree(sandbox.machineApi("GET", "/v1/pools/" + pool + "/machines", null).body());
        Set<String> ids = new java.util.TreeSet<>();
        for (JsonNode m : list.path("machines").isMissingNode() ? list : list.path("machines")) {
            if (!"deleting".equals(m.path("state").asText())) {
                ids.add(m.path("id").asText());
            }
        }
        return ids;
    }

    private Set<String> nodesOf(String pool) {
        return kube.nodes().withLabel("nightshift.dev/pool", pool).list().getItems().stream().map(n -> n.getMetadata().getName())
                .collect(Collectors.toSet());
    }

    private static Path writeSpec(Path dir, String image) throws IOException {
        return writeSpec(dir, image, image);
    }

    /** The cluster with pools web and batch at {@code image} and the bastion pool jump at {@code jump}. */
    private static Path writeSpec(Path dir, String image, String jump) throws IOException {
        Files.createDirectories(dir.resolve("pools"));
        Files.writeString(dir.resolve("cluster.yaml"), """
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: %s}
                spec:
                  kubernetes:
                    version: "1.31.4"
                  maintenance:
                    # a window that is never open now: rolling-update does not consult windows
                    windows: [{schedule: "0 0 3 1 1 ?", duration: 1m, timeZone: UTC}]
                  machineImages:
                  - name: gardenlinux
                    versions:
                    - {version: 1631.0.0}
                    - {version: 1632.0.0}
                    - {version: 1633.0.0}
                """.formatted(CLUSTER), StandardCharsets.UTF_8);
        // batch waits for its budget rather than force (a drain past --drain-timeout is then the flags' to decide); jump is a
        // bastion, whose machine never registers as a node.
        for (String[] pool : new String[][] {{"web", "2", "node", image}, {"batch", "1", "node", image}, {"jump", "1", "bastion", jump}}) {
            Files.writeString(dir.resolve("pools/" + pool[0] + ".yaml"), """
                    apiVersion: nightshift.dev/v1alpha1
                    kind: WorkerPool
                    metadata: {name: %s, cluster: %s}
                    spec:
                      role: %s
                      minimum: %s
                      maximum: %s
                      maxSurge: 0
                      maxUnavailable: 1
                      interval: 0s
                      machineControllerManager: {onEvictionBlocked: Wait}
                      machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                    """.formatted(pool[0], CLUSTER, pool[2], pool[1], pool[1], pool[3]), StandardCharsets.UTF_8);
        }
        return dir;
    }

    /** The Kubernetes requests logged after the first {@code count}, from one read of the log (it grows meanwhile). */
    private List<JsonNode> kubernetesRequestsSince(long count) throws IOException {
        List<JsonNode> all = kubernetesRequests();
        return all.subList((int) count, all.size());
    }

    /** The machine API's requests logged after the first {@code count}, from one read of its log. */
    private List<MachineApiLogs.Request> machineApiRequestsSince(long count) {
        List<MachineApiLogs.Request> all = machineLogs.requests();
        return all.subList((int) count, all.size());
    }
}
