package dev.nightshift.agent.manifests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RbacTest {

    private static final String SUBJECTS = """
            subjects:
              - {kind: ServiceAccount, name: agent, namespace: system}
            """;

    @TempDir
    Path tmp;

    private Rbac rbac(String yaml) throws IOException {
        return Rbac.forServiceAccount(Manifests.read(Files.writeString(tmp.resolve("rbac.yaml"), yaml)), "system", "agent");
    }

    @Test
    void aClusterRoleBoundClusterWideAllowsItsVerbsEverywhereAndNothingElse() throws IOException {
        Rbac rbac = rbac("""
                kind: ClusterRole
                metadata: {name: r}
                rules: [{apiGroups: [""], resources: [pods, pods/eviction], verbs: [list, create]}]
                ---
                kind: ClusterRoleBinding
                metadata: {name: b}
                roleRef: {kind: ClusterRole, name: r}
                """ + SUBJECTS);

        assertThat(rbac.allows(ApiRequest.of("GET", "/api/v1/pods"))).isTrue();
        assertThat(rbac.allows(ApiRequest.of("POST", "/api/v1/namespaces/shop/pods/p/eviction"))).isTrue();
        assertThat(rbac.allows(ApiRequest.of("GET", "/api/v1/pods?watch=true"))).isFalse();
        assertThat(rbac.allows(ApiRequest.of("DELETE", "/api/v1/namespaces/shop/pods/p"))).isFalse();
        assertThat(rbac.allows(ApiRequest.of("GET", "/apis/apps/v1/namespaces/shop/pods"))).as("another group").isFalse();
    }

    @Test
    void aRoleAllowsOnlyInItsBindingsNamespaceAndOnlyTheNamedObjects() throws IOException {
        Rbac rbac = rbac("""
                kind: Role
                metadata: {name: r, namespace: system}
                rules: [{apiGroups: [coordination.k8s.io], resources: [leases], resourceNames: [leader], verbs: [get]}]
                ---
                kind: RoleBinding
                metadata: {name: b, namespace: system}
                roleRef: {kind: Role, name: r}
                """ + SUBJECTS);

        assertThat(rbac.allows(ApiRequest.of("GET", "/apis/coordination.k8s.io/v1/namespaces/system/leases/leader"))).isTrue();
        assertThat(rbac.allows(ApiRequest.of("GET", "/apis/coordination.k8s.io/v1/namespaces/other/leases/leader"))).isFalse();
        assertThat(rbac.allows(ApiRequest.of("GET", "/apis/coordination.k8s.io/v1/namespaces/system/leases/other"))).isFalse();
        assertThat(rbac.allows(ApiRequest.of("GET", "/apis/coordination.k8s.io/v1/namespaces/system/leases"))).isFalse();
        assertThat(rbac.allows(ApiRequest.of("GET", "/apis/coordination.k8s.io/v1/leases"))).as("across namespaces").isFalse();
    }

    @Test
    void bindingsOfOtherSubjectsGrantNothingAndWildcardsMatchNothing() throws IOException {
        Rbac rbac = rbac("""
                kind: ClusterRole
                metadata: {name: r}
                rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
                ---
                kind: ClusterRoleBinding
                metadata: {name: b}
                roleRef: {kind: ClusterRole, name: r}
                subjects: [{kind: ServiceAccount, name: someone-else, namespace: system}]
                ---
                kind: ClusterRoleBinding
                metadata: {name: c}
                roleRef: {kind: ClusterRole, name: r}
                """ + SUBJECTS);

        assertThat(rbac.grants()).extracting(Rbac.Grant::role).containsOnly("ClusterRole r");
        assertThat(rbac.allows(ApiRequest.of("GET", "/api/v1/nodes"))).isFalse();
        assertThat(rbac.allows(ApiRequest.of("GET", "/version"))).isTrue();
    }
}
