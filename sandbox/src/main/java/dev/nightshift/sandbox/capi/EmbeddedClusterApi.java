package dev.nightshift.sandbox.capi;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;

/**
 * Makes the embedded cluster serve Cluster API: the CustomResourceDefinitions of {@link ClusterApiResources} (which
 * the embedded discovery then advertises, so that {@code kubectl get machinedeployments} works) and the
 * MachineDeployment defaulting webhook's version prefix ({@link MachineDeploymentDefaulting}). Controllers are not
 * started here: see {@link ClusterApiControllers}.
 */
public final class EmbeddedClusterApi {

    /** Short names as upstream's CRDs declare them ({@code config/crd/bases/cluster.x-k8s.io_*.yaml}). */
    private static final Map<String, List<String>> SHORT_NAMES = Map.of(
            "clusters", List.of("cl"),
            "machinedeployments", List.of("md"),
            "machinesets", List.of("ms"),
            "machines", List.of("ma"));
    /** The kinds upstream serves with a status subresource; templates have none. */
    private static final List<String> WITH_STATUS = List.of("clusters", "machinedeployments", "machinesets", "machines");

    private EmbeddedClusterApi() {
    }

    /** Creates the definitions in {@code cluster} and registers the defaulting webhook; call once, before writing CAPI objects. */
    public static void install(EmbeddedKubernetes cluster) {
        cluster.admit(new MachineDeploymentDefaulting());
        KubernetesClient client = cluster.client();
        for (ResourceDefinitionContext resource : ClusterApiResources.ALL) {
            client.apiextensions().v1().customResourceDefinitions().resource(definition(resource)).create();
        }
    }

    /** The definition of one kind: namespaced, served and stored at v1beta2, any fields kept. */
    static CustomResourceDefinition definition(ResourceDefinitionContext resource) {
        String plural = resource.getPlural();
        CustomResourceDefinitionVersionBuilder version = new CustomResourceDefinitionVersionBuilder()
                .withName(resource.getVersion())
                .withServed(true)
                .withStorage(true)
                .withNewSchema()
                .withOpenAPIV3Schema(new JSONSchemaPropsBuilder().withType("object")
                        .withXKubernetesPreserveUnknownFields(true).build())
                .endSchema();
        if (WITH_STATUS.contains(plural)) {
            version.withNewSubresources().withNewStatus().endStatus().endSubresources();
        }
        return new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName(plural + "." + resource.getGroup()).endMetadata()
                .withNewSpec()
                .withGroup(resource.getGroup())
                .withScope("Namespaced")
                .withNewNames()
                .withKind(resource.getKind())
                .withListKind(resource.getKind() + "List")
                .withPlural(plural)
                .withSingular(resource.getKind().toLowerCase(java.util.Locale.ROOT))
                .withShortNames(SHORT_NAMES.getOrDefault(plural, List.of()))
                .withCategories("cluster-api")
                .endNames()
                .withVersions(version.build())
                .endSpec()
                .build();
    }
}
