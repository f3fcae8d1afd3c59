package dev.nightshift.sandbox.capi;

import java.util.List;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * The Cluster API kinds the embedded cluster serves, as fabric8 resource contexts for
 * {@code client.genericKubernetesResources(context)}. All are namespaced and served at {@code v1beta2}, the version
 * upstream serves since v1.11 ({@code api/core/v1beta2/*_types.go}).
 */
public final class ClusterApiResources {

    public static final String CORE_GROUP = "cluster.x-k8s.io";
    public static final String INFRASTRUCTURE_GROUP = "infrastructure.cluster.x-k8s.io";
    public static final String BOOTSTRAP_GROUP = "bootstrap.cluster.x-k8s.io";
    public static final String VERSION = "v1beta2";

    public static final ResourceDefinitionContext CLUSTERS = context(CORE_GROUP, "clusters", "Cluster");
    public static final ResourceDefinitionContext MACHINE_DEPLOYMENTS = context(CORE_GROUP, "machinedeployments", "MachineDeployment");
    public static final ResourceDefinitionContext MACHINE_SETS = context(CORE_GROUP, "machinesets", "MachineSet");
    public static final ResourceDefinitionContext MACHINES = context(CORE_GROUP, "machines", "Machine");
    public static final ResourceDefinitionContext DEV_MACHINE_TEMPLATES =
            context(INFRASTRUCTURE_GROUP, "devmachinetemplates", "DevMachineTemplate");
    /** CAPD's older kind, deprecated since v1.13 in favour of {@code DevMachineTemplate} but still served. */
    public static final ResourceDefinitionContext DOCKER_MACHINE_TEMPLATES =
            context(INFRASTRUCTURE_GROUP, "dockermachinetemplates", "DockerMachineTemplate");
    public static final ResourceDefinitionContext AWS_MACHINE_TEMPLATES =
            context(INFRASTRUCTURE_GROUP, "awsmachinetemplates", "AWSMachineTemplate");
    public static final ResourceDefinitionContext KUBEADM_CONFIG_TEMPLATES =
            context(BOOTSTRAP_GROUP, "kubeadmconfigtemplates", "KubeadmConfigTemplate");

    /** Every kind above, in the order {@link EmbeddedClusterApi#install} creates their definitions. */
    public static final List<ResourceDefinitionContext> ALL = List.of(CLUSTERS, MACHINE_DEPLOYMENTS, MACHINE_SETS, MACHINES,
            DEV_MACHINE_TEMPLATES, DOCKER_MACHINE_TEMPLATES, AWS_MACHINE_TEMPLATES, KUBEADM_CONFIG_TEMPLATES);

    private ClusterApiResources() {
    }

    /** {@code group/version}, e.g. {@code cluster.x-k8s.io/v1beta2}, for an object's {@code apiVersion}. */
    public static String apiVersion(ResourceDefinitionContext context) {
        return context.getGroup() + "/" + context.getVersion();
    }

    private static ResourceDefinitionContext context(String group, String plural, String kind) {
        return new ResourceDefinitionContext.Builder()
                .withGroup(group)
                .withVersion(VERSION)
                .withPlural(plural)
                .withKind(kind)
                .withNamespaced(true)
                .build();
    }
}
