package dev.nightshift.agent.manifests;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the manifests' RBAC lets one ServiceAccount do, as the API server's RBAC authorizer decides
 * it: a ClusterRole bound by a ClusterRoleBinding grants everywhere, a Role (or ClusterRole) bound by
 * a RoleBinding only in the binding's namespace. Rules are expanded into one {@link Grant} per
 * group, resource and verb. Wildcards are taken literally (they match nothing), so a {@code *} in
 * a manifest can only make RbacIT fail, never pass.
 */
final class Rbac {

    /**
     * One verb on one resource.
     *
     * @param role          where it comes from, e.g. {@code Role nightshift-system/nightshift-agent}
     * @param namespace     where it applies; empty: everywhere, cluster-scoped resources included
     * @param resourceNames the only objects it applies to; empty: all
     */
    record Grant(String role, String namespace, String apiGroup, String resource, String verb, Set<String> resourceNames) {

        boolean allows(ApiRequest r) {
            return !r.nonResource() && (namespace.isEmpty() || namespace.equals(r.namespace())) && apiGroup.equals(r.apiGroup())
                    && resource.equals(r.resource()) && verb.equals(r.verb())
                    && (resourceNames.isEmpty() || resourceNames.contains(r.name()));
        }

        /** Whether both grant a verb on a resource somewhere both apply. */
        boolean overlaps(Grant other) {
            return apiGroup.equals(other.apiGroup) && resource.equals(other.resource) && verb.equals(other.verb)
                    && (namespace.isEmpty() || other.namespace.isEmpty() || namespace.equals(other.namespace))
                    && (resourceNames.isEmpty() || other.resourceNames.isEmpty()
                            || resourceNames.stream().anyMatch(other.resourceNames::contains));
        }

        /** e.g. {@code get coordination.k8s.io/leases [nightshift-leader] in nightshift-system}. */
        String key() {
            return verb + " " + (apiGroup.isEmpty() ? "" : apiGroup + "/") + resource
                    + (resourceNames.isEmpty() ? "" : " " + new TreeSet<>(resourceNames))
                    + (namespace.isEmpty() ? " cluster-wide" : " in " + namespace);
        }

        @Override
        public String toString() {
            return key() + " (" + role + ")";
        }
    }

    private final List<Grant> grants;

    private Rbac(List<Grant> grants) {
        this.grants = List.copyOf(grants);
    }

    /**
     * The grants of {@code documents} to the agent: the ServiceAccount that the Deployment among
     * {@code deployed} runs as, in the Deployment's namespace.
     */
    static Rbac forAgent(List<Manifests.Document> deployed, List<Manifests.Document> documents) {
        Manifests.Document deployment = deployed.stream().filter(d -> d.kind().equals("Deployment")).findFirst().orElseThrow();
        String serviceAccount = String.valueOf(Manifests.map(Manifests.map(Manifests.map(deployment.content().get("spec"))
                .get("template")).get("spec")).get("serviceAccountName"));
        return forServiceAccount(documents, deployment.namespace(), serviceAccount);
    }

    /** The grants of {@code documents} to the ServiceAccount {@code namespace/name}. */
    static Rbac forServiceAccount(List<Manifests.Document> documents, String namespace, String name) {
        List<Grant> grants = new ArrayList<>();
        for (Manifests.Document binding : documents) {
            boolean cluster = binding.kind().equals("ClusterRoleBinding");
            if (!cluster && !binding.kind().equals("RoleBinding")) {
                continue;
            }
            boolean bound = Manifests.list(binding.content().get("subjects")).stream().map(Manifests::map)
                    .anyMatch(s -> "ServiceAccount".equals(s.get("kind")) && name.equals(s.get("name"))
                            && namespace.equals(s.get("namespace")));
            if (!bound) {
                continue;
            }
            Map<String, Object> ref = Manifests.map(binding.content().get("roleRef"));
            String refKind = String.valueOf(ref.get("kind"));
            String refNamespace = refKind.equals("Role") ? binding.namespace() : "";
            Manifests.Document role = documents.stream()
                    .filter(d -> d.kind().equals(refKind) && d.name().equals(ref.get("name")) && d.namespace().equals(refNamespace))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException(binding + " refers to " + refKind + " " + ref.get("name")
                            + ", which the manifests do not define"));
            String roleName = refKind + " " + (refNamespace.isEmpty() ? "" : refNamespace + "/") + role.name();
            for (Object r : Manifests.list(role.content().get("rules"))) {
                Map<String, Object> rule = Manifests.map(r);
                Set<String> names = new TreeSet<>(Manifests.strings(rule.get("resourceNames")));
                for (String group : Manifests.strings(rule.get("apiGroups"))) {
                    for (String resource : Manifests.strings(rule.get("resources"))) {
                        for (String verb : Manifests.strings(rule.get("verbs"))) {
                            grants.add(new Grant(roleName, cluster ? "" : binding.namespace(), group, resource, verb, names));
                        }
                    }
                }
            }
        }
        return new Rbac(grants);
    }

    List<Grant> grants() {
        return grants;
    }

    boolean allows(ApiRequest request) {
        return request.publicNonResource() || grants.stream().anyMatch(g -> g.allows(request));
    }
}
