package dev.nightshift.agent.provider.capi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/** Which MachineSet Cluster API treats as current, and the order in which lowering replicas shrinks them. */
class MachineSetsTest {

    private static final KubernetesSerialization YAML = new KubernetesSerialization();

    private static GenericKubernetesResource md(String infrastructure, String version) {
        return YAML.unmarshal("""
                apiVersion: cluster.x-k8s.io/v1beta2
                kind: MachineDeployment
                metadata: {name: web-md}
                spec:
                  template:
                    spec:
                      version: %s
                      bootstrap: {configRef: {apiGroup: bootstrap.cluster.x-k8s.io, kind: KubeadmConfigTemplate, name: k}}
                      infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: AWSMachineTemplate, name: %s}
                """.formatted(version, infrastructure), GenericKubernetesResource.class);
    }

    private static GenericKubernetesResource set(String name, String created, int replicas, String infrastructure, String version) {
        return YAML.unmarshal("""
                apiVersion: cluster.x-k8s.io/v1beta2
                kind: MachineSet
                metadata: {name: %s, creationTimestamp: "%s"}
                spec:
                  replicas: %d
                  template:
                    spec:
                      version: %s
                      failureDomain: ""
                      bootstrap: {configRef: {apiGroup: bootstrap.cluster.x-k8s.io, kind: KubeadmConfigTemplate, name: k}}
                      infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: AWSMachineTemplate, name: %s}
                """.formatted(name, created, replicas, version, infrastructure), GenericKubernetesResource.class);
    }

    private static List<String> names(MachineSets sets) {
        return sets.inRemovalOrder().stream().map(ms -> ms.getMetadata().getName()).toList();
    }

    @Test
    void theSetAtTheMachineDeploymentsTemplateIsCurrentAndShrinksAfterTheOldOnesOldestFirst() {
        MachineSets sets = MachineSets.of(md("t2", "v1.31.5"), List.of(
                set("c-new", "2026-11-20T03:00:02Z", 1, "t2", "v1.31.5"),
                set("b-mid", "2026-11-20T03:00:01Z", 0, "t1", "v1.31.5"),
                set("z-old", "2026-11-20T03:00:00Z", 3, "t0", "v1.31.4")));

        assertThat(sets.current()).contains("c-new");
        assertThat(names(sets)).containsExactly("z-old", "b-mid", "c-new");
        assertThat(sets.shrinksFirst()).hasValueSatisfying(ms -> assertThat(ms.getMetadata().getName()).isEqualTo("z-old"));
        assertThat(sets.rank("c-new")).isEqualTo(2);
        assertThat(sets.rank("not-ours")).isEqualTo(3);
    }

    @Test
    void afterARollBackTheOlderSetIsCurrentAndTheYoungerShrinksFirst() {
        MachineSets sets = MachineSets.of(md("t0", "v1.31.4"), List.of(
                set("old", "2026-11-20T03:00:00Z", 3, "t0", "v1.31.4"),
                set("young", "2026-11-20T03:05:00Z", 1, "t1", "v1.31.5")));

        assertThat(sets.current()).contains("old");
        assertThat(names(sets)).containsExactly("young", "old");
        assertThat(sets.shrinksFirst()).hasValueSatisfying(ms -> assertThat(ms.getMetadata().getName()).isEqualTo("young"));
    }

    @Test
    void theCurrentSetShrinksWhenNoOldSetHasReplicas() {
        MachineSets sets = MachineSets.of(md("t1", "v1.31.5"), List.of(
                set("old", "2026-11-20T03:00:00Z", 0, "t0", "v1.31.4"),
                set("new", "2026-11-20T03:05:00Z", 4, "t1", "v1.31.5")));

        assertThat(sets.shrinksFirst()).hasValueSatisfying(ms -> assertThat(ms.getMetadata().getName()).isEqualTo("new"));
    }

    @Test
    void theVersionIsComparedWithoutTheWebhooksVAndEmptyFieldsAsAbsent() {
        MachineSets sets = MachineSets.of(md("t1", "1.31.5"), List.of(set("new", "2026-11-20T03:05:00Z", 1, "t1", "v1.31.5")));

        assertThat(sets.current()).contains("new");
    }

    @Test
    void withoutASetAtTheTemplateYetAllAreOldInOrderOfAgeThenName() {
        MachineSets sets = MachineSets.of(md("t9", "v1.31.5"), List.of(
                set("b", "2026-11-20T03:00:00Z", 1, "t1", "v1.31.5"),
                set("a", "2026-11-20T03:00:00Z", 1, "t1", "v1.31.5"),
                set("0", "2026-11-20T03:00:01Z", 1, "t0", "v1.31.5")));

        assertThat(sets.current()).isEmpty();
        assertThat(names(sets)).containsExactly("a", "b", "0");
    }

    @Test
    void ofSeveralSetsAtTheTemplateTheOneWithMostReplicasIsCurrent() {
        MachineSets sets = MachineSets.of(md("t1", "v1.31.5"), List.of(
                set("first", "2026-11-20T03:00:00Z", 1, "t1", "v1.31.5"),
                set("second", "2026-11-20T03:00:01Z", 2, "t1", "v1.31.5")));

        assertThat(sets.current()).contains("second");
        assertThat(names(sets)).containsExactly("first", "second");
    }
}
