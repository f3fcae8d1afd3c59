package dev.nightshift.sandbox.embedded;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIGroupBuilder;
import io.fabric8.kubernetes.api.model.APIGroupListBuilder;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.APIVersionsBuilder;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscovery;
import io.fabric8.kubernetes.api.model.RootPathsBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.mockwebserver.http.MockResponse;

/**
 * The discovery documents that kubectl and client libraries read before anything else. The mock server answers
 * {@code /api} and {@code /apis} from its store (wrongly, for kubectl), so they are served here: the built-in
 * groups this cluster is used with, plus the groups of the CustomResourceDefinitions in the store.
 */
final class Discovery {

    private static final List<String> ALL_VERBS =
            List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");
    private static final List<String> SUBRESOURCE_VERBS = List.of("get", "patch", "update");
    private static final Pattern GIT_VERSION = Pattern.compile("v(\\d+)\\.(\\d+)\\.\\d+([-+].*)?");
    private static final Pattern GROUP_PATH = Pattern.compile("/apis/([^/]+)(?:/([^/]+))?");

    private final String gitVersion;
    private final String major;
    private final String minor;
    private final Supplier<String> serverAddress;
    private final Map<String, List<APIResource>> builtIn;
    private final Supplier<List<CustomResourceDefinition>> crds;
    private final ApiResponses responses;
    /** Whether {@code /readyz} answers ok; a test turns it off to play an API server that is not ready. */
    private final java.util.concurrent.atomic.AtomicBoolean ready = new java.util.concurrent.atomic.AtomicBoolean(true);

    /**
     * @param gitVersion    what {@code /version} reports, {@code vMAJOR.MINOR.PATCH} (a suffix such as {@code -gke.1} is kept)
     * @param serverAddress host:port that {@code /api} advertises to clients (known once the server listens)
     * @param crds          the CustomResourceDefinitions currently in the store
     */
    Discovery(String gitVersion, Supplier<String> serverAddress, Supplier<List<CustomResourceDefinition>> crds, ApiResponses responses) {
        Matcher version = GIT_VERSION.matcher(gitVersion);
        if (!version.matches()) {
            throw new IllegalArgumentException("gitVersion must look like v1.31.4, not " + gitVersion);
        }
        this.gitVersion = gitVersion;
        this.major = version.group(1);
        this.minor = version.group(2);
        this.serverAddress = serverAddress;
        this.crds = crds;
        this.responses = responses;
        this.builtIn = builtInResources();
    }

    /** {@code /readyz} answers ok, or 500 as an API server whose etcd check fails. */
    void ready(boolean value) {
        ready.set(value);
    }

    /** The document at {@code path} (without query), or empty when {@code path} is not a discovery path. */
    Optional<MockResponse> respond(String path) {
        String p = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        MockResponse fixed = switch (p) {
            case "/" -> responses.json(200, new RootPathsBuilder().withPaths(rootPaths()).build());
            case "/version" -> responses.json(200, version());
            case "/healthz", "/livez" -> responses.text(200, "ok");
            case "/readyz" -> ready.get() ? responses.text(200, "ok")
                    : responses.text(500, "[-]etcd failed: reason withheld\nreadyz check failed\n");
            case "/api" -> responses.json(200, new APIVersionsBuilder().withVersions("v1")
                    .addNewServerAddressByClientCIDR("0.0.0.0/0", serverAddress.get()).build());
            case "/api/v1" -> resourceList("v1", builtIn.get("v1"));
            case "/apis" -> responses.json(200, new APIGroupListBuilder().withGroups(groups()).build());
            default -> null;
        };
        if (fixed != null) {
            return Optional.of(fixed);
        }
        if (p.startsWith("/openapi/")) {
            // No schemas here. kubectl's get, delete, label and patch do not need them; explain and
            // client-side validation (create/apply --validate) do and report that the server has none.
            return Optional.of(notFound());
        }
        Matcher group = GROUP_PATH.matcher(p);
        if (!group.matches()) {
            return Optional.empty();
        }
        if (group.group(2) == null) {
            return Optional.of(groups().stream().filter(g -> g.getName().equals(group.group(1))).findFirst()
                    .map(g -> responses.json(200, g))
                    .orElseGet(this::notFound));
        }
        String groupVersion = group.group(1) + "/" + group.group(2);
        List<APIResource> resources = allGroupVersions().get(groupVersion);
        return Optional.of(resources == null ? notFound() : resourceList(groupVersion, resources));
    }

    private MockResponse notFound() {
        return responses.failure(404, "NotFound", "the server could not find the requested resource");
    }

    private MockResponse resourceList(String groupVersion, List<APIResource> resources) {
        return responses.json(200, new APIResourceListBuilder().withGroupVersion(groupVersion).withResources(resources).build());
    }

    private Map<String, Object> version() {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("major", major);
        info.put("minor", minor);
        info.put("gitVersion", gitVersion);
        info.put("gitCommit", "0000000000000000000000000000000000000000");
        info.put("gitTreeState", "clean");
        info.put("buildDate", "2024-12-10T11:37:18Z");
        info.put("goVersion", "go1.22.9");
        info.put("compiler", "gc");
        info.put("platform", "linux/amd64");
        return info;
    }

    private List<String> rootPaths() {
        List<String> paths = new ArrayList<>(List.of("/api", "/api/v1", "/apis", "/healthz", "/livez", "/readyz", "/version"));
        allGroupVersions().keySet().stream().filter(gv -> gv.contains("/")).forEach(gv -> {
            String group = "/apis/" + gv.substring(0, gv.indexOf('/'));
            if (!paths.contains(group)) {
                paths.add(group);
            }
            paths.add("/apis/" + gv);
        });
        return paths;
    }

    /** Every group's versions, preferring the first served one (CRD versions come in the order the CRD lists them). */
    private List<APIGroup> groups() {
        Map<String, List<GroupVersionForDiscovery>> versions = new LinkedHashMap<>();
        allGroupVersions().keySet().stream().filter(gv -> gv.contains("/")).forEach(gv -> {
            String group = gv.substring(0, gv.indexOf('/'));
            versions.computeIfAbsent(group, g -> new ArrayList<>())
                    .add(new GroupVersionForDiscovery(gv, gv.substring(gv.indexOf('/') + 1)));
        });
        List<APIGroup> groups = new ArrayList<>();
        versions.forEach((name, list) -> groups.add(new APIGroupBuilder().withName(name).withVersions(list)
                .withPreferredVersion(list.get(0)).build()));
        return groups;
    }

    private Map<String, List<APIResource>> allGroupVersions() {
        Map<String, List<APIResource>> all = new LinkedHashMap<>(builtIn);
        for (CustomResourceDefinition crd : crds.get()) {
            var spec = crd.getSpec();
            if (spec == null || spec.getNames() == null || spec.getVersions() == null) {
                continue;
            }
            for (CustomResourceDefinitionVersion version : spec.getVersions()) {
                if (Boolean.FALSE.equals(version.getServed())) {
                    continue;
                }
                String groupVersion = spec.getGroup() + "/" + version.getName();
                if (builtIn.containsKey(groupVersion)) {
                    continue; // the API server refuses CRDs in built-in groups; the store does not
                }
                List<APIResource> resources = all.computeIfAbsent(groupVersion, gv -> new ArrayList<>());
                boolean namespaced = "Namespaced".equals(spec.getScope());
                var names = spec.getNames();
                resources.add(resource(names.getPlural(), names.getSingular(), names.getKind(), namespaced,
                        names.getShortNames() == null ? List.of() : names.getShortNames()));
                if (version.getSubresources() != null && version.getSubresources().getStatus() != null) {
                    resources.add(subresource(names.getPlural() + "/status", names.getKind(), namespaced, SUBRESOURCE_VERBS));
                }
            }
        }
        return all;
    }

    private static Map<String, List<APIResource>> builtInResources() {
        Map<String, List<APIResource>> resources = new LinkedHashMap<>();
        resources.put("v1", List.of(
                resource("configmaps", "configmap", "ConfigMap", true, List.of("cm")),
                resource("endpoints", "endpoints", "Endpoints", true, List.of("ep")),
                resource("events", "event", "Event", true, List.of("ev")),
                resource("namespaces", "namespace", "Namespace", false, List.of("ns")),
                subresource("namespaces/status", "Namespace", false, SUBRESOURCE_VERBS),
                resource("nodes", "node", "Node", false, List.of("no")),
                subresource("nodes/status", "Node", false, SUBRESOURCE_VERBS),
                resource("persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", true, List.of("pvc")),
                resource("persistentvolumes", "persistentvolume", "PersistentVolume", false, List.of("pv")),
                resource("pods", "pod", "Pod", true, List.of("po")),
                new APIResourceBuilder().withName("pods/eviction").withSingularName("").withNamespaced(true)
                        .withGroup("policy").withVersion("v1").withKind("Eviction").withVerbs("create").build(),
                subresource("pods/status", "Pod", true, SUBRESOURCE_VERBS),
                resource("secrets", "secret", "Secret", true, List.of()),
                resource("serviceaccounts", "serviceaccount", "ServiceAccount", true, List.of("sa")),
                resource("services", "service", "Service", true, List.of("svc"))));
        resources.put("apps/v1", List.of(
                resource("daemonsets", "daemonset", "DaemonSet", true, List.of("ds")),
                resource("deployments", "deployment", "Deployment", true, List.of("deploy")),
                resource("replicasets", "replicaset", "ReplicaSet", true, List.of("rs")),
                resource("statefulsets", "statefulset", "StatefulSet", true, List.of("sts"))));
        resources.put("batch/v1", List.of(
                resource("jobs", "job", "Job", true, List.of()),
                subresource("jobs/status", "Job", true, SUBRESOURCE_VERBS)));
        resources.put("policy/v1", List.of(
                resource("poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", true, List.of("pdb")),
                subresource("poddisruptionbudgets/status", "PodDisruptionBudget", true, SUBRESOURCE_VERBS)));
        // What `kubectl apply -k manifests/overlays/...` creates besides the above (InstallIT).
        resources.put("networking.k8s.io/v1", List.of(
                resource("networkpolicies", "networkpolicy", "NetworkPolicy", true, List.of("netpol"))));
        resources.put("rbac.authorization.k8s.io/v1", List.of(
                resource("clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", false, List.of()),
                resource("clusterroles", "clusterrole", "ClusterRole", false, List.of()),
                resource("rolebindings", "rolebinding", "RoleBinding", true, List.of()),
                resource("roles", "role", "Role", true, List.of())));
        resources.put("coordination.k8s.io/v1", List.of(
                resource("leases", "lease", "Lease", true, List.of())));
        resources.put("apiextensions.k8s.io/v1", List.of(
                resource("customresourcedefinitions", "customresourcedefinition", "CustomResourceDefinition", false,
                        List.of("crd", "crds"))));
        return Collections.unmodifiableMap(resources);
    }

    private static APIResource resource(String name, String singular, String kind, boolean namespaced, List<String> shortNames) {
        return new APIResourceBuilder().withName(name).withSingularName(singular).withKind(kind).withNamespaced(namespaced)
                .withVerbs(ALL_VERBS).withShortNames(shortNames.isEmpty() ? null : shortNames).build();
    }

    private static APIResource subresource(String name, String kind, boolean namespaced, List<String> verbs) {
        return new APIResourceBuilder().withName(name).withSingularName("").withKind(kind).withNamespaced(namespaced)
                .withVerbs(verbs).build();
    }
}
