package dev.nightshift.agent.provider.capi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.spec.hash.StampedHash;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

/**
 * A Machine's roll hash is believed only where its MachineSet's template can have made it: Cluster API copies a
 * MachineDeployment's template annotations to old MachineSets too, so an old MachineSet's new Machine carries the new
 * hashes on the old template.
 */
class TemplateHashesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final StampedHash ADOPTED = new StampedHash(1, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    private static final StampedHash NEW = new StampedHash(1, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");

    private static GenericKubernetesResource withTemplate(String kind, String name, String template) {
        return withTemplate(kind, name, template, Map.of());
    }

    private static GenericKubernetesResource withTemplate(String kind, String name, String template, Map<String, String> annotations) {
        return JSON.convertValue(Map.of("apiVersion", "cluster.x-k8s.io/v1beta2", "kind", kind,
                "metadata", Map.of("name", name, "creationTimestamp", "2026-01-01T00:00:0" + (name.endsWith("new") ? "1" : "0") + "Z"),
                "spec", Map.of("replicas", 1, "template", Map.of("metadata", Map.of("annotations", annotations),
                        "spec", Map.of("infrastructureRef", Map.of("kind", "DevMachineTemplate", "name", template))))),
                GenericKubernetesResource.class);
    }

    private static TemplateHashes midRollout() {
        String clone = MachineTemplates.cloneName("web", NEW);
        GenericKubernetesResource md = withTemplate("MachineDeployment", "web", clone);
        return TemplateHashes.of(md, new MachineSets(List.of(withTemplate("MachineSet", "web-old", "web-user-template"),
                withTemplate("MachineSet", "web-new", clone)), Optional.of("web-new")));
    }

    @Test
    void aMachineOfTheCurrentMachineSetIsAtItsAnnotatedHash() {
        assertThat(midRollout().rollHashOf(NEW, "web-new")).isEqualTo(NEW);
    }

    @Test
    void aMachineStampedAtAdoptionOnTheUsersOwnTemplateKeepsItsHash() {
        assertThat(midRollout().rollHashOf(ADOPTED, "web-old")).isEqualTo(ADOPTED);
    }

    @Test
    void aMachineAnOldMachineSetMadeWithTheNewHashesIsOutdated() {
        StampedHash seen = midRollout().rollHashOf(NEW, "web-old");

        assertThat(seen).isNotEqualTo(NEW).isNotEqualTo(ADOPTED);
        assertThat(seen.value()).contains("web-user-template");
    }

    @Test
    void aMachineWithoutAKnownMachineSetIsTakenAtItsWord() {
        assertThat(midRollout().rollHashOf(NEW, "someone-elses")).isEqualTo(NEW);
    }

    @Test
    void aDeploymentSeenBeforeThePatchThatPropagatedAMachinesHashesLeavesItUnsure() {
        // The Machines' cache has the new hashes; the MachineDeployment's and the MachineSets' caches are still at adoption.
        TemplateHashes behind = TemplateHashes.of(withTemplate("MachineDeployment", "web", "web-user-template", NodeMarks.rollHash(ADOPTED)),
                new MachineSets(List.of(withTemplate("MachineSet", "web-old", "web-user-template")), Optional.of("web-old")));

        assertThat(behind.rollHashOf(NEW, "web-old")).as("what the cache alone says").isEqualTo(NEW);
        assertThat(behind.unsure(NEW, "web-old")).isTrue();
        assertThat(midRollout().unsure(NEW, "web-old")).as("the MachineDeployment read afresh decides").isFalse();
    }

    @Test
    void aPoolAdoptedAtRestIsSure() {
        TemplateHashes atRest = TemplateHashes.of(withTemplate("MachineDeployment", "web", "web-user-template", NodeMarks.rollHash(ADOPTED)),
                new MachineSets(List.of(withTemplate("MachineSet", "web-old", "web-user-template")), Optional.of("web-old")));

        assertThat(atRest.unsure(ADOPTED, "web-old")).isFalse();
        assertThat(atRest.rollHashOf(ADOPTED, "web-old")).isEqualTo(ADOPTED);
    }
}
