package dev.nightshift.agent.manifests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.git.GitDaemon;
import dev.nightshift.agent.git.GitWork;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.provider.http.ApiMachine;
import dev.nightshift.agent.provider.http.MachineState;
import dev.nightshift.sandbox.SandboxProcess;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.embedded.Kubectl;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.sandbox.machineapi.Holds;
import dev.nightshift.sandbox.machineapi.MachineApiCloud;
import dev.nightshift.sandbox.machineapi.MachineApiServer;
import dev.nightshift.sandbox.machineapi.MachineLog;
import dev.nightshift.sandbox.machineapi.RequestLog;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * The install page, done: an overlay of the user's own on {@code manifests/overlays/http} (the configuration's EDIT
 * lines set to a Git repository served by {@code git daemon} and to the sandbox's machine API, the image set by
 * {@code images:} to a digest) applied with the real {@code kubectl apply -k} to the embedded API server, the Secrets
 * created with the {@code kubectl create secret} commands {@code secret.yaml.example} gives, and then the agent run as
 * the Deployment says, from the objects the API server holds (never from the repository's files): the ConfigMap and
 * the Secrets laid out as its volumes mount them, its env and args ({@link AppliedPod}), started by
 * {@link #RUNTIME}: the image, run with podman as the Deployment says (user, fsGroup, read-only root, capabilities,
 * limits). It becomes ready, leads under its pod's name, adopts the machine API's pool and rolls an image bump
 * announced through the webhook (judged from the API server's nodes and the machine API's records), makes only
 * requests the applied RBAC allows, and stops on SIGTERM, releasing the Lease. One agent start.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InstallIT {

    /**
     * The seam: what runs the applied pod's container. {@link PodmanRuntime} runs the image {@code ./build-image} built
     * in this run (shared with ImageIT) with podman; {@code -Dnightshift.installRuntime=jar} runs
     * {@code cli/target/nightshift.jar} instead ({@link JarRuntime}), where podman is missing or for a quicker look.
     */
    static final AgentRuntime RUNTIME = System.getProperty("nightshift.installRuntime", "image").equals("jar")
            ? new JarRuntime(SandboxProcess.JAR) : new PodmanRuntime();

    private static final String NS = "nightshift-system";
    private static final String AGENT_USER_AGENT = "nightshift/";
    private static final String POD = "nightshift-7d4b9c8f6-x2v9q";
    private static final String WEBHOOK_SECRET = HexFormat.of().formatHex("install-test-webhook-secret".getBytes(StandardCharsets.UTF_8));
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: prod-eu1}
            spec:
              kubernetes: {version: "1.31.4"}
            """;

    private static String web(String image) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: prod-eu1}
                spec:
                  minimum: 2
                  maximum: 2
                  maxSurge: 1
                  maxUnavailable: 0
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(image);
    }

    @TempDir
    static Path tmp;

    private String userConfig;
    private Deployment deployment;
    private Map<String, String> configMapData;
    private AppliedPod pod;
    private Duration readyAfter;
    private String leaseHolder;
    private Set<String> seededNodes;
    private String adoptedHash;
    private int webhookStatus;
    private List<ApiMachine> machinesAfter;
    private List<Node> nodesAfter;
    private int exitCode;
    private int leaseSecondsAfterStop;
    private List<RecordedRequest> agentLog;
    private Rbac appliedRbac;

    @AfterAll
    void closeTheRuntime() {
        RUNTIME.close();
    }

    @BeforeAll
    void applyTheHttpOverlayThenRunTheAgentAsItsDeploymentSays() throws Exception {
        Path served = Files.createDirectories(tmp.resolve("served"));
        Path work = Files.createDirectories(tmp.resolve("kubectl"));
        ScheduledExecutorService threads = Executors.newScheduledThreadPool(2);
        try (GitDaemon daemon = new GitDaemon(served);
             EmbeddedKubernetes kube = EmbeddedKubernetes.start();
             MachineApiServer api = MachineApiServer.start(new MachineApiCloud(kube.client(), threads, Clock.systemUTC(),
                     RandomGeneratorFactory.of("L64X128MixRandom").create(25), new MachineApiCloud.Behaviour(Duration.ofMillis(800),
                     Duration.ofMillis(200), Duration.ofMillis(800), Duration.ofMillis(300), 0, 0), new MachineLog(Optional.empty())),
                     new RequestLog(Optional.empty()), Holds.none(), tmp.resolve("cloud/machine-api-token"), Clock.systemUTC())) {
            KubernetesClient client = kube.client();
            Path kubeconfig = kube.writeKubeconfig(tmp.resolve("kubeconfig"));

            // The world before Nightshift: two machines of pool web running, the specs in Git where the configuration looks.
            seededNodes = api.cloud().seed("web", 2, Map.of(), Map.of()).stream().map(ApiMachine::nodeName).collect(Collectors.toSet());
            GitWork git = GitWork.create(served, "specs.git", daemon.url("specs.git"), tmp.resolve("work"));
            git.write("clusters/prod-eu1/cluster.yaml", CLUSTER);
            git.write("clusters/prod-eu1/pools/web.yaml", web("1631.0.0"));
            git.commitAndPush("initial");

            // Install: an overlay of the user's own, applied; then the Secrets.
            Path overlay = userOverlay(daemon.url("specs.git"), api.url());
            kubectl(work, kubeconfig, "apply", "-k", overlay.toString(), "--validate=false");
            Path secrets = Files.createDirectories(tmp.resolve("secrets"));
            kubectl(work, kubeconfig, "-n", NS, "create", "secret", "generic", "nightshift-git",
                    "--from-file=token=" + Files.writeString(secrets.resolve("git-token"), "a-read-only-token\n"),
                    "--from-file=webhook-secret=" + Files.writeString(secrets.resolve("webhook-secret"), WEBHOOK_SECRET + "\n"));
            kubectl(work, kubeconfig, "-n", NS, "create", "secret", "generic", "nightshift-machine-api",
                    "--from-file=token=" + api.tokenFile());

            // The pod, from what the API server holds.
            deployment = client.apps().deployments().inNamespace(NS).withName("nightshift").get();
            assertThat(deployment).as("the Deployment kubectl applied").isNotNull();
            String configMap = deployment.getSpec().getTemplate().getSpec().getVolumes().stream().filter(v -> v.getConfigMap() != null)
                    .findFirst().orElseThrow().getConfigMap().getName();
            configMapData = client.configMaps().inNamespace(NS).withName(configMap).get().getData();
            pod = AppliedPod.layOut(client, deployment, POD, Files.createDirectories(tmp.resolve("pod")));
            appliedRbac = Rbac.forServiceAccount(rbacObjects(client), NS, pod.serviceAccount());

            Instant start = Instant.now();
            try (AgentRuntime.Running agent = RUNTIME.start(pod, kubeconfig, tmp.resolve("pod/agent.log"))) {
                URI url = agent.port("http");
                await("the agent's /readyz answers 200 (" + RUNTIME + ")").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                        .failFast("the agent exited", () -> !agent.alive())
                        .until(() -> status(url.resolve("/readyz")) == 200);
                readyAfter = Duration.between(start, Instant.now());
                await("the Lease names a holder").atMost(Duration.ofSeconds(30)).until(() -> holder(client).isPresent());
                leaseHolder = holder(client).orElseThrow();

                await("the pool adopted").atMost(Duration.ofSeconds(60)).until(() -> stamped(client, 2));
                adoptedHash = hash(nodes(client).get(0));

                git.write("clusters/prod-eu1/pools/web.yaml", web("1632.0.0"));
                git.commitAndPush("image bump");
                webhookStatus = HTTP.send(HttpRequest.newBuilder(url.resolve("/hooks/git")).header("X-Gitlab-Token", WEBHOOK_SECRET)
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode();
                await("the image bump rolled through the machine API").atMost(Duration.ofSeconds(120))
                        .failFast("the agent exited", () -> !agent.alive())
                        .until(() -> rolled(client, api.cloud()));
                machinesAfter = api.cloud().list("web");
                nodesAfter = nodes(client);
                exitCode = agent.stop();
                leaseSecondsAfterStop = client.leases().inNamespace(NS).withName("nightshift-leader").get().getSpec()
                        .getLeaseDurationSeconds();
            } catch (Throwable t) {
                List<String> lines = Files.readAllLines(tmp.resolve("pod/agent.log"), StandardCharsets.UTF_8);
                System.err.println("InstallIT: the agent's last lines:\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 60),
                        lines.size())));
                throw t;
            }
            agentLog = kube.requests().stream().filter(r -> r.userAgent().startsWith(AGENT_USER_AGENT)).toList();
        } finally {
            threads.shutdownNow();
        }
    }

    /**
     * What the install page has the user write: {@code overlays/http} as a base, its {@code config.yaml} with the EDIT
     * lines set (here: the repository and the machine API), and the image by its digest.
     */
    private Path userOverlay(String repository, String machineApi) throws IOException {
        Path own = Files.createDirectories(tmp.resolve("my-nightshift"));
        String shipped = Files.readString(Manifests.overlay("http").resolve("config.yaml"), StandardCharsets.UTF_8);
        userConfig = shipped.replace("url: https://git.example.com/platform/worker-pools.git", "url: " + repository)
                .replace("url: https://machines.internal.example.com", "url: " + machineApi);
        assertThat(userConfig).as("both EDIT lines found in overlays/http/config.yaml").contains(repository).contains(machineApi);
        Files.writeString(own.resolve("config.yaml"), userConfig);
        AgentRuntime.Image image = RUNTIME.image();
        Files.writeString(own.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                bases:
                  - %s
                configMapGenerator:
                  - name: nightshift-config
                    namespace: nightshift-system
                    behavior: replace
                    files:
                      - config.yaml
                images:
                  - name: nightshift
                    newName: %s
                    digest: %s
                """.formatted(own.relativize(Manifests.overlay("http")), image.name(), image.digest()));
        return own;
    }

    private static Kubectl.Run kubectl(Path work, Path kubeconfig, String... args) throws IOException, InterruptedException {
        Kubectl.Run run = Kubectl.run(work, kubeconfig, args);
        assertThat(run.exitCode()).as("kubectl %s: %s%s", String.join(" ", args), run.stdout(), run.stderr()).isZero();
        return run;
    }

    /** The RBAC objects the API server holds, as documents. */
    private static List<Manifests.Document> rbacObjects(KubernetesClient client) {
        KubernetesSerialization json = new KubernetesSerialization();
        List<HasMetadata> objects = new ArrayList<>();
        objects.addAll(client.rbac().clusterRoles().list().getItems());
        objects.addAll(client.rbac().clusterRoleBindings().list().getItems());
        objects.addAll(client.rbac().roles().inAnyNamespace().list().getItems());
        objects.addAll(client.rbac().roleBindings().inAnyNamespace().list().getItems());
        List<Manifests.Document> documents = new ArrayList<>();
        for (HasMetadata o : objects) {
            documents.addAll(Manifests.parse(Path.of("api-server"), json.asJson(o)));
        }
        return documents;
    }

    private static int status(URI url) {
        try {
            return HTTP.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(5)).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static Optional<String> holder(KubernetesClient client) {
        var lease = client.leases().inNamespace(NS).withName("nightshift-leader").get();
        return Optional.ofNullable(lease).map(l -> l.getSpec().getHolderIdentity()).filter(h -> !h.isEmpty());
    }

    private static List<Node> nodes(KubernetesClient client) {
        return client.nodes().withLabel(NodeMarks.POOL, "web").list().getItems();
    }

    private static String hash(Node n) {
        return Optional.ofNullable(n.getMetadata().getAnnotations()).map(a -> a.get(NodeMarks.ROLL_HASH)).orElse("");
    }

    private static boolean stamped(KubernetesClient client, int count) {
        List<Node> nodes = nodes(client);
        return nodes.size() == count && nodes.stream().noneMatch(n -> hash(n).isEmpty());
    }

    /** Two machines running at one roll hash, not the adopted one, whose nodes are the pool's only nodes. */
    private boolean rolled(KubernetesClient client, MachineApiCloud cloud) {
        List<ApiMachine> machines = cloud.list("web");
        Set<String> hashes = machines.stream().map(m -> m.annotations().getOrDefault(NodeMarks.ROLL_HASH, "")).collect(Collectors.toSet());
        return machines.size() == 2 && machines.stream().allMatch(m -> m.state() == MachineState.RUNNING) && hashes.size() == 1
                && !hashes.contains(adoptedHash) && !hashes.contains("")
                && nodes(client).stream().map(n -> n.getMetadata().getName()).collect(Collectors.toSet())
                .equals(machines.stream().map(ApiMachine::nodeName).collect(Collectors.toSet()));
    }

    // ---- what was applied ------------------------------------------------------------------------------------

    @Test
    void theAppliedDeploymentRunsTheImageByItsDigestWithTheUsersConfigurationMounted() {
        assertThat(deployment.getSpec().getTemplate().getSpec().getContainers()).singleElement()
                .satisfies(c -> assertThat(c.getImage()).isEqualTo(RUNTIME.image().reference()));
        assertThat(configMapData).as("the ConfigMap the Deployment mounts, as the API server holds it")
                .containsOnlyKeys("config.yaml").containsEntry("config.yaml", userConfig);
        assertThat(pod.hostPath("/etc/nightshift/config.yaml")).as("the configuration file the agent is started with")
                .hasValueSatisfying(p -> assertThat(p).isRegularFile());
        assertThat(pod.hostPath("/etc/nightshift/machine-api/token")).as("the machine API's token, from its Secret")
                .hasValueSatisfying(p -> assertThat(p).isRegularFile());
        assertThat(pod.env()).containsEntry("POD_NAME", POD).containsKey("JAVA_TOOL_OPTIONS");
    }

    // ---- what the agent did ----------------------------------------------------------------------------------

    @Test
    void theAgentBecameReadyAndLedUnderItsPodsName() {
        assertThat(readyAfter).as("from its start to /readyz 200").isLessThan(Duration.ofSeconds(120));
        assertThat(leaseHolder).as("the identity in the Lease: POD_NAME from the Deployment's fieldRef").isEqualTo(POD);
    }

    @Test
    void theAgentAdoptedThePoolAndRolledTheImageBumpTheWebhookAnnouncedThroughTheMachineApi() {
        assertThat(adoptedHash).isNotEmpty();
        assertThat(webhookStatus).as("POST /hooks/git with the webhook secret from the Secret").isBetween(200, 299);
        assertThat(machinesAfter).as("the machine API's records of pool web").hasSize(2).allSatisfy(m -> {
            assertThat(m.state()).isEqualTo(MachineState.RUNNING);
            assertThat(m.annotations().get(NodeMarks.ROLL_HASH)).isNotEqualTo(adoptedHash);
            assertThat(m.nodeName()).isNotIn(seededNodes);
        });
        assertThat(nodesAfter).as("the pool's nodes in the API server: the new machines', at their roll hash, schedulable")
                .extracting(n -> n.getMetadata().getName())
                .containsExactlyInAnyOrderElementsOf(machinesAfter.stream().map(ApiMachine::nodeName).toList());
        assertThat(nodesAfter).allSatisfy(n -> {
            assertThat(hash(n)).isEqualTo(machinesAfter.get(0).annotations().get(NodeMarks.ROLL_HASH));
            assertThat(n.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
        });
    }

    @Test
    void everyRequestTheAgentMadeIsAllowedByTheRbacTheOverlayApplied() {
        assertThat(agentLog).as("the agent's requests, told apart by its User-Agent").isNotEmpty();
        Map<String, List<Long>> denied = new TreeMap<>();
        for (RecordedRequest r : agentLog) {
            ApiRequest request = ApiRequest.of(r.method(), r.path());
            if (!appliedRbac.allows(request)) {
                denied.computeIfAbsent(request.toString(), k -> new ArrayList<>()).add(r.sequence());
            }
        }
        assertThat(denied).as("requests the ServiceAccount %s may not make with what was applied; grants: %s", pod.serviceAccount(),
                appliedRbac.grants()).isEmpty();
    }

    @Test
    void theAgentStoppedOnSigtermWithinTheGracePeriodAndReleasedTheLease() {
        // 143 (128 + SIGTERM): the JVM's status when a signal ended it, after its shutdown hooks ran.
        assertThat(exitCode).as("exit status after SIGTERM").isIn(0, 143);
        // fabric8's release: the holder's lease cut to 1 s (from leaderElection.leaseDuration, 15 s), so a standby takes it at once.
        assertThat(leaseSecondsAfterStop).as("the Lease's duration after the release").isEqualTo(1);
    }
}
