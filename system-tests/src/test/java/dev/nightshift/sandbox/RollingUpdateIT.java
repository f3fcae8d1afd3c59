package dev.nightshift.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

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

import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * {@code nightshift rolling-update} from the jar against {@code sandbox --no-agent} (the embedded API server and the machine
 * API, provider {@code http}), judged from the API server's request log (its hidden {@code --kubernetes-request-log}, with
 * each request's User-Agent: the command's is {@code nightshift/…}) and the machine API's: the preview writes nothing; an
 * agent's Lease held refuses the run; {@code --instance-group web --yes} replaces only pool web's machines and writes only
 * to its nodes; {@code --cloudonly --yes} replaces batch's machine through the machine API with no Kubernetes request at all.
 * The scenarios share one sandbox and run in order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RollingUpdateIT {

    private static final String CLUSTER = "ru";
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
        org.awaitility.Awaitility.await().atMost(60, TimeUnit.SECONDS).until(() -> kube.nodes().list().getItems().size() == 3);
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
                .contains("Must specify --yes to rolling-update.");
        List<JsonNode> commands = kubernetesRequests().subList((int) k8s, kubernetesRequests().size()).stream()
                .filter(RollingUpdateIT::fromNightshift).toList();
        assertThat(commands).as("the command read the cluster").isNotEmpty();
        assertThat(commands).as("and wrote nothing to it").noneMatch(RollingUpdateIT::write);
        assertThat(machineLogs.requests().subList((int) machineApi, machineLogs.requests().size()))
                .as("nothing written to the machine API").allMatch(r -> r.method().equals("GET"));
    }

    @Test
    @Order(2)
    void anAgentsLeaseHeldRefusesTheRunWithExitTwo() throws Exception {
        kube.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder().withNewMetadata()
                .withName("nightshift-system").endMetadata().build()).createOr(c -> c.update());
        kube.leases().inNamespace("nightshift-system").resource(new LeaseBuilder().withNewMetadata().withName("nightshift-leader")
                .endMetadata().withNewSpec().withHolderIdentity("nightshift-7d9f-abc").withLeaseDurationSeconds(60)
                .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC)).withAcquireTime(ZonedDateTime.now(ZoneOffset.UTC)).endSpec().build())
                .create();
        long k8s = kubernetesRequests().size();
        try {
            SandboxProcess.Ended run = rollingUpdate("--yes");

            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.stderr()).contains("an agent holds the Lease nightshift-system/nightshift-leader (nightshift-7d9f-abc)");
            assertThat(kubernetesRequests().subList((int) k8s, kubernetesRequests().size()).stream()
                    .filter(RollingUpdateIT::fromNightshift).toList()).noneMatch(RollingUpdateIT::write);
        } finally {
            kube.leases().inNamespace("nightshift-system").withName("nightshift-leader").delete();
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
        List<MachineApiLogs.Request> writes = machineLogs.requests().subList((int) machineApi, machineLogs.requests().size()).stream()
                .filter(r -> !r.method().equals("GET")).toList();
        assertThat(writes).isNotEmpty().allMatch(r -> batchMachines.stream().noneMatch(m -> r.path().contains(m)));
        List<JsonNode> nodeWrites = kubernetesRequests().subList((int) k8s, kubernetesRequests().size()).stream()
                .filter(RollingUpdateIT::fromNightshift).filter(RollingUpdateIT::write)
                .filter(r -> r.path("path").asText().startsWith("/api/v1/nodes/")).toList();
        assertThat(nodeWrites).as("cordons and marks").isNotEmpty()
                .noneMatch(r -> batchNodes.stream().anyMatch(n -> r.path("path").asText().startsWith("/api/v1/nodes/" + n)));
    }

    @Test
    @Order(4)
    void cloudOnlyReplacesThroughTheMachineApiWithNoKubernetesRequest() throws Exception {
        Set<String> batchMachines = machineIds("batch");
        long k8s = kubernetesRequests().size();

        SandboxProcess.Ended run = rollingUpdate("--instance-group", "batch", "--cloudonly", "--yes", "--node-interval", "0s");

        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        assertThat(run.stderr()).contains("--cloudonly: no Kubernetes request is made");
        assertThat(machineIds("batch")).hasSize(1).doesNotContainAnyElementsOf(batchMachines);
        assertThat(machineLogs.requests()).anyMatch(r -> r.method().equals("POST") && batchMachines.stream()
                .anyMatch(m -> r.path().contains(m)) && r.path().endsWith("/replace"));
        assertThat(kubernetesRequests().subList((int) k8s, kubernetesRequests().size()))
                .as("no Kubernetes request from the command").noneMatch(RollingUpdateIT::fromNightshift);
    }

    private SandboxProcess.Ended rollingUpdate(String... options) throws IOException, InterruptedException {
        SandboxProcess.Info info = sandbox.info();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                SandboxProcess.JAR.toString(), "rolling-update", "--spec", newSpec.toString(), "--kubeconfig", info.kubeconfig().toString(),
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
                """.formatted(CLUSTER), StandardCharsets.UTF_8);
        for (String[] pool : new String[][] {{"web", "2"}, {"batch", "1"}}) {
            Files.writeString(dir.resolve("pools/" + pool[0] + ".yaml"), """
                    apiVersion: nightshift.dev/v1alpha1
                    kind: WorkerPool
                    metadata: {name: %s, cluster: %s}
                    spec:
                      minimum: %s
                      maximum: %s
                      maxSurge: 0
                      maxUnavailable: 1
                      interval: 0s
                      machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                    """.formatted(pool[0], CLUSTER, pool[1], pool[1], image), StandardCharsets.UTF_8);
        }
        return dir;
    }
}
