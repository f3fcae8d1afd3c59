package dev.nightshift.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.Kubectl;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.strategies.model.DesiredPool;

/**
 * {@code nightshift sandbox} as a user runs it: the jar started on a spec directory, an image bump
 * pushed with the real {@code git} from the sandbox's clone, and the outcome read with the real
 * {@code kubectl} (Debian's kubernetes-client) and {@code /status}. Both tools must be installed:
 * their absence fails the tests, never skips them.
 */
class SandboxIT {

    private static final Path DEMO_SPEC = Path.of(System.getProperty("nightshift.examples", "../examples")).resolve("demo");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration ROLLOUT = Duration.ofSeconds(150);

    @TempDir
    Path tmp;

    @Test
    void anImageBumpPushedWithGitFromTheCloneRollsThePoolToTheNewHash() throws Exception {
        try (SandboxProcess sandbox = SandboxProcess.start(tmp, DEMO_SPEC)) {
            String before = hashes("demo", sandbox.info().workingClone()).get("batch");
            awaitEveryPoolCurrent(sandbox, sandbox.git("rev-parse", "HEAD").strip());
            assertThat(rollHashes(sandbox, "batch")).as("batch starts stamped with the spec's hash")
                    .containsOnlyKeys("batch-1", "batch-2").containsValues(before, before);

            Path batch = sandbox.info().workingClone().resolve("pools/batch.yaml");
            Files.writeString(batch, Files.readString(batch, StandardCharsets.UTF_8)
                    .replace("version: 1631.0.0}", "version: 1632.0.0}"), StandardCharsets.UTF_8);
            String bump = sandbox.commitAndPush("batch to gardenlinux 1632.0.0");
            String after = hashes("demo", sandbox.info().workingClone()).get("batch");
            assertThat(after).as("the bump changes batch's roll hash").isNotEqualTo(before);

            // Watched with kubectl while it rolls: every node name it ever lists, until the pool is current again.
            Set<String> seen = new HashSet<>();
            awaitEveryPoolCurrent(sandbox, bump, () -> seen.addAll(rollHashes(sandbox, "batch").keySet()));

            Map<String, String> end = rollHashes(sandbox, "batch");
            assertThat(end).as("batch's nodes at the end, by kubectl").hasSize(2).doesNotContainKeys("batch-1", "batch-2");
            assertThat(end.values()).as("every batch node runs the new hash").containsOnly(after);
            assertThat(seen).as("nodes kubectl saw during the rollout").containsAll(end.keySet());
            assertThat(rollHashes(sandbox, "cpu-worker")).as("a pool the commit did not change is untouched")
                    .containsOnlyKeys("cpu-worker-1", "cpu-worker-2", "cpu-worker-3");
            assertThat(sandbox.output()).as("a stamped cluster is not adopted").doesNotContain("adopted ");
        }
    }

    @Test
    void withClusterApiEveryPoolIsAMachineDeploymentWhoseNodesAreAdoptedAndAnImageBumpReplacesItsMachines() throws Exception {
        Path spec = Files.createDirectories(tmp.resolve("capi-spec/pools"));
        Files.writeString(spec.resolveSibling("cluster.yaml"), """
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: capi}
                spec:
                  kubernetes: {version: "1.31.4"}
                """);
        Files.writeString(spec.resolve("web.yaml"), """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: capi}
                spec:
                  minimum: 2
                  maximum: 3
                  maxSurge: 1
                  maxUnavailable: 0
                  interval: 0s
                  machine: {type: docker, image: {name: kindest-node, version: 1.31.4}}
                """);
        try (SandboxProcess sandbox = SandboxProcess.start(tmp, spec.getParent(), "--provider", "cluster-api")) {
            awaitEveryPoolCurrent(sandbox, sandbox.git("rev-parse", "HEAD").strip());
            Map<String, String> adopted = rollHashes(sandbox, "web");
            assertThat(adopted).as("the MachineDeployment's nodes, labelled and stamped by the agent").hasSize(2)
                    .allSatisfy((node, hash) -> assertThat(node).startsWith("ip-10-0-"))
                    .containsValues(hashes("capi", sandbox.info().workingClone()).get("web"));
            assertThat(sandbox.output()).contains("adopted ", "get machinedeployments,machinesets,machines");

            Path web = sandbox.info().workingClone().resolve("pools/web.yaml");
            Files.writeString(web, Files.readString(web, StandardCharsets.UTF_8).replace("version: 1.31.4}", "version: 1.31.5}"),
                    StandardCharsets.UTF_8);
            awaitEveryPoolCurrent(sandbox, sandbox.commitAndPush("web to kindest-node 1.31.5"));
            // Current as soon as the last old Machine is being deleted; Cluster API removes its node a little later.
            String wanted = hashes("capi", sandbox.info().workingClone()).get("web");
            await("the old nodes gone").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                    .until(() -> rollHashes(sandbox, "web").values().stream().allMatch(wanted::equals));

            Map<String, String> after = rollHashes(sandbox, "web");
            assertThat(after).hasSize(2).doesNotContainKeys(adopted.keySet().toArray(String[]::new));
            assertThat(after.values()).containsOnly(hashes("capi", sandbox.info().workingClone()).get("web"));
            JsonNode machines = kubectlJson(sandbox, "get", "machines", "-o", "json");
            assertThat(items(machines).map(m -> m.at("/status/nodeRef/name").asText()).collect(Collectors.toSet()))
                    .as("the Machines Cluster API has now are those of the nodes").isEqualTo(after.keySet());
        }
    }

    @Test
    void unstampedNodesAreAdoptedWithoutBeingReplaced() throws Exception {
        try (SandboxProcess sandbox = SandboxProcess.start(tmp, DEMO_SPEC, "--unstamped")) {
            Map<String, String> spec = hashes("demo", sandbox.info().workingClone());
            awaitEveryPoolCurrent(sandbox, sandbox.git("rev-parse", "HEAD").strip());

            String screen = sandbox.output();
            for (String pool : List.of("batch", "cpu-worker", "gpu-worker")) {
                Map<String, String> nodes = rollHashes(sandbox, pool);
                assertThat(nodes.keySet()).as("%s keeps its seeded nodes", pool).isNotEmpty()
                        .allMatch(name -> name.matches(pool + "-[0-9]+"));
                assertThat(nodes.values()).as("%s's nodes are stamped with the spec's hash", pool).containsOnly(spec.get(pool));
                nodes.keySet().forEach(name -> assertThat(screen).contains("adopted " + name + " (stamped, not disrupted)"));
            }
        }
    }

    @Test
    void withoutAnAgentOrASpecItIsAnEmptyClusterServingTheMachineApi() throws Exception {
        try (SandboxProcess sandbox = SandboxProcess.start(tmp, Optional.empty(), "--no-agent")) {
            JsonNode info = JSON.readTree(tmp.resolve("sandbox-info.json").toFile());
            assertThat(info.has("machineApi") && info.has("machineApiTokenFile") && info.has("kubeconfig")).as("info: %s", info).isTrue();
            assertThat(sandbox.info().agent()).as("no agent, no agent port").isNull();
            assertThat(sandbox.info().repository()).as("no spec, no repository").isNull();
            assertThat(sandbox.info().kubeconfig()).exists();
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(sandbox.info().machineApiTokenFile())))
                    .isEqualTo("rw-------");

            HttpResponse<String> list = sandbox.machineApi("GET", "/v1/pools/x/machines", null);
            assertThat(list.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(list.body())).isEqualTo(JSON.readTree("{\"machines\":[]}"));
            assertThat(items(kubectlJson(sandbox, "get", "nodes", "-o", "json"))).as("nodes").isEmpty();
            assertThat(sandbox.output()).as("the command that points an agent at it").contains("--provider http",
                    "--machine-api-url " + sandbox.info().machineApi(),
                    "--machine-api-token-file " + sandbox.info().machineApiTokenFile()).doesNotContain("/status");
        }
    }

    @Test
    void withoutAnAgentTheSpecsPoolsAreMachinesOfTheMachineApiWithTheHashesOnTheMachinesNotTheNodes() throws Exception {
        try (SandboxProcess sandbox = SandboxProcess.start(tmp, Optional.of(DEMO_SPEC), "--no-agent")) {
            Map<String, String> spec = hashes("demo", DEMO_SPEC);
            assertThat(sandbox.info().agent()).isNull();
            assertThat(sandbox.info().workingClone().resolve("pools/batch.yaml")).as("the repository is made").exists();

            JsonNode batch = JSON.readTree(sandbox.machineApi("GET", "/v1/pools/batch/machines", null).body());
            assertThat(items(batch, "machines").map(m -> m.path("nodeName").asText())).containsExactly("batch-1", "batch-2");
            assertThat(items(batch, "machines")).allSatisfy(m -> {
                assertThat(m.path("state").asText()).isEqualTo("running");
                assertThat(m.at("/annotations/" + NodeMarks.ROLL_HASH.replace("/", "~1")).asText()).isEqualTo(spec.get("batch"));
            });
            JsonNode gpu = JSON.readTree(sandbox.machineApi("GET", "/v1/pools/gpu-worker/machines", null).body());
            assertThat(items(gpu, "machines")).isNotEmpty();

            JsonNode nodes = kubectlJson(sandbox, "get", "nodes", "-o", "json");
            Map<String, JsonNode> byName = items(nodes).collect(Collectors.toMap(n -> n.at("/metadata/name").asText(), n -> n));
            assertThat(byName).containsKeys("batch-1", "batch-2", "cpu-worker-1");
            assertThat(byName.values()).as("registered without Nightshift's label or hashes: the agent adds them")
                    .allSatisfy(n -> {
                        assertThat(n.at("/metadata/labels").has(DesiredPool.POOL_LABEL)).isFalse();
                        assertThat(n.at("/metadata/annotations").has(NodeMarks.ROLL_HASH)).isFalse();
                    });
            assertThat(byName.get("cpu-worker-1").at("/metadata/labels/team").asText()).as("the spec's labels").isEqualTo("web");
            String gpuNode = items(gpu, "machines").findFirst().orElseThrow().path("nodeName").asText();
            assertThat(byName.get(gpuNode).at("/spec/taints/0/key").asText()).as("the spec's taints").isEqualTo("nvidia.com/gpu");
        }
    }

    @Test
    void theHiddenHoldOptionHoldsTheChosenAnswerAfterItsWorkIsDoneAndTheRequestLogSaysSo() throws Exception {
        try (SandboxProcess sandbox = SandboxProcess.start(tmp, Optional.empty(), "--no-agent", "--machine-api-hold", "create:1:30")) {
            String request = "{\"labels\":{\"team\":\"web\"},\"annotations\":{},\"taints\":[],\"spec\":{\"machineType\":\"c5\","
                    + "\"image\":{\"name\":\"gardenlinux\",\"version\":\"1631.0.0\"},\"volume\":null,\"cri\":\"containerd\","
                    + "\"kubernetesVersion\":\"1.31.4\",\"kubelet\":{},\"providerConfig\":{}}}";
            java.util.concurrent.CompletableFuture<HttpResponse<String>> create = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return sandbox.machineApi("POST", "/v1/pools/web/machines", request, "ns1-held-create-key-0001");
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Path requests = sandbox.info().kubeconfig().resolveSibling("machine-api-requests.jsonl");

            await("a held create in " + requests).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                    .until(() -> Files.readString(requests).contains("\"phase\":\"held\""));
            JsonNode held = JSON.readTree(Files.readAllLines(requests).get(0));
            assertThat(held.path("operation").asText()).isEqualTo("createMachine");
            assertThat(held.path("idempotencyKey").asText()).isEqualTo("ns1-held-create-key-0001");
            assertThat(Files.readString(sandbox.info().kubeconfig().resolveSibling("machine-log.jsonl")))
                    .as("the work is done while the answer is held").contains("\"event\":\"created\"", held.path("machine").asText());
            assertThat(create).isNotDone();
        }
        SandboxProcess.Ended help = SandboxProcess.runToEnd(tmp.resolve("help"), DEMO_SPEC, "--help");
        assertThat(help.stdout()).contains("--no-agent").doesNotContain("--machine-api-hold");
    }

    @Test
    void anInvalidSpecExitsTwoWithFileAndLineAndStartsNothing() throws Exception {
        Path bad = copy(DEMO_SPEC, tmp.resolve("bad"));
        Path batch = bad.resolve("pools/batch.yaml");
        Files.writeString(batch, Files.readString(batch, StandardCharsets.UTF_8).replace("maxSurge: \"25%\"", "maxSurge: lots"),
                StandardCharsets.UTF_8);

        SandboxProcess.Ended ended = SandboxProcess.runToEnd(tmp.resolve("run"), bad);

        assertThat(ended.exitCode()).as("exit code; stderr: %s", ended.stderr()).isEqualTo(2);
        assertThat(ended.stderr()).containsPattern("pools/batch\\.yaml:[0-9]+").contains("maxSurge");
        assertThat(tmp.resolve("run/sandbox")).as("no repository, clone or kubeconfig was made").doesNotExist();
        assertThat(tmp.resolve("run/sandbox-info.json")).as("no info file").doesNotExist();
        assertThat(ended.stdout()).as("no banner").doesNotContain("Kubernetes API");
    }

    @Test
    void podsPerNodeRunOnEveryNodeUnderAPodDisruptionBudgetOfTheirPool() throws Exception {
        try (SandboxProcess sandbox = SandboxProcess.start(tmp, DEMO_SPEC, "--pods-per-node", "3")) {
            JsonNode pods = kubectlJson(sandbox, "get", "pods", "-n", "shop", "-o", "json");
            JsonNode budgets = kubectlJson(sandbox, "get", "pdb", "-n", "shop", "-o", "json");
            Set<String> nodes = rollHashes(sandbox, null).keySet();

            Map<String, Long> podsByNode = items(pods).collect(Collectors.groupingBy(p -> p.at("/spec/nodeName").asText(),
                    TreeMap::new, Collectors.counting()));
            assertThat(podsByNode.keySet()).as("every node has pods").isEqualTo(nodes);
            assertThat(podsByNode.values()).as("pods per node").containsOnly(3L);
            Map<String, String> budgetSelectors = items(budgets).collect(Collectors.toMap(b -> b.at("/metadata/name").asText(),
                    b -> b.at("/spec/selector/matchLabels/app").asText()));
            assertThat(budgetSelectors).as("a budget per pool with nodes, selecting its pods")
                    .isEqualTo(Map.of("batch", "batch", "cpu-worker", "cpu-worker", "gpu-worker", "gpu-worker"));
            assertThat(items(pods)).as("every pod is under its pool's budget")
                    .allMatch(p -> budgetSelectors.containsValue(p.at("/metadata/labels/app").asText())
                            && p.at("/metadata/labels/app").asText().equals(p.at("/metadata/labels/nightshift.dev~1pool").asText()));
        }
    }

    /** Waits until /status reports {@code commit} acted on and every pool current; {@code meanwhile} runs at every look. */
    private static void awaitEveryPoolCurrent(SandboxProcess sandbox, String commit, ThrowingRunnable... meanwhile) {
        await("every pool current at " + commit).atMost(ROLLOUT).pollInterval(Duration.ofMillis(500)).until(() -> {
            for (ThrowingRunnable r : meanwhile) {
                r.run();
            }
            JsonNode status = sandbox.status();
            return commit.equals(status.path("revision").asText()) && status.path("pools").size() > 0
                    && StreamSupport.stream(status.path("pools").spliterator(), false)
                    .allMatch(p -> "CURRENT".equals(p.path("phase").asText()) && p.path("outdated").asInt() == 0
                            && p.path("updating").asInt() == 0);
        });
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** The roll hash each pool's nodes must run, as computed from the spec in {@code dir}. */
    private static Map<String, String> hashes(String cluster, Path dir) {
        LoadResult loaded = new SpecLoader().load(dir);
        assertThat(loaded.errors()).isEmpty();
        Map<String, String> hashes = new HashMap<>();
        loaded.specs().resolvedPools(cluster).stream().map(DesiredPool::of).forEach(p -> hashes.put(p.name(), p.rollHash().value()));
        return hashes;
    }

    /** Node name to roll hash ("" when unstamped) of the pool's nodes (all nodes when {@code pool} is null), by kubectl. */
    private Map<String, String> rollHashes(SandboxProcess sandbox, String pool) throws IOException, InterruptedException {
        JsonNode nodes = pool == null ? kubectlJson(sandbox, "get", "nodes", "-o", "json")
                : kubectlJson(sandbox, "get", "nodes", "-l", DesiredPool.POOL_LABEL + "=" + pool, "-o", "json");
        return items(nodes).collect(Collectors.toMap(n -> n.at("/metadata/name").asText(),
                n -> n.path("metadata").path("annotations").path(NodeMarks.ROLL_HASH).asText(""), (a, b) -> a, TreeMap::new));
    }

    private JsonNode kubectlJson(SandboxProcess sandbox, String... args) throws IOException, InterruptedException {
        Kubectl.Run run = Kubectl.run(tmp, sandbox.info().kubeconfig(), args);
        assertThat(run.exitCode()).as("kubectl %s; stderr: %s", String.join(" ", args), run.stderr()).isZero();
        return JSON.readTree(run.stdout());
    }

    private static Stream<JsonNode> items(JsonNode list) {
        return items(list, "items");
    }

    private static Stream<JsonNode> items(JsonNode list, String field) {
        return StreamSupport.stream(list.path(field).spliterator(), false);
    }

    private static Path copy(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : walk.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
        return to;
    }
}
