package dev.nightshift.agent.provider.capi;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * Names of Cluster API's objects, labels and annotations that Nightshift reads and writes
 * ({@code cluster.x-k8s.io/v1beta2}: cluster-api {@code api/core/v1beta2/*_types.go}, {@code common_types.go}).
 */
final class ClusterApi {

    static final String GROUP = "cluster.x-k8s.io";
    static final String VERSION = "v1beta2";

    static final ResourceDefinitionContext CLUSTERS = context("clusters", "Cluster");
    static final ResourceDefinitionContext MACHINE_DEPLOYMENTS = context("machinedeployments", "MachineDeployment");
    static final ResourceDefinitionContext MACHINE_SETS = context("machinesets", "MachineSet");
    static final ResourceDefinitionContext MACHINES = context("machines", "Machine");

    static final String CLUSTER_NAME_LABEL = GROUP + "/cluster-name";
    static final String DEPLOYMENT_NAME_LABEL = GROUP + "/deployment-name";
    static final String SET_NAME_LABEL = GROUP + "/set-name";
    /** ClusterClass topology owns the MachineDeployment and would revert Nightshift's edits. */
    static final String TOPOLOGY_OWNED_LABEL = "topology." + GROUP + "/owned";
    static final String PAUSED_ANNOTATION = GROUP + "/paused";
    /** Present: the Machine is removed first when its MachineSet shrinks ({@code machineset_deletion_order.go}). */
    static final String DELETE_MACHINE_ANNOTATION = GROUP + "/delete-machine";
    /** Present: Cluster API does not drain the Machine's node before deleting it (Nightshift drained it). */
    static final String EXCLUDE_NODE_DRAINING_ANNOTATION = "machine." + GROUP + "/exclude-node-draining";
    /** Present: MachineHealthCheck does not remediate the Machine (set while its node is updated in place and may reboot). */
    static final String SKIP_REMEDIATION_ANNOTATION = GROUP + "/skip-remediation";
    static final String AUTOSCALER_MIN_ANNOTATION = GROUP + "/cluster-api-autoscaler-node-group-min-size";
    static final String AUTOSCALER_MAX_ANNOTATION = GROUP + "/cluster-api-autoscaler-node-group-max-size";
    static final String ON_DELETE = "OnDelete";
    static final String KUBEADM_CONFIG_TEMPLATE = "KubeadmConfigTemplate";

    private ClusterApi() {
    }

    private static ResourceDefinitionContext context(String plural, String kind) {
        return new ResourceDefinitionContext.Builder().withGroup(GROUP).withVersion(VERSION).withPlural(plural).withKind(kind)
                .withNamespaced(true).build();
    }
}
