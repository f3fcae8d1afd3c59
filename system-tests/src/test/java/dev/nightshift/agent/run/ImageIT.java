package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

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

import dev.nightshift.agent.run.RolloutInvariants.Limits;
import dev.nightshift.agent.run.RolloutInvariants.Start;
import dev.nightshift.image.BuiltImage;
import dev.nightshift.image.OciArchive;
import dev.nightshift.image.Podman;
import dev.nightshift.image.Registry;
import dev.nightshift.image.WriteProbe;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * The container image, built by {@code ./build-image --no-maven} from the jars this Maven run made (once in the run:
 * {@link BuiltImage}, which InstallIT shares), taken apart, pushed with the command the docs give to a real registry,
 * pulled from it by digest, and run with podman as manifests/base/deployment.yaml runs it: its entrypoint and
 * arguments, user 65532, a read-only root with emptyDirs at /tmp and /var/cache/nightshift, no capabilities, the
 * configuration file and the Secret's files mounted where the Deployment mounts them, its JAVA_TOOL_OPTIONS and
 * memory limit (read from that file). The world is the embedded API server (reached through a
 * kubeconfig: it speaks plain HTTP, which in-cluster configuration does not), a git daemon, and the sandbox's machine
 * API with its cloud for the {@code http} provider. Judged from outside: what the archive holds, what the kernel
 * says of the process, what the API server and the machine API saw.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ImageIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path BUILD_IMAGE = BuiltImage.BUILD_IMAGE;
    private static final Path OUTPUT = BuiltImage.OUTPUT;
    private static final String VERSION = System.getProperty("nightshift.version", "0.1.0-SNAPSHOT");

    /** As manifests/base/deployment.yaml: runAsUser and runAsGroup, args, mounts; its JAVA_TOOL_OPTIONS and memory limit. */
    private static final String UID = "65532";
    private static final List<String> ARGS = List.of("run", "--config", "/etc/nightshift/config.yaml");
    private static final List<String> ENTRYPOINT = List.of("/opt/java/bin/java", "-jar", "/opt/nightshift/nightshift.jar");
    private static final Container DEPLOYED = deployed();
    private static final String JAVA_TOOL_OPTIONS = DEPLOYED.getEnv().stream().filter(e -> e.getName().equals("JAVA_TOOL_OPTIONS"))
            .findFirst().orElseThrow(() -> new AssertionError("manifests/base/deployment.yaml sets no JAVA_TOOL_OPTIONS")).getValue();
    private static final long MEMORY_LIMIT = Quantity.getAmountInBytes(DEPLOYED.getResources().getLimits().get("memory")).longValueExact();

    /** The agent's container in manifests/base/deployment.yaml. */
    private static Container deployed() {
        Path file = Path.of(System.getProperty("nightshift.manifests", "../manifests"), "base", "deployment.yaml");
        try {
            return new KubernetesSerialization().unmarshal(Files.readString(file, StandardCharsets.UTF_8), Deployment.class).getSpec()
                    .getTemplate().getSpec().getContainers().get(0);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Jar names and class-file directories of what must never ship: the sandbox and its doubles, test code. */
    private static final Pattern NOT_SHIPPED_JAR = Pattern.compile(
            "(?i).*(sandbox|server-mock|mockwebserver|mock-server|vertx|okhttp|junit|opentest4j|assertj|awaitility|mockito|wiremock"
                    + "|archunit|jmh|system-tests|-tests?\\.jar).*");
    private static final List<String> NOT_SHIPPED_CLASSES = List.of("dev/nightshift/sandbox/", "io/fabric8/mockwebserver/",
            "io/fabric8/kubernetes/client/server/mock/", "okhttp3/mockwebserver/", "io/vertx/", "org/junit/",
            "META-INF/services/dev.nightshift.agent.command.Plugin");

    private static final String POOL = "web";
    private static final int NODES = 3;
    private static final ScenarioSpecs.Pool WEB = ScenarioSpecs.web().surgingOneAtATime();
    private static final Duration MACHINE = Duration.ofMillis(400);

    /** Static: JUnit fills an instance's @TempDir only before each test, after @BeforeAll. */
    @TempDir
    static Path tmp;

    private OciArchive archive;
    private Path rootfs;
    private Podman podman;
    private Registry registry;
    /** The image in the registry by its digest, as a Deployment names it: {@code 127.0.0.1:PORT/nightshift@sha256:…}. */
    private String pushed;
    private AgentHarness harness;
    private final String container = "nightshift-image-it-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(4));
    private int httpPort;

    @BeforeAll
    void buildLoadAndStart() throws Exception {
        long started = System.nanoTime();
        BuiltImage image = BuiltImage.get();
        long built = System.nanoTime();
        archive = OciArchive.open(image.archive(), tmp.resolve("layout"));
        rootfs = archive.unpack(tmp.resolve("rootfs"));
        // docs/operations/image.md: skopeo copy oci-archive:target/nightshift-image.tar docker://REGISTRY/nightshift:TAG
        registry = Registry.start(tmp.resolve("registry"));
        skopeo("copy", "--quiet", "--dest-tls-verify=false", "oci-archive:" + OUTPUT.resolve("nightshift-image.tar"),
                "docker://" + registry.host() + "/nightshift:" + VERSION);
        pushed = registry.host() + "/nightshift@" + archive.digest();
        podman = new Podman(tmp.resolve("podman"));
        podman.check(Duration.ofMinutes(3), "pull", "--quiet", "--tls-verify=false", pushed);
        long loaded = System.nanoTime();

        harness = new AgentHarness(tmp.resolve("world"), "e2e", POOL, NODES, RolloutBackend.HTTP, MACHINE);
        harness.push("initial", ScenarioSpecs.CLUSTER, WEB);
        startContainer();
        System.out.printf("ImageIT: build-image --no-maven %.1f s (%s), push and pull %.1f s%n", (built - started) / 1e9,
                image.builtHere() ? "built here" : "built by another test of this run", (loaded - built) / 1e9);
    }

    /** The Deployment's pod, as podman runs it. */
    private void startContainer() throws IOException, InterruptedException {
        httpPort = freePort();
        Path etc = Files.createDirectories(tmp.resolve("etc"));
        // The ConfigMap's config.yaml (manifests/base/config.yaml and overlays/http) with this world's addresses;
        // the token and webhook secret from the Secret's files.
        Path config = Files.writeString(etc.resolve("config.yaml"), """
                cluster: e2e
                git:
                  url: %s
                  ref: main
                  pollInterval: 2s
                webhook:
                  secretFile: /etc/nightshift/secrets/webhook-secret
                http:
                  port: %d
                cacheDir: /var/cache/nightshift
                leaderElection:
                  enabled: true
                  leaseDuration: 15s
                dryRun: false
                provider:
                  type: http
                  http:
                    url: %s
                    tokenFile: /etc/nightshift/secrets/machine-api-token
                """.formatted(harness.daemon.url("specs.git"), httpPort, harness.machineApi.url()));
        // The Secret, mounted with defaultMode 0440 and readable through fsGroup 65532, as the Deployment has it.
        Path secrets = Files.createDirectories(etc.resolve("secrets"));
        Files.copy(harness.machineApi.tokenFile(), secrets.resolve("machine-api-token"));
        Files.writeString(secrets.resolve("webhook-secret"), HexFormat.of().formatHex(new SecureRandom().generateSeed(24)));
        for (Path secret : List.of(secrets.resolve("machine-api-token"), secrets.resolve("webhook-secret"))) {
            Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("r--r-----"));
            Files.getFileAttributeView(secret, java.nio.file.attribute.PosixFileAttributeView.class)
                    .setGroup(secret.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByGroupName(UID));
        }
        Path kubeconfig = harness.kube.writeKubeconfig(etc.resolve("kubeconfig"));
        // The probe's class alone, for `podman exec` (the image has no shell).
        Path probe = tmp.resolve("probe");
        String probeClass = WriteProbe.class.getName().replace('.', '/') + ".class";
        Files.createDirectories(probe.resolve(probeClass).getParent());
        try (var in = WriteProbe.class.getClassLoader().getResourceAsStream(probeClass)) {
            Files.copy(java.util.Objects.requireNonNull(in, probeClass), probe.resolve(probeClass));
        }
        // The emptyDirs tmp and git-cache: host directories, as the kubelet makes them, group-owned by the pod's
        // fsGroup (65532) and group-writable with the setgid bit.
        Path tmpVolume = emptyDir("tmp");
        Path cacheVolume = emptyDir("git-cache");
        // --read-only-tmpfs=false: podman's --read-only otherwise mounts writable tmpfs on /run, /tmp and /var/tmp,
        // which a pod does not have.
        List<String> run = new ArrayList<>(List.of("run", "--detach", "--name", container, "--network", "host",
                "--user", UID + ":" + UID, "--read-only", "--read-only-tmpfs=false",
                "--volume", tmpVolume + ":/tmp", "--volume", cacheVolume + ":/var/cache/nightshift",
                // allowPrivilegeEscalation: false, capabilities drop ALL; resources.limits
                "--cap-drop", "all", "--security-opt", "no-new-privileges", "--memory", MEMORY_LIMIT + "b", "--cpus", "1",
                "--env", "POD_NAME=" + container, "--env", "JAVA_TOOL_OPTIONS=" + JAVA_TOOL_OPTIONS,
                "--env", "KUBECONFIG=/var/run/nightshift/kubeconfig",
                "--volume", config + ":/etc/nightshift/config.yaml:ro",
                "--volume", secrets + ":/etc/nightshift/secrets:ro",
                "--volume", kubeconfig + ":/var/run/nightshift/kubeconfig:ro",
                "--volume", probe + ":/probe:ro",
                pushed));
        run.addAll(ARGS);
        podman.check(Duration.ofMinutes(1), run.toArray(String[]::new));
    }

    private static Path emptyDir(String name) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("volumes").resolve(name));
        var attributes = Files.getFileAttributeView(dir, java.nio.file.attribute.PosixFileAttributeView.class);
        attributes.setGroup(dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByGroupName(UID));
        // rwxrws---: the JDK's permission API has no setgid bit, chmod has
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwx---"));
        Process chmod = new ProcessBuilder("chmod", "g+s", dir.toString()).inheritIO().start();
        try {
            assertThat(chmod.waitFor()).as("chmod g+s " + dir).isZero();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        return dir;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @AfterAll
    void stop() throws Exception {
        try {
            if (podman != null) {
                Files.writeString(OUTPUT.resolve("image-it-container.log"), podman.run(Duration.ofSeconds(30), "logs", container).output());
                podman.run(Duration.ofMinutes(1), "rm", "--force", "--time", "5", container);
                // Another test may run the same image now: then it stays, and the next pull finds it there.
                podman.run(Duration.ofMinutes(1), "rmi", pushed);
            }
        } finally {
            if (registry != null) {
                registry.close();
            }
            if (harness != null) {
                harness.close();
            }
        }
    }

    @Test
    @Order(1)
    void holdsTheAgentAndTheCliWithTheirDependenciesAndNoSandboxMockServerOrTestCode() throws IOException {
        Path lib = rootfs.resolve("opt/nightshift/lib");
        Set<String> jars;
        try (Stream<Path> files = Files.list(lib)) {
            jars = files.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
        assertThat(jars).as("jars in /opt/nightshift/lib").contains("cli-%s.jar".formatted(VERSION), "agent-%s.jar".formatted(VERSION),
                "strategies-%s.jar".formatted(VERSION), "spec-diff-%s.jar".formatted(VERSION), "kubernetes-client-7.8.0.jar",
                "kubernetes-httpclient-jdk-7.8.0.jar").hasSizeGreaterThan(40);
        assertThat(jars).as("jars of the sandbox, its mock servers or tests").filteredOn(j -> NOT_SHIPPED_JAR.matcher(j).matches()).isEmpty();
        Map<String, List<String>> shippedTestCode = new TreeMap<>();
        for (String jar : jars) {
            try (JarFile file = new JarFile(lib.resolve(jar).toFile())) {
                List<String> found = file.stream().map(e -> e.getName())
                        .filter(name -> NOT_SHIPPED_CLASSES.stream().anyMatch(name::startsWith)).limit(3).toList();
                if (!found.isEmpty()) {
                    shippedTestCode.put(jar, found);
                }
            }
        }
        assertThat(shippedTestCode).as("classes of the sandbox, mock servers or tests, and plug-ins, by jar").isEmpty();
        try (Stream<Path> all = Files.walk(rootfs)) {
            assertThat(all.filter(p -> p.toString().endsWith(".jar")).map(p -> "/" + rootfs.relativize(p)))
                    .as("every jar in the image").containsExactlyInAnyOrderElementsOf(Stream.concat(
                            jars.stream().map(j -> "/opt/nightshift/lib/" + j),
                            Stream.of("/opt/nightshift/nightshift.jar", "/opt/java/lib/jrt-fs.jar")).toList());
        }
        // The launcher names exactly these jars, in Maven's order, and the CLI's main class.
        try (JarFile launcher = new JarFile(rootfs.resolve("opt/nightshift/nightshift.jar").toFile())) {
            var attributes = launcher.getManifest().getMainAttributes();
            assertThat(attributes.getValue("Main-Class")).isEqualTo("dev.nightshift.cli.Main");
            assertThat(Arrays.stream(attributes.getValue("Class-Path").split(" ")).map(p -> p.substring("lib/".length())))
                    .as("the launcher's Class-Path").containsExactlyInAnyOrderElementsOf(jars).startsWith("cli-%s.jar".formatted(VERSION));
        }
    }

    @Test
    @Order(2)
    void shipsAnSbomOfExactlyItsJarsItsRuntimeAndItsDebianLibraries() throws IOException {
        Path inside = rootfs.resolve("usr/share/nightshift/sbom.json");
        assertThat(inside).as("the SBOM in the image").hasSameBinaryContentAs(OUTPUT.resolve("nightshift-image.sbom.json"));
        JsonNode sbom = JSON.readTree(inside.toFile());
        assertThat(sbom.path("bomFormat").asText()).isEqualTo("CycloneDX");
        List<JsonNode> components = StreamSupport.stream(sbom.path("components").spliterator(), false).toList();
        Map<String, String> maven = components.stream().filter(c -> c.path("purl").asText().startsWith("pkg:maven/"))
                .collect(Collectors.toMap(c -> c.path("name").asText() + "-" + c.path("version").asText() + ".jar",
                        c -> StreamSupport.stream(c.path("hashes").spliterator(), false)
                                .filter(h -> h.path("alg").asText().equals("SHA-256")).map(h -> "sha256:" + h.path("content").asText())
                                .findFirst().orElse("no SHA-256")));
        Map<String, String> shipped = new TreeMap<>();
        try (Stream<Path> jars = Files.list(rootfs.resolve("opt/nightshift/lib"))) {
            for (Path jar : jars.toList()) {
                shipped.put(jar.getFileName().toString(), OciArchive.sha256(jar));
            }
        }
        assertThat(maven).as("the SBOM's Maven components (jar -> SHA-256) against the jars in the image").isEqualTo(shipped);
        List<JsonNode> debian = components.stream().filter(c -> c.path("purl").asText().startsWith("pkg:deb/debian/")).toList();
        assertThat(debian).extracting(c -> c.path("name").asText()).as("Debian packages in the SBOM")
                .contains("libc6", "openjdk-17-jdk-headless", "zlib1g");
        // Each names the files of it that the image holds; its copyright file among them.
        assertThat(debian).allSatisfy(c -> {
            String files = c.at("/properties/0/value").asText();
            assertThat(files.split(" ")).as("%s's files", c.path("name").asText()).contains(
                    "/usr/share/doc/" + c.path("name").asText() + "/copyright").allSatisfy(f -> assertThat(rootfs.resolve(f.substring(1)))
                    .as("%s of %s in the image", f, c.path("name").asText()).exists());
        });
        try (Stream<Path> libraries = Files.walk(rootfs.resolve("usr/lib"))) {
            List<String> listed = debian.stream().flatMap(c -> Arrays.stream(c.at("/properties/0/value").asText().split(" "))).toList();
            assertThat(libraries.filter(p -> p.getFileName().toString().matches(".*\\.so(\\.[0-9]+)*")).map(p -> "/" + rootfs.relativize(p)))
                    .as("shared libraries outside the runtime, each listed by its package").isNotEmpty().allSatisfy(l -> assertThat(listed).contains(l));
        }
        assertThat(sbom.at("/metadata/timestamp").asText()).isEqualTo(archive.config().path("created").asText());
    }

    @Test
    @Order(3)
    void isAnOciImageWithItsLabelsTheDeploymentsUserAndTheNightshiftCommand() throws Exception {
        String printed = Files.readString(OUTPUT.resolve("nightshift-image.digest")).trim();
        assertThat(printed).as("target/nightshift-image.digest").isEqualTo(archive.digest()).matches("sha256:[0-9a-f]{64}");
        // A real OCI client reads the archive with the same digest and the labels; pushed, the registry keeps the digest.
        JsonNode inspected = JSON.readTree(skopeo("inspect", "oci-archive:" + OUTPUT.resolve("nightshift-image.tar")));
        assertThat(inspected.path("Digest").asText()).as("skopeo inspect: %s", inspected).isEqualTo(archive.digest());
        JsonNode inRegistry = JSON.readTree(skopeo("inspect", "--tls-verify=false", "docker://" + registry.host() + "/nightshift:" + VERSION));
        assertThat(inRegistry.path("Digest").asText()).as("the digest of the pushed image").isEqualTo(archive.digest());
        JsonNode labels = inspected.path("Labels");
        String head = git("rev-parse", "HEAD");
        assertThat(labels.path("org.opencontainers.image.title").asText()).isEqualTo("nightshift");
        assertThat(labels.path("org.opencontainers.image.version").asText()).isEqualTo(VERSION);
        assertThat(labels.path("org.opencontainers.image.revision").asText()).as("the commit built").isIn(head, head + "-dirty");
        assertThat(labels.path("org.opencontainers.image.created").asText()).isEqualTo(archive.config().path("created").asText())
                .isEqualTo(java.time.Instant.ofEpochSecond(Long.parseLong(git("log", "-1", "--format=%ct"))).toString());
        for (String label : List.of("description", "source", "licenses")) {
            assertThat(labels.path("org.opencontainers.image." + label).asText()).as(label).isNotBlank();
        }
        JsonNode config = archive.config().path("config");
        assertThat(config.path("User").asText()).isEqualTo(UID + ":" + UID);
        assertThat(strings(config.path("Entrypoint"))).isEqualTo(ENTRYPOINT);
        assertThat(strings(config.path("Cmd"))).as("the default arguments: the Deployment's").isEqualTo(ARGS);
        assertThat(config.path("ExposedPorts").has("9400/tcp")).isTrue();
        assertThat(strings(config.path("Env"))).as("the image's environment: its JAVA_TOOL_OPTIONS the Deployment's, so that the "
                + "image alone runs as it does").contains("JAVA_TOOL_OPTIONS=" + JAVA_TOOL_OPTIONS);
        assertThat(archive.layerTypes()).hasSize(4).containsOnly("application/vnd.oci.image.layer.v1.tar+gzip");
        assertThat(archive.refName()).isEqualTo("nightshift:" + VERSION);
    }

    @Test
    @Order(4)
    void becomesReadyRunAsTheDeploymentRunsIt() throws Exception {
        awaitReady();
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
        assertThat(get("/readyz").body()).contains("leading");
    }

    @Test
    @Order(5)
    void runsItsEntrypointAsTheNonRootUserWithAReadOnlyRootAndNoCapabilities() throws Exception {
        awaitReady();
        String pid = podman.check(Duration.ofSeconds(30), "inspect", "--format", "{{.State.Pid}}", container).trim();
        Path proc = Path.of("/proc", pid);
        List<String> status = Files.readAllLines(proc.resolve("status"));
        assertThat(status).as("/proc/%s/status of the agent", pid).contains("Uid:\t%1$s\t%1$s\t%1$s\t%1$s".formatted(UID),
                "Gid:\t%1$s\t%1$s\t%1$s\t%1$s".formatted(UID), "NoNewPrivs:\t1", "CapEff:\t0000000000000000");
        assertThat(Files.readString(proc.resolve("cmdline")).split("\0")).as("the agent's command line")
                .containsExactlyElementsOf(Stream.concat(ENTRYPOINT.stream(), ARGS.stream()).toList());
        String root = Files.readAllLines(proc.resolve("mountinfo")).stream().map(l -> l.split(" "))
                .filter(f -> f[4].equals("/")).map(f -> f[5]).findFirst().orElseThrow();
        assertThat(root.split(",")).as("the mount options of the agent's /").contains("ro");

        String probe = podman.check(Duration.ofMinutes(1), "exec", container, "/opt/java/bin/java", "-cp", "/probe",
                WriteProbe.class.getName(), "/", "/opt/nightshift", "/etc/nightshift", "/usr/share/nightshift", "/tmp",
                "/var/cache/nightshift");
        List<String> lines = probe.lines().filter(l -> !l.startsWith("Picked up JAVA_TOOL_OPTIONS")).toList();
        assertThat(lines).as("the write probe in the container").contains("Uid:\t%1$s\t%1$s\t%1$s\t%1$s".formatted(UID),
                // LANG=C.UTF-8 works: the image has glibc's C.UTF-8 locale
                "encoding\tUTF-8\tUTF-8");
        for (String dir : List.of("/tmp", "/var/cache/nightshift")) {
            assertThat(lines).as("writing in %s", dir).anySatisfy(l -> assertThat(l).startsWith(dir + "\twritten\t"));
        }
        for (String dir : List.of("/", "/opt/nightshift", "/etc/nightshift", "/usr/share/nightshift")) {
            assertThat(lines).as("writing in %s", dir).anySatisfy(l -> assertThat(l).startsWith(dir + "\trefused\t")
                    .contains("Read-only file system"));
        }
    }

    @Test
    @Order(6)
    void offersTheAgentsCommandsAndNotTheSandboxs() throws Exception {
        awaitReady();
        String help = podman.check(Duration.ofMinutes(1), "exec", container, "/opt/java/bin/java", "-jar", "/opt/nightshift/nightshift.jar",
                "--help");
        assertThat(help).contains("run ", "plan ", "diff ", "simulate ", "windows ").doesNotContain("demo", "sandbox");
        String runHelp = podman.check(Duration.ofMinutes(1), "exec", container, "/opt/java/bin/java", "-jar",
                "/opt/nightshift/nightshift.jar", "run", "--help");
        assertThat(runHelp).contains("Usage: nightshift run", "--config", "--provider");
        String version = podman.check(Duration.ofMinutes(1), "exec", container, "/opt/java/bin/java", "-jar",
                "/opt/nightshift/nightshift.jar", "--version");
        assertThat(version).contains("nightshift " + VERSION);
    }

    @Test
    @Order(7)
    void adoptsThePoolAndRollsItThroughTheMachineApi() throws Exception {
        awaitReady();
        harness.awaitAdopted(POOL, NODES);
        Start start = RolloutInvariants.clearAndSnapshot(harness, POOL);

        harness.push("image bump", WEB.withImage("1632.0.0"));

        try {
            await("the pool rolled to 1632.0.0 by the agent in the image").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(250))
                    .untilAsserted(() -> RolloutInvariants.assertRolledOut(harness, POOL, new Limits(NODES, 1, 0), start));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "\nthe container's log:\n" + logs(), e);
        }
        assertThat(harness.nodes(POOL)).extracting(n -> n.getMetadata().getName()).as("every old node replaced")
                .doesNotContainAnyElementsOf(start.nodes().stream().map(n -> n.getMetadata().getName()).toList());
        // The agent in the image did it: its requests name the version in their User-Agent (the thin cli jar's), and
        // among them are the cordons and marks on the nodes.
        List<RecordedRequest> agents = harness.kube.requests().stream().filter(r -> r.userAgent().startsWith("nightshift/")).toList();
        assertThat(agents).as("requests of the agent in the image").isNotEmpty()
                .allSatisfy(r -> assertThat(r.userAgent()).isEqualTo("nightshift/" + VERSION))
                .anySatisfy(r -> assertThat(r.method() + " " + r.resourcePath()).startsWith("PATCH /api/v1/nodes/"));
    }

    private void awaitReady() throws Exception {
        try {
            await("/readyz answers 200").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                    .failFast("the container stopped", () -> !podman.check(Duration.ofSeconds(30), "inspect", "--format",
                            "{{.State.Running}}", container).trim().equals("true"))
                    .until(() -> get("/readyz").statusCode() == 200);
        } catch (org.awaitility.core.ConditionTimeoutException | org.awaitility.core.TerminalFailureException e) {
            throw new AssertionError(e.getMessage() + "\nthe container's log:\n" + logs(), e);
        }
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private String logs() throws IOException, InterruptedException {
        return podman.run(Duration.ofSeconds(30), "logs", "--tail", "60", container).output();
    }

    private static List<String> strings(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
    }

    /** Runs skopeo and returns its standard output; fails with its error output unless it exits 0. */
    private static String skopeo(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("skopeo"));
        command.addAll(List.of(args));
        Path errors = Files.createTempFile(tmp, "skopeo", ".err");
        Process skopeo = new ProcessBuilder(command).redirectError(errors.toFile()).start();
        String out = new String(skopeo.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(skopeo.waitFor(3, TimeUnit.MINUTES) && skopeo.exitValue() == 0).as("%s: %s", String.join(" ", command),
                Files.readString(errors)).isTrue();
        return out;
    }

    private static String git(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-C", BUILD_IMAGE.getParent().toString()));
        command.addAll(List.of(args));
        Process git = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(git.waitFor(30, TimeUnit.SECONDS) && git.exitValue() == 0).as(String.join(" ", command)).isTrue();
        return out;
    }
}
