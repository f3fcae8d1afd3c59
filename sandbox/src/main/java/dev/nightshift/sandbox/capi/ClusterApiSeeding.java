package dev.nightshift.sandbox.capi;

import static dev.nightshift.sandbox.capi.CapiObjects.JSON;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * Seeds the embedded cluster with one worker pool managed by Cluster API, for tests and the demo: a Cluster (unless it
 * exists), an infrastructure machine template, a KubeadmConfigTemplate and an OnDelete MachineDeployment labelled
 * {@code nightshift.dev/pool} and {@code cluster.x-k8s.io/cluster-name}; then waits until the
 * {@link ClusterApiControllers} have given every Machine a Ready Node.
 */
public final class ClusterApiSeeding {

    public static final String POOL_LABEL = "nightshift.dev/pool";
    private static final Set<String> INFRASTRUCTURE_KINDS = Set.of("DevMachineTemplate", "DockerMachineTemplate", "AWSMachineTemplate");
    private static final Pattern VERSION = Pattern.compile("v?\\d+\\.\\d+\\.\\d+");

    /**
     * One pool to seed.
     *
     * @param namespace              where the objects go
     * @param cluster                the Cluster's name ({@code spec.clusterName} of the MachineDeployment)
     * @param pool                   the value of {@code nightshift.dev/pool} on the MachineDeployment
     * @param machineDeployment      the MachineDeployment's name
     * @param replicas               its {@code spec.replicas}
     * @param version                {@code spec.template.spec.version}, with or without the {@code v} (the webhook adds it)
     * @param infrastructureKind     {@code DevMachineTemplate}, {@code DockerMachineTemplate} or {@code AWSMachineTemplate}
     * @param infrastructureTemplate the template's name, referenced from {@code spec.template.spec.infrastructureRef}
     * @param bootstrapTemplate      the KubeadmConfigTemplate's name, referenced from {@code spec.template.spec.bootstrap.configRef}
     */
    public record PoolSeed(String namespace, String cluster, String pool, String machineDeployment, int replicas, String version,
            String infrastructureKind, String infrastructureTemplate, String bootstrapTemplate) {

        public PoolSeed {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(cluster, "cluster");
            Objects.requireNonNull(pool, "pool");
            Objects.requireNonNull(machineDeployment, "machineDeployment");
            Objects.requireNonNull(infrastructureTemplate, "infrastructureTemplate");
            Objects.requireNonNull(bootstrapTemplate, "bootstrapTemplate");
            if (replicas < 0) {
                throw new IllegalArgumentException("replicas must not be negative, not " + replicas);
            }
            if (version == null || !VERSION.matcher(version).matches()) {
                throw new IllegalArgumentException("version must look like v1.31.5 or 1.31.5, not " + version);
            }
            if (!INFRASTRUCTURE_KINDS.contains(infrastructureKind)) {
                throw new IllegalArgumentException("infrastructureKind must be one of " + INFRASTRUCTURE_KINDS + ", not " + infrastructureKind);
            }
        }

        /**
         * Namespace {@code default}, MachineDeployment {@code <cluster>-<pool>}, a DevMachineTemplate
         * {@code <cluster>-<pool>-1} and a KubeadmConfigTemplate {@code <cluster>-<pool>-1}.
         */
        public static PoolSeed of(String cluster, String pool, int replicas, String version) {
            String md = cluster + "-" + pool;
            return new PoolSeed("default", cluster, pool, md, replicas, version, "DevMachineTemplate", md + "-1", md + "-1");
        }
    }

    /** What was seeded: the Machines and their Nodes' names, in the same order (by Machine name). */
    public record Seeded(List<String> machines, List<String> nodes) {
        public Seeded {
            machines = List.copyOf(machines);
            nodes = List.copyOf(nodes);
        }
    }

    private ClusterApiSeeding() {
    }

    /**
     * Creates the objects and waits up to {@code timeout} for {@code replicas} Machines of the MachineDeployment, each
     * with a Ready Node in {@code status.nodeRef}.
     *
     * @throws IllegalStateException when they are not there in time, saying how many were
     */
    public static Seeded seed(KubernetesClient client, PoolSeed seed, Duration timeout) throws InterruptedException {
        var clusters = client.genericKubernetesResources(ClusterApiResources.CLUSTERS).inNamespace(seed.namespace());
        if (clusters.withName(seed.cluster()).get() == null) {
            clusters.resource(resource(client, cluster(seed))).create();
        }
        create(client, seed.namespace(), contextOf(seed.infrastructureKind()), infrastructureTemplate(seed, seed.infrastructureTemplate()));
        create(client, seed.namespace(), ClusterApiResources.KUBEADM_CONFIG_TEMPLATES, bootstrapTemplate(seed));
        create(client, seed.namespace(), ClusterApiResources.MACHINE_DEPLOYMENTS, machineDeployment(seed));
        return awaitReady(client, seed.namespace(), seed.machineDeployment(), seed.replicas(), timeout);
    }

    /** Waits for {@code replicas} Machines of {@code machineDeployment}, none being deleted, each with a Ready Node. */
    public static Seeded awaitReady(KubernetesClient client, String namespace, String machineDeployment, int replicas,
            Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int ready = 0;
        while (System.nanoTime() < deadline) {
            List<GenericKubernetesResource> machines = client.genericKubernetesResources(ClusterApiResources.MACHINES)
                    .inNamespace(namespace).withLabel(ClusterApiControllers.DEPLOYMENT_NAME, machineDeployment).list().getItems()
                    .stream().sorted(java.util.Comparator.comparing(m -> m.getMetadata().getName())).toList();
            List<String> nodes = machines.stream().map(ClusterApiSeeding::readyNodeOf)
                    .map(name -> name.isEmpty() || !nodeReady(client, name) ? "" : name).toList();
            ready = (int) nodes.stream().filter(n -> !n.isEmpty()).count();
            if (machines.size() == replicas && ready == replicas
                    && machines.stream().allMatch(m -> m.getMetadata().getDeletionTimestamp() == null)) {
                return new Seeded(machines.stream().map(m -> m.getMetadata().getName()).toList(), nodes);
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("MachineDeployment " + namespace + "/" + machineDeployment + ": " + ready + " of "
                + replicas + " Machines have a Ready Node after " + timeout + "; are the ClusterApiControllers started?");
    }

    private static String readyNodeOf(GenericKubernetesResource machine) {
        ObjectNode tree = JSON.valueToTree(machine.getAdditionalProperties());
        return tree.path("status").path("nodeRef").path("name").asText("");
    }

    private static boolean nodeReady(KubernetesClient client, String name) {
        Node node = client.nodes().withName(name).get();
        return node != null && node.getStatus() != null && node.getStatus().getConditions() != null
                && node.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** An infrastructure machine template of {@code seed}'s kind named {@code name}, e.g. to point a changed MachineDeployment at. */
    public static void createInfrastructureTemplate(KubernetesClient client, PoolSeed seed, String name) {
        create(client, seed.namespace(), contextOf(seed.infrastructureKind()), infrastructureTemplate(seed, name));
    }

    static ResourceDefinitionContext contextOf(String infrastructureKind) {
        return switch (infrastructureKind) {
            case "DevMachineTemplate" -> ClusterApiResources.DEV_MACHINE_TEMPLATES;
            case "DockerMachineTemplate" -> ClusterApiResources.DOCKER_MACHINE_TEMPLATES;
            case "AWSMachineTemplate" -> ClusterApiResources.AWS_MACHINE_TEMPLATES;
            default -> throw new IllegalArgumentException("not an infrastructure machine template kind: " + infrastructureKind);
        };
    }

    private static void create(KubernetesClient client, String namespace, ResourceDefinitionContext kind, ObjectNode object) {
        client.genericKubernetesResources(kind).inNamespace(namespace).resource(resource(client, object)).create();
    }

    private static GenericKubernetesResource resource(KubernetesClient client, ObjectNode object) {
        return client.getKubernetesSerialization().unmarshal(object.toString(), GenericKubernetesResource.class);
    }

    private static ObjectNode object(ResourceDefinitionContext kind, String namespace, String name) {
        ObjectNode object = JSON.createObjectNode().put("apiVersion", ClusterApiResources.apiVersion(kind)).put("kind", kind.getKind());
        object.putObject("metadata").put("name", name).put("namespace", namespace);
        return object;
    }

    static ObjectNode cluster(PoolSeed seed) {
        ObjectNode cluster = object(ClusterApiResources.CLUSTERS, seed.namespace(), seed.cluster());
        ObjectNode spec = cluster.putObject("spec");
        spec.putObject("clusterNetwork").putObject("pods").putArray("cidrBlocks").add("192.168.0.0/16");
        spec.putObject("controlPlaneEndpoint").put("host", "127.0.0.1").put("port", 6443);
        return cluster;
    }

    static ObjectNode infrastructureTemplate(PoolSeed seed, String name) {
        ObjectNode template = object(contextOf(seed.infrastructureKind()), seed.namespace(), name);
        ObjectNode spec = template.putObject("spec").putObject("template").putObject("spec");
        switch (seed.infrastructureKind()) {
            case "AWSMachineTemplate" -> spec.put("instanceType", "m6i.large").putObject("ami").put("id", "ami-0123456789abcdef0");
            case "DockerMachineTemplate" -> spec.putObject("customImage");
            default -> spec.putObject("backend").putObject("docker").put("customImage", "kindest/node:" + withV(seed.version()));
        }
        return template;
    }

    static ObjectNode bootstrapTemplate(PoolSeed seed) {
        ObjectNode template = object(ClusterApiResources.KUBEADM_CONFIG_TEMPLATES, seed.namespace(), seed.bootstrapTemplate());
        template.putObject("spec").putObject("template").putObject("spec").putObject("joinConfiguration")
                .putObject("nodeRegistration").putArray("kubeletExtraArgs").addObject()
                .put("name", "eviction-hard").put("value", "nodefs.available<0%,imagefs.available<0%");
        return template;
    }

    /** The OnDelete MachineDeployment of {@code seed}, as written (the webhook then adds the version's {@code v}). */
    public static ObjectNode machineDeployment(PoolSeed seed) {
        ObjectNode md = object(ClusterApiResources.MACHINE_DEPLOYMENTS, seed.namespace(), seed.machineDeployment());
        ((ObjectNode) md.get("metadata")).putObject("labels").put(POOL_LABEL, seed.pool())
                .put(ClusterApiControllers.CLUSTER_NAME, seed.cluster());
        ObjectNode spec = md.putObject("spec").put("clusterName", seed.cluster()).put("replicas", seed.replicas());
        spec.putObject("rollout").putObject("strategy").put("type", "OnDelete");
        spec.putObject("selector").putObject("matchLabels").put(ClusterApiControllers.CLUSTER_NAME, seed.cluster())
                .put(ClusterApiControllers.DEPLOYMENT_NAME, seed.machineDeployment());
        ObjectNode template = spec.putObject("template");
        template.putObject("metadata").putObject("labels").put(ClusterApiControllers.CLUSTER_NAME, seed.cluster())
                .put(ClusterApiControllers.DEPLOYMENT_NAME, seed.machineDeployment());
        ObjectNode templateSpec = template.putObject("spec").put("clusterName", seed.cluster()).put("version", seed.version());
        templateSpec.putObject("bootstrap").putObject("configRef").put("apiGroup", ClusterApiResources.BOOTSTRAP_GROUP)
                .put("kind", "KubeadmConfigTemplate").put("name", seed.bootstrapTemplate());
        templateSpec.putObject("infrastructureRef").put("apiGroup", ClusterApiResources.INFRASTRUCTURE_GROUP)
                .put("kind", seed.infrastructureKind()).put("name", seed.infrastructureTemplate());
        return md;
    }

    private static String withV(String version) {
        return version.startsWith("v") ? version : "v" + version;
    }
}
