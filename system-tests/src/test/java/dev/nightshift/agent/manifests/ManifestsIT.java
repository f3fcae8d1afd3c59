package dev.nightshift.agent.manifests;

import static dev.nightshift.agent.manifests.Manifests.list;
import static dev.nightshift.agent.manifests.Manifests.map;
import static dev.nightshift.agent.manifests.Manifests.strings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.nightshift.cli.JavaCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.config.AgentConfigLoader;
import dev.nightshift.sandbox.SandboxProcess;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;

/**
 * The kustomize layout renders, with the real {@code kubectl kustomize}, into objects of their Kubernetes types that
 * agree with each other and with the agent: the base chooses no provider (and the agent refuses to start on it),
 * each overlay names its own and carries only its provider's permissions (node create and delete only in
 * {@code simulated}), every file a configuration names is mounted and is a key of a Secret of
 * {@code secret.yaml.example}, ports, probes, Service, ServiceMonitor, NetworkPolicy and PodDisruptionBudget line up,
 * and an overlay of the user's own sets the image by its digest. (That the RBAC is enough and no more is RbacIT's,
 * ClusterApiRbacIT's and JobUpdaterRbacIT's job; that an applied overlay runs, InstallIT's.)
 */
class ManifestsIT {

    static final List<String> OVERLAYS = Manifests.OVERLAYS;
    /** Kinds without a model in fabric8's client: the Prometheus Operator's. */
    private static final Set<String> CUSTOM_KINDS = Set.of("ServiceMonitor", "PrometheusRule");
    private static final Set<String> CLUSTER_SCOPED = Set.of("Namespace", "ClusterRole", "ClusterRoleBinding");

    private final Path dir = Manifests.directory();

    @TempDir
    Path tmp;

    /** Each overlay rendered, by name, once for all the tests (kubectl takes a fraction of a second each time). */
    private static final Map<String, List<Manifests.Document>> RENDERED = new java.util.concurrent.ConcurrentHashMap<>();

    private static List<Manifests.Document> overlay(String name) {
        return RENDERED.computeIfAbsent(name, Manifests::overlayRendered);
    }

    private static Manifests.Document one(List<Manifests.Document> documents, String kind) {
        List<Manifests.Document> found = documents.stream().filter(d -> d.kind().equals(kind)).toList();
        assertThat(found).as("one %s in %s", kind, documents.isEmpty() ? "nothing" : documents.get(0).file()).hasSize(1);
        return found.get(0);
    }

    private static Map<String, Object> at(Manifests.Document d, String... path) {
        Map<String, Object> m = d.content();
        for (String key : path) {
            m = map(m.get(key));
        }
        return m;
    }

    private static Map<String, Object> podSpec(List<Manifests.Document> documents) {
        return at(one(documents, "Deployment"), "spec", "template", "spec");
    }

    private static Map<String, Object> container(List<Manifests.Document> documents) {
        return map(list(podSpec(documents).get("containers")).get(0));
    }

    private static Map<String, Object> podLabels(List<Manifests.Document> documents) {
        return at(one(documents, "Deployment"), "spec", "template", "metadata", "labels");
    }

    /** The volume mounted where {@code file} is, as its definition in the pod spec (the longest mount path holding it). */
    private static Map<String, Object> volumeHolding(List<Manifests.Document> documents, Path file) {
        Map<String, Object> mount = list(container(documents).get("volumeMounts")).stream().map(Manifests::map)
                .filter(m -> file.startsWith(Path.of(String.valueOf(m.get("mountPath")))))
                .max((a, b) -> String.valueOf(a.get("mountPath")).length() - String.valueOf(b.get("mountPath")).length())
                .orElseThrow(() -> new AssertionError("no volume mounted where " + file + " is"));
        return list(podSpec(documents).get("volumes")).stream().map(Manifests::map).filter(v -> v.get("name").equals(mount.get("name")))
                .findFirst().orElseThrow(() -> new AssertionError("volume " + mount.get("name") + " is mounted but not defined"));
    }

    /** The text of the configuration file the rendered ConfigMap carries, which the Deployment mounts. */
    private static String configText(List<Manifests.Document> documents) {
        String configMap = String.valueOf(map(volumeHolding(documents, configPath(documents)).get("configMap")).get("name"));
        Manifests.Document d = documents.stream().filter(x -> x.kind().equals("ConfigMap") && x.name().equals(configMap)).findFirst()
                .orElseThrow(() -> new AssertionError("the Deployment mounts ConfigMap " + configMap + ", which is not rendered"));
        return String.valueOf(at(d, "data").get(configPath(documents).getFileName().toString()));
    }

    private static Path configPath(List<Manifests.Document> documents) {
        List<String> args = strings(container(documents).get("args"));
        assertThat(args).startsWith("run").contains("--config");
        return Path.of(args.get(args.indexOf("--config") + 1));
    }

    private AgentConfigLoader.Result load(String text) throws IOException {
        return new AgentConfigLoader().load(Files.writeString(tmp.resolve("config.yaml"), text));
    }

    private AgentConfig agentConfig(List<Manifests.Document> documents) throws IOException {
        AgentConfigLoader.Result loaded = load(configText(documents));
        assertThat(loaded.errors()).as("the agent refuses its configuration").isEmpty();
        return loaded.config().orElseThrow();
    }

    /** Every file the configuration names: what must be mounted. */
    private static List<Path> filesNamed(AgentConfig config) {
        List<Optional<Path>> files = new ArrayList<>(List.of(config.git().auth().tokenFile(), config.git().auth().sshKeyFile(),
                config.git().auth().knownHostsFile(), config.git().caFile(), config.webhook().secretFile()));
        config.provider().ifPresent(p -> files.addAll(List.of(p.http().tokenFile(), p.http().caFile(), p.clusterApi().kubeconfigFile())));
        return files.stream().flatMap(Optional::stream).toList();
    }

    // ---- rendering --------------------------------------------------------------------------------------------

    /** The base, the overlays and the two optional directories, as {@code kubectl kustomize} renders them. */
    static Stream<Path> kustomizations() {
        Path manifests = Manifests.directory();
        return Stream.concat(Stream.of(manifests.resolve("base")), Stream.concat(OVERLAYS.stream().map(Manifests::overlay),
                Stream.of(manifests.resolve("monitoring"), manifests.resolve("node-updates"))));
    }

    @Test
    void everyKustomizationRendersIntoObjectsOfTheirKubernetesTypesWithNoUnknownField() {
        List<Path> all = kustomizations().toList();
        Map<String, List<String>> problems = new LinkedHashMap<>();
        for (Path kustomization : all) {
            List<Manifests.Document> documents = Manifests.rendered(kustomization);
            assertThat(documents).as("%s renders objects", kustomization).isNotEmpty();
            for (Manifests.Document d : documents) {
                List<String> found = StrictModel.problems(d.content(), CUSTOM_KINDS);
                if (!found.isEmpty()) {
                    problems.put(dir.relativize(kustomization) + ": " + d.kind() + " " + d.name(), found);
                }
            }
        }
        assertThat(problems).as("objects that are not their Kubernetes type, or carry fields it does not have").isEmpty();
    }

    @Test
    void theOptionalDirectoriesRenderExactlyTheFilesTheirKustomizationsList() {
        assertThat(Manifests.rendered(dir.resolve("monitoring"))).extracting(Manifests.Document::kind)
                .containsExactlyInAnyOrder("PrometheusRule", "ServiceMonitor");
        assertThat(Manifests.rendered(dir.resolve("node-updates"))).extracting(Manifests.Document::kind)
                .as("job-updater.yaml only; pin-updater-image.yaml is optional and untested")
                .containsExactlyInAnyOrder("Namespace", "ServiceAccount", "Role", "RoleBinding");
        assertThat(dir.resolve("monitoring/kustomization.yaml")).as("kubectl apply -f manifests/monitoring/ would try to apply it")
                .doesNotExist();
        assertThat(dir.resolve("node-updates/kustomization.yaml")).as("kubectl apply -f would try to apply it").doesNotExist();
    }

    // ---- providers --------------------------------------------------------------------------------------------

    @Test
    void theBaseChoosesNoProviderAndTheAgentRefusesToStartOnItWithOneLine() throws Exception {
        List<Manifests.Document> base = Manifests.rendered(dir.resolve("base"));
        AgentConfig config = agentConfig(base);
        assertThat(config.provider()).as("run has no default provider; the base chooses none").isEmpty();

        Path file = Files.writeString(tmp.resolve("base-config.yaml"), configText(base));
        List<String> command = JavaCommand.jar(SandboxProcess.JAR);
        command.addAll(List.of("run", "--config", file.toString()));
        Process run = new ProcessBuilder(command)
                .redirectOutput(tmp.resolve("run.out").toFile()).redirectError(tmp.resolve("run.err").toFile()).start();
        assertThat(run.waitFor(60, TimeUnit.SECONDS)).as("run exits at once").isTrue();
        assertThat(run.exitValue()).as("a usage error").isEqualTo(2);
        assertThat(Files.readString(tmp.resolve("run.err"), StandardCharsets.UTF_8).lines().toList()).singleElement().asString()
                .startsWith("no machine provider is named: set provider.type in the configuration or --provider");
    }

    @ParameterizedTest
    @FieldSource("OVERLAYS")
    void eachOverlayNamesItsProviderInTheBasesConfigurationFollowedByItsProviderSection(String overlay) throws IOException {
        List<Manifests.Document> documents = overlay(overlay);
        assertThat(agentConfig(documents).provider()).get().extracting(AgentConfig.Provider::type).isEqualTo(overlay);

        String base = Files.readString(dir.resolve("base/config.yaml"), StandardCharsets.UTF_8);
        String own = Files.readString(Manifests.overlay(overlay).resolve("config.yaml"), StandardCharsets.UTF_8);
        assertThat(own).as("overlays/%s/config.yaml is the base's file with the provider's section after it", overlay).startsWith(base);
        assertThat(configText(documents)).as("the ConfigMap the Deployment mounts holds the overlay's file").isEqualTo(own);
        assertThat(own.substring(base.length())).as("the provider's section marks what to edit").containsPattern("(?m)^provider:");
    }

    @Test
    void onlyTheSimulatedOverlayLetsTheAgentCreateOrDeleteNodes() {
        Map<String, List<String>> nodeWrites = new LinkedHashMap<>();
        for (String overlay : Stream.concat(Stream.of("base"), OVERLAYS.stream()).toList()) {
            List<Manifests.Document> documents = overlay.equals("base") ? Manifests.rendered(dir.resolve("base")) : overlay(overlay);
            nodeWrites.put(overlay, Rbac.forAgent(documents, documents).grants().stream()
                    .filter(g -> g.apiGroup().isEmpty() && g.resource().equals("nodes") && Set.of("create", "delete").contains(g.verb()))
                    .map(Rbac.Grant::verb).sorted().toList());
        }
        assertThat(nodeWrites).containsExactly(Map.entry("base", List.of()), Map.entry("cluster-api", List.of()),
                Map.entry("http", List.of()), Map.entry("simulated", List.of("create", "delete")));
    }

    @Test
    void onlyTheClusterApiOverlayGrantsAnythingOnClusterApisObjects() {
        for (String overlay : OVERLAYS) {
            boolean capi = Rbac.forAgent(overlay(overlay), overlay(overlay)).grants().stream()
                    .anyMatch(g -> g.apiGroup().endsWith("cluster.x-k8s.io"));
            assertThat(capi).as("%s grants on cluster.x-k8s.io", overlay).isEqualTo(overlay.equals("cluster-api"));
        }
    }

    // ---- objects and namespaces -------------------------------------------------------------------------------

    @ParameterizedTest
    @FieldSource("OVERLAYS")
    void theNamespaceComesFirstAndEveryNamespacedObjectNamesItsNamespace(String overlay) {
        List<Manifests.Document> documents = overlay(overlay);
        assertThat(documents.get(0).kind()).isEqualTo("Namespace");
        assertThat(documents.get(0).name()).isEqualTo("nightshift-system");
        assertThat(documents).filteredOn(d -> !CLUSTER_SCOPED.contains(d.kind()))
                .as("never the namespace of whoever runs kubectl apply")
                .allSatisfy(d -> assertThat(d.namespace()).as("%s", d).isIn("nightshift-system", "default"));
        assertThat(documents).filteredOn(d -> d.namespace().equals("default"))
                .as("in default, only the Role to create node Events and its binding")
                .extracting(Manifests.Document::kind, Manifests.Document::name)
                .containsExactlyInAnyOrder(tuple("Role", "nightshift-node-events"), tuple("RoleBinding", "nightshift-node-events"));
        assertThat(documents).extracting(Manifests.Document::kind).as("no Secret: it is created apart, never from Git")
                .doesNotContain("Secret");
    }

    @ParameterizedTest
    @FieldSource("OVERLAYS")
    void noRoleUsesAWildcardOrANonResourceUrl(String overlay) {
        List<Map<String, Object>> rules = overlay(overlay).stream().filter(d -> d.kind().equals("ClusterRole") || d.kind().equals("Role"))
                .flatMap(d -> list(d.content().get("rules")).stream().map(Manifests::map)).toList();
        assertThat(rules).isNotEmpty().allSatisfy(rule -> {
            assertThat(rule).doesNotContainKey("nonResourceURLs");
            for (String field : List.of("apiGroups", "resources", "verbs")) {
                assertThat(strings(rule.get(field))).as("%s of %s", field, rule).isNotEmpty().noneMatch(v -> v.contains("*"));
            }
        });
    }

    // ---- files, Secrets, ports ----------------------------------------------------------------------------------

    @ParameterizedTest
    @FieldSource("OVERLAYS")
    void everyFileTheConfigurationNamesIsMountedFromASecretOfTheExampleUnderItsKey(String overlay) throws IOException {
        List<Manifests.Document> documents = overlay(overlay);
        AgentConfig config = agentConfig(documents);
        assertThat(volumeHolding(documents, config.cacheDir())).as("the Git cache is writable scratch space").containsKey("emptyDir");

        Map<String, Set<String>> example = secretKeys();
        for (Path file : filesNamed(config)) {
            Map<String, Object> secret = map(volumeHolding(documents, file).get("secret"));
            String name = String.valueOf(secret.get("secretName"));
            assertThat(example).as("%s comes from Secret %s, which secret.yaml.example shows", file, name).containsKey(name);
            assertThat(example.get(name)).as("%s is a key of Secret %s in secret.yaml.example", file, name)
                    .contains(file.getFileName().toString());
            assertThat(secret).as("%s: never optional, so that a missing Secret is a mount error", name).doesNotContainEntry("optional", true);
        }
        assertThat(filesNamed(config)).as("the Git token and the webhook secret at least").hasSizeGreaterThanOrEqualTo(2);
    }

    @Test
    void everyKeyOfTheSecretExampleIsAFileAnOverlaysConfigurationNamesCommentedOrNot() throws IOException {
        StringBuilder configs = new StringBuilder();
        for (String overlay : OVERLAYS) {
            configs.append(Files.readString(Manifests.overlay(overlay).resolve("config.yaml"), StandardCharsets.UTF_8));
        }
        Map<String, Set<String>> example = secretKeys();
        assertThat(example).containsOnlyKeys("nightshift-git", "nightshift-machine-api");
        for (String overlay : OVERLAYS) {
            List<Manifests.Document> documents = overlay(overlay);
            for (String secret : example.keySet()) {
                Optional<Map<String, Object>> mount = list(container(documents).get("volumeMounts")).stream().map(Manifests::map)
                        .filter(m -> list(podSpec(documents).get("volumes")).stream().map(Manifests::map)
                                .anyMatch(v -> v.get("name").equals(m.get("name"))
                                        && secret.equals(map(v.get("secret")).get("secretName"))))
                        .findFirst();
                assertThat(mount.isPresent()).as("%s mounts Secret %s", overlay, secret)
                        .isEqualTo(secret.equals("nightshift-git") || overlay.equals("http"));
                mount.ifPresent(m -> example.get(secret).forEach(key -> assertThat(configs.toString())
                        .as("a configuration names %s of Secret %s", key, secret).contains(m.get("mountPath") + "/" + key)));
            }
        }
    }

    /** The Secrets of {@code secret.yaml.example}: name to keys (of {@code stringData}). */
    private Map<String, Set<String>> secretKeys() {
        Map<String, Set<String>> keys = new LinkedHashMap<>();
        for (Manifests.Document d : Manifests.read(dir.resolve("secret.yaml.example"))) {
            assertThat(d.kind()).isEqualTo("Secret");
            assertThat(d.namespace()).isEqualTo("nightshift-system");
            keys.put(d.name(), map(d.content().get("stringData")).keySet());
        }
        return keys;
    }

    @ParameterizedTest
    @FieldSource("OVERLAYS")
    void theHttpPortProbesServiceServiceMonitorAndNetworkPolicyLineUp(String overlay) throws IOException {
        List<Manifests.Document> documents = overlay(overlay);
        AgentConfig config = agentConfig(documents);
        Map<String, Object> port = map(list(container(documents).get("ports")).get(0));
        assertThat(list(container(documents).get("ports"))).as("one port: webhook, metrics, status and probes").hasSize(1);
        assertThat(port).containsEntry("name", "http").containsEntry("containerPort", config.http().port());
        assertThat(container(documents)).extractingByKeys("startupProbe", "livenessProbe", "readinessProbe")
                .extracting(p -> map(map(p).get("httpGet")).get("path") + " " + map(map(p).get("httpGet")).get("port"))
                .containsExactly("/healthz http", "/healthz http", "/readyz http");

        Manifests.Document service = one(documents, "Service");
        Map<String, Object> servicePort = map(list(at(service, "spec").get("ports")).get(0));
        assertThat(servicePort).containsEntry("name", "http").containsEntry("port", 9400).containsEntry("targetPort", "http");
        assertThat(podLabels(documents)).containsAllEntriesOf(map(at(service, "spec").get("selector")));

        Manifests.Document monitor = Manifests.read(dir.resolve("monitoring/servicemonitor.yaml")).get(0);
        assertThat(service.metadata().get("labels")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsAllEntriesOf(map(at(monitor, "spec", "selector").get("matchLabels")));
        assertThat(strings(at(monitor, "spec", "namespaceSelector").get("matchNames"))).containsExactly(service.namespace());
        assertThat(list(at(monitor, "spec").get("endpoints"))).singleElement()
                .satisfies(e -> assertThat(map(e)).containsEntry("port", "http").containsEntry("path", "/metrics"));

        NetworkPolicy policy = (NetworkPolicy) StrictModel.typed(one(documents, "NetworkPolicy").content());
        assertThat(podLabels(documents)).containsAllEntriesOf(policy.getSpec().getPodSelector().getMatchLabels());
        assertThat(policy.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");
        assertThat(policy.getSpec().getIngress()).as("ingress only to the agent's port, from named namespaces").allSatisfy(rule -> {
            assertThat(rule.getPorts()).extracting(p -> p.getPort().getStrVal()).containsExactly("http");
            assertThat(rule.getFrom()).isNotEmpty().allSatisfy(from -> assertThat(from.getNamespaceSelector()).isNotNull());
        });
        assertThat(policy.getSpec().getEgress()).flatExtracting(r -> r.getPorts())
                .extracting(p -> p.getProtocol() + "/" + p.getPort().getIntVal())
                .as("DNS, the API server, Git over HTTPS and SSH").contains("UDP/53", "TCP/53", "TCP/443", "TCP/6443", "TCP/22");
        assertThat(policy.getSpec().getEgress()).as("the http overlay adds the machine API")
                .hasSize(overlay.equals("http") ? 4 : 3);
    }

    // ---- the Deployment ---------------------------------------------------------------------------------------

    @ParameterizedTest
    @FieldSource("OVERLAYS")
    void theAgentRunsLockedDownAsTwoReplicasThatElectALeaderAndOneMayBeDisrupted(String overlay) throws IOException {
        List<Manifests.Document> documents = overlay(overlay);
        Deployment deployment = (Deployment) StrictModel.typed(one(documents, "Deployment").content());
        assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
        assertThat(deployment.getSpec().getStrategy().getType()).isEqualTo("RollingUpdate");
        assertThat(agentConfig(documents).leaderElection().enabled()).as("two replicas act only with leader election").isTrue();
        var container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(container.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("POD_NAME");
            assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.name");
        });
        assertThat(container.getImage()).as("the base's placeholder, until an overlay of the user's own sets it")
                .isEqualTo("nightshift:set-by-your-overlay");

        var pod = deployment.getSpec().getTemplate().getSpec();
        assertThat(pod.getServiceAccountName()).isEqualTo(one(documents, "ServiceAccount").name());
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        var security = container.getSecurityContext();
        assertThat(List.of(security.getRunAsNonRoot(), security.getReadOnlyRootFilesystem(), !security.getAllowPrivilegeEscalation()))
                .containsOnly(true);
        assertThat(security.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(security.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(container.getResources().getRequests()).containsKeys("cpu", "memory");
        assertThat(container.getResources().getLimits()).containsKeys("cpu", "memory");
        assertThat(container.getResources().getRequests().get("memory"))
                .as("memory requested as limited: the JVM sizes its heap from the limit").isEqualTo(container.getResources().getLimits().get("memory"));

        PodDisruptionBudget budget = (PodDisruptionBudget) StrictModel.typed(one(documents, "PodDisruptionBudget").content());
        assertThat(podLabels(documents)).containsAllEntriesOf(budget.getSpec().getSelector().getMatchLabels());
        assertThat(budget.getSpec().getMaxUnavailable().getIntVal()).as("one replica at a time, the other stays").isEqualTo(1);
        assertThat(budget.getSpec().getUnhealthyPodEvictionPolicy()).as("unready replicas never block a drain").isEqualTo("AlwaysAllow");
    }

    @Test
    void anOverlayOfTheUsersOwnSetsTheImageByTheDigestAndKeepsTheRest() throws IOException {
        String digest = "sha256:" + "0123456789abcdef".repeat(4);
        Path own = Files.createDirectories(tmp.resolve("my-nightshift"));
        Files.writeString(own.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                bases:
                  - %s
                images:
                  - name: nightshift
                    newName: registry.example.com/platform/nightshift
                    digest: %s
                """.formatted(own.relativize(Manifests.overlay("http")), digest));

        List<Manifests.Document> documents = Manifests.rendered(own);

        assertThat(strings(list(podSpec(documents).get("containers")).stream().map(c -> map(c).get("image")).toList()))
                .containsExactly("registry.example.com/platform/nightshift@" + digest);
        assertThat(documents).extracting(Manifests.Document::kind, Manifests.Document::name)
                .as("everything else as the overlay renders it")
                .containsExactlyElementsOf(overlay("http").stream().map(d -> tuple(d.kind(), d.name())).toList());
    }

    // ---- node updates by Job ----------------------------------------------------------------------------------

    /** The documents of {@code file} as the typed objects kubectl would send: a misspelt kind or version stays generic. */
    private static List<HasMetadata> typed(Path file) {
        return Manifests.read(file).stream().map(d -> StrictModel.typed(d.content())).toList();
    }

    @Test
    void theNodeUpdatesNamespaceIsPrivilegedAndOnlyTheAgentMayRunJobsThere() {
        List<HasMetadata> objects = typed(dir.resolve("node-updates/job-updater.yaml"));

        assertThat(objects).extracting(o -> o.getClass().getSimpleName())
                .containsExactly("Namespace", "ServiceAccount", "Role", "RoleBinding");
        for (String overlay : OVERLAYS) {
            assertThat(overlay(overlay)).as("applied only by whoever uses node updates by Job")
                    .noneMatch(d -> d.namespace().equals("nightshift-node-updates") || d.name().equals("nightshift-node-updates"));
        }
        Namespace namespace = (Namespace) objects.get(0);
        assertThat(namespace.getMetadata().getName()).isEqualTo("nightshift-node-updates");
        assertThat(namespace.getMetadata().getLabels()).containsEntry("pod-security.kubernetes.io/enforce", "privileged");
        ServiceAccount updater = (ServiceAccount) objects.get(1);
        assertThat(updater.getMetadata().getName()).isEqualTo("nightshift-node-updater");
        assertThat(updater.getAutomountServiceAccountToken()).as("the updater needs no API permission").isFalse();
        Role role = (Role) objects.get(2);
        assertThat(role.getRules()).extracting(PolicyRule::getApiGroups, PolicyRule::getResources, PolicyRule::getVerbs)
                .containsExactly(tuple(List.of("batch"), List.of("jobs"), List.of("create", "get", "list", "delete")),
                        tuple(List.of(""), List.of("pods"), List.of("list")));
        RoleBinding binding = (RoleBinding) objects.get(3);
        assertThat(binding.getRoleRef().getKind() + "/" + binding.getRoleRef().getName()).isEqualTo("Role/" + role.getMetadata().getName());
        ServiceAccount agent = (ServiceAccount) typed(dir.resolve("base/serviceaccount.yaml")).get(0);
        assertThat(binding.getSubjects()).singleElement().satisfies(s -> assertThat(List.of(s.getKind(), s.getName(), s.getNamespace()))
                .containsExactly("ServiceAccount", agent.getMetadata().getName(), agent.getMetadata().getNamespace()));
        assertThat(objects.subList(1, 4)).allSatisfy(o -> assertThat(o.getMetadata().getNamespace()).isEqualTo("nightshift-node-updates"));
    }

    @Test
    void theImagePinningPolicyIsAValidatingAdmissionPolicyBoundToDenyInTheNodeUpdatesNamespace() {
        List<HasMetadata> objects = typed(dir.resolve("node-updates/pin-updater-image.yaml"));

        assertThat(objects).extracting(o -> (Object) o.getClass()).containsExactly(ValidatingAdmissionPolicy.class, ValidatingAdmissionPolicyBinding.class);
        ValidatingAdmissionPolicy policy = (ValidatingAdmissionPolicy) objects.get(0);
        ValidatingAdmissionPolicyBinding binding = (ValidatingAdmissionPolicyBinding) objects.get(1);
        assertThat(binding.getSpec().getPolicyName()).isEqualTo(policy.getMetadata().getName());
        assertThat(binding.getSpec().getValidationActions()).containsExactly("Deny");
        assertThat(policy.getSpec().getFailurePolicy()).isEqualTo("Fail");
        assertThat(policy.getSpec().getMatchConstraints().getNamespaceSelector().getMatchLabels())
                .containsEntry("kubernetes.io/metadata.name", "nightshift-node-updates");
        assertThat(policy.getSpec().getMatchConstraints().getResourceRules()).flatExtracting(r -> r.getResources())
                .contains("jobs", "pods");
        assertThat(policy.getSpec().getValidations()).singleElement()
                .satisfies(v -> assertThat(v.getExpression()).contains("c.image == '"));
    }
}
