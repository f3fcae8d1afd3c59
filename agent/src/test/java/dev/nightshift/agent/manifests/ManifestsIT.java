package dev.nightshift.agent.manifests;

import static dev.nightshift.agent.manifests.Manifests.list;
import static dev.nightshift.agent.manifests.Manifests.map;
import static dev.nightshift.agent.manifests.Manifests.strings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.config.AgentConfigLoader;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * The manifests are well-formed and agree with each other and with the agent: the configuration is
 * one the agent accepts, every file it names is mounted, the ports, probes, selectors and the
 * Kustomization line up. (That the RBAC is right is RbacIT's job.)
 */
class ManifestsIT {

    private static final Set<String> CLUSTER_SCOPED = Set.of("Namespace", "ClusterRole", "ClusterRoleBinding");

    private final Path dir = Manifests.directory();
    private final List<Manifests.Document> applied = Manifests.applied(dir);

    @TempDir
    Path tmp;

    private Manifests.Document one(String kind) {
        List<Manifests.Document> found = applied.stream().filter(d -> d.kind().equals(kind)).toList();
        assertThat(found).as("one %s in the applied manifests", kind).hasSize(1);
        return found.get(0);
    }

    private static Map<String, Object> at(Manifests.Document d, String... path) {
        Map<String, Object> m = d.content();
        for (String key : path) {
            m = map(m.get(key));
        }
        return m;
    }

    private Map<String, Object> podSpec() {
        return at(one("Deployment"), "spec", "template", "spec");
    }

    private Map<String, Object> container() {
        return map(list(podSpec().get("containers")).get(0));
    }

    /** The volume whose mount holds {@code file}, as its definition in the pod spec. */
    private Map<String, Object> volumeHolding(Path file) {
        Map<String, Object> mount = list(container().get("volumeMounts")).stream().map(Manifests::map)
                .filter(m -> file.startsWith(Path.of(String.valueOf(m.get("mountPath")))))
                .max((a, b) -> String.valueOf(a.get("mountPath")).length() - String.valueOf(b.get("mountPath")).length())
                .orElseThrow(() -> new AssertionError("no volume mounted where " + file + " is"));
        return list(podSpec().get("volumes")).stream().map(Manifests::map).filter(v -> v.get("name").equals(mount.get("name")))
                .findFirst().orElseThrow(() -> new AssertionError("volume " + mount.get("name") + " is mounted but not defined"));
    }

    private AgentConfig agentConfig() throws IOException {
        Manifests.Document configMap = applied.stream().filter(d -> d.kind().equals("ConfigMap") && d.name().equals("nightshift-config"))
                .findFirst().orElseThrow();
        Path file = Files.writeString(tmp.resolve("config.yaml"), String.valueOf(at(configMap, "data").get("config.yaml")));
        AgentConfigLoader.Result loaded = new AgentConfigLoader().load(file);
        assertThat(loaded.errors()).as("the agent refuses its configuration").isEmpty();
        return loaded.config().orElseThrow();
    }

    @Test
    void everyManifestIsYamlWithApiVersionKindAndName() throws IOException {
        List<Path> files;
        try (Stream<Path> all = Files.walk(dir)) {
            files = all.filter(Files::isRegularFile).filter(f -> f.getFileName().toString().matches(".*\\.(yaml|yml|yaml\\.example)"))
                    .sorted().toList();
        }
        assertThat(files).extracting(f -> dir.relativize(f).toString())
                .contains("00-namespace.yaml", "40-deployment.yaml", "monitoring/servicemonitor.yaml", "secret.yaml.example");
        List<Manifests.Document> documents = new ArrayList<>();
        files.forEach(f -> documents.addAll(Manifests.read(f)));
        assertThat(documents).isNotEmpty().allSatisfy(d -> {
            assertThat(d.content().get("apiVersion")).as("%s apiVersion", d).isInstanceOf(String.class).asString().isNotBlank();
            assertThat(d.content().get("kind")).as("%s kind", d).isInstanceOf(String.class).asString().isNotBlank();
            assertThat(d.metadata().get("name")).as("%s metadata.name", d).isInstanceOf(String.class).asString().isNotBlank();
        });
    }

    @Test
    void theKustomizationListsExactlyTheFilesKubectlApplies() {
        Manifests.Document kustomization = Manifests.read(dir.resolve("Kustomization")).get(0);
        assertThat(strings(kustomization.content().get("resources")))
                .containsExactlyElementsOf(Manifests.appliedFiles(dir).stream().map(f -> f.getFileName().toString()).toList());
        assertThat(dir.resolve("kustomization.yaml")).as("kubectl apply -f would try to apply it").doesNotExist();
        assertThat(dir.resolve("kustomization.yml")).as("kubectl apply -f would try to apply it").doesNotExist();
    }

    @Test
    void theNamespaceIsAppliedFirstAndEveryNamespacedObjectNamesItsNamespace() {
        assertThat(applied.get(0).kind()).isEqualTo("Namespace");
        assertThat(applied.get(0).name()).isEqualTo("nightshift-system");
        assertThat(applied).filteredOn(d -> !CLUSTER_SCOPED.contains(d.kind()))
                .as("never the namespace of whoever runs kubectl apply")
                .allSatisfy(d -> assertThat(d.namespace()).as("%s", d).isIn("nightshift-system", "default"));
        assertThat(applied).filteredOn(d -> d.namespace().equals("default"))
                .as("in default, only the Role to create node Events and its binding")
                .extracting(Manifests.Document::kind, Manifests.Document::name)
                .containsExactlyInAnyOrder(tuple("Role", "nightshift-node-events"),
                        tuple("RoleBinding", "nightshift-node-events"));
    }

    @Test
    void noRoleUsesAWildcardOrANonResourceUrl() {
        List<Map<String, Object>> rules = applied.stream().filter(d -> d.kind().equals("ClusterRole") || d.kind().equals("Role"))
                .flatMap(d -> list(d.content().get("rules")).stream().map(Manifests::map)).toList();
        assertThat(rules).isNotEmpty().allSatisfy(rule -> {
            assertThat(rule).doesNotContainKey("nonResourceURLs");
            for (String field : List.of("apiGroups", "resources", "verbs")) {
                assertThat(strings(rule.get(field))).as("%s of %s", field, rule).isNotEmpty().noneMatch(v -> v.contains("*"));
            }
        });
    }

    @Test
    void theConfigurationIsOneTheAgentAcceptsAndEveryFileItNamesIsMounted() throws IOException {
        AgentConfig config = agentConfig();
        List<String> args = strings(container().get("args"));
        assertThat(args).startsWith("run").contains("--config");
        Path configPath = Path.of(args.get(args.indexOf("--config") + 1));
        assertThat(map(volumeHolding(configPath).get("configMap")).get("name")).isEqualTo("nightshift-config");

        String secretName = String.valueOf(map(volumeHolding(config.git().auth().tokenFile().orElseThrow()).get("secret")).get("secretName"));
        assertThat(map(volumeHolding(config.webhook().secretFile().orElseThrow()).get("secret")).get("secretName")).isEqualTo(secretName);
        assertThat(volumeHolding(config.cacheDir())).as("the Git cache is writable scratch space").containsKey("emptyDir");

        Manifests.Document secret = Manifests.read(dir.resolve("secret.yaml.example")).get(0);
        assertThat(secret.name()).isEqualTo(secretName);
        assertThat(secret.namespace()).isEqualTo(one("Deployment").namespace());
        assertThat(map(secret.content().get("stringData")).keySet()).as("one key per file the configuration names")
                .containsExactlyInAnyOrder(config.git().auth().tokenFile().get().getFileName().toString(),
                        config.webhook().secretFile().get().getFileName().toString());
    }

    @Test
    void theHttpPortProbesServiceAndServiceMonitorLineUp() throws IOException {
        AgentConfig config = agentConfig();
        Map<String, Object> port = map(list(container().get("ports")).get(0));
        assertThat(port).containsEntry("name", "http").containsEntry("containerPort", config.http().port());
        assertThat(container()).extractingByKeys("startupProbe", "livenessProbe", "readinessProbe")
                .extracting(p -> map(map(p).get("httpGet")).get("path") + " " + map(map(p).get("httpGet")).get("port"))
                .containsExactly("/healthz http", "/healthz http", "/readyz http");

        Manifests.Document service = one("Service");
        Map<String, Object> servicePort = map(list(at(service, "spec").get("ports")).get(0));
        assertThat(servicePort).containsEntry("name", "http").containsEntry("port", 9400).containsEntry("targetPort", "http");
        Map<String, Object> podLabels = at(one("Deployment"), "spec", "template", "metadata", "labels");
        assertThat(podLabels).containsAllEntriesOf(map(at(service, "spec").get("selector")));

        Manifests.Document monitor = Manifests.read(dir.resolve("monitoring/servicemonitor.yaml")).get(0);
        assertThat(monitor.kind()).isEqualTo("ServiceMonitor");
        assertThat(service.metadata().get("labels")).asInstanceOf(InstanceOfAssertFactories.MAP)
                .containsAllEntriesOf(map(at(monitor, "spec", "selector").get("matchLabels")));
        assertThat(strings(at(monitor, "spec", "namespaceSelector").get("matchNames"))).containsExactly(service.namespace());
        assertThat(list(at(monitor, "spec").get("endpoints"))).singleElement()
                .satisfies(e -> assertThat(map(e)).containsEntry("port", "http").containsEntry("path", "/metrics"));
    }

    @Test
    void theConfigurationNamesTheProviderWhoseRbacIsApplied() throws IOException {
        assertThat(agentConfig().provider()).as("run has no default provider: the configuration must name one")
                .contains(new AgentConfig.Provider(AgentConfig.Provider.SIMULATED));
        String text = String.valueOf(at(applied.stream().filter(d -> d.name().equals("nightshift-config")).findFirst().orElseThrow(),
                "data").get("config.yaml"));
        assertThat(text).as("the provider is marked for editing").containsPattern("# EDIT: the machine provider[^\\n]*\\n(\\s*#[^\\n]*\\n)*\\s*provider:");
        assertThat(applied).as("the simulated provider's RBAC is applied with it")
                .anyMatch(d -> d.kind().equals("ClusterRole") && d.name().contains("simulated"));
    }

    @Test
    void theAgentRunsLockedDownAsTwoReplicasThatElectALeader() throws IOException {
        Map<String, Object> spec = at(one("Deployment"), "spec");
        assertThat(spec).containsEntry("replicas", 2);
        assertThat(map(spec.get("strategy"))).containsEntry("type", "RollingUpdate");
        assertThat(agentConfig().leaderElection().enabled()).as("two replicas act only with leader election").isTrue();
        assertThat(list(container().get("env"))).anySatisfy(e -> assertThat(map(e)).containsEntry("name", "POD_NAME")
                .containsEntry("valueFrom", Map.of("fieldRef", Map.of("fieldPath", "metadata.name"))));

        assertThat(podSpec()).containsEntry("serviceAccountName", one("ServiceAccount").name());
        assertThat(map(podSpec().get("securityContext"))).containsEntry("runAsNonRoot", true);
        assertThat(map(container().get("securityContext")))
                .containsEntry("runAsNonRoot", true)
                .containsEntry("readOnlyRootFilesystem", true)
                .containsEntry("allowPrivilegeEscalation", false)
                .containsEntry("capabilities", Map.of("drop", List.of("ALL")))
                .containsEntry("seccompProfile", Map.of("type", "RuntimeDefault"));
        Map<String, Object> resources = map(container().get("resources"));
        assertThat(map(resources.get("requests"))).containsKeys("cpu", "memory");
        assertThat(map(resources.get("limits"))).containsKeys("cpu", "memory");
    }

    /** The documents of {@code file} as the typed objects kubectl would send: a misspelt kind or version stays generic. */
    private static List<HasMetadata> typed(Path file) {
        KubernetesSerialization serialization = new KubernetesSerialization();
        return Manifests.read(file).stream()
                .map(d -> (HasMetadata) serialization.unmarshal(serialization.asJson(d.content()), HasMetadata.class)).toList();
    }

    @Test
    void theNodeUpdatesNamespaceIsPrivilegedAndOnlyTheAgentMayRunJobsThere() {
        Path file = dir.resolve("node-updates/job-updater.yaml");
        List<HasMetadata> objects = typed(file);

        assertThat(objects).extracting(o -> o.getClass().getSimpleName())
                .containsExactly("Namespace", "ServiceAccount", "Role", "RoleBinding");
        assertThat(Manifests.appliedFiles(dir)).as("applied only by whoever uses node updates by Job").doesNotContain(file);
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
        ServiceAccount agent = (ServiceAccount) typed(dir.resolve("10-serviceaccount.yaml")).get(0);
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
