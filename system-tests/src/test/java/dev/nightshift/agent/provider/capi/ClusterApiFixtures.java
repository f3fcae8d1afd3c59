package dev.nightshift.agent.provider.capi;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.agent.TestClusters;
import dev.nightshift.sandbox.capi.ClusterApiResources;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.sandbox.embedded.MergePatches;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.strategies.model.DesiredPool;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * Cluster API objects as a test arranges them in the embedded API server, written directly (no
 * controller runs): pool {@value #POOL} of cluster {@value #CLUSTER} backed by MachineDeployment
 * {@value #MD}, which starts from the user's AWSMachineTemplate and KubeadmConfigTemplate, both
 * named {@value #MD}.
 */
final class ClusterApiFixtures {

    static final String NS = "default";
    static final String CLUSTER = "c";
    static final String POOL = "web";
    static final String MD = "web-md";
    static final String MD_PATH = "/apis/cluster.x-k8s.io/v1beta2/namespaces/default/machinedeployments/" + MD;
    static final String MACHINES_PATH = "/apis/cluster.x-k8s.io/v1beta2/namespaces/default/machines/";
    static final String AWS_TEMPLATES_PATH = "/apis/infrastructure.cluster.x-k8s.io/v1beta2/namespaces/default/awsmachinetemplates";
    static final String KUBEADM_TEMPLATES_PATH = "/apis/bootstrap.cluster.x-k8s.io/v1beta2/namespaces/default/kubeadmconfigtemplates";
    static final String CAPI_FINALIZER = "machine.cluster.x-k8s.io";
    /** An AWSMachineTemplate a previous roll made ({@link #pointedAtCurrent()}). */
    static final String CURRENT_TEMPLATE = "web-md-0123456789";

    /** Kubernetes 1.31.5, an AMI for the image version, kubelet reservations, an 80Gi gp3 volume and an infrastructureTemplate override. */
    static final String SPEC = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: c}
            spec:
              kubernetes:
                version: "1.31.5"
                kubelet:
                  kubeReserved: {cpu: 100m, memory: 1Gi}
                  evictionHard: {memory.available: 5%%}
              machineImages:
              - name: al2023
                versions:
                - {version: 1631.0.0%s}
            ---
            apiVersion: nightshift.dev/v1alpha1
            kind: WorkerPool
            metadata: {name: web, cluster: c}
            spec:
              minimum: 3
              maximum: 3
              machine: {type: m5.xlarge, image: {name: al2023, version: 1631.0.0}}
              volume: {type: gp3, size: 80Gi}
              providerConfig:
                infrastructureTemplate:
            %s
            """;
    static final String AMI = "ami-0new1631";
    static final String DEFAULT_OVERRIDE = """
                  iamInstanceProfile: nodes.example.com
                  sshKeyName: null
                  rootVolume: {encrypted: true}
            """;

    private static final ObjectMapper JSON = new ObjectMapper();

    final EmbeddedKubernetes kube;
    final KubernetesClient client;

    ClusterApiFixtures(EmbeddedKubernetes kube) {
        this.kube = kube;
        this.client = kube.client();
    }

    /** Pool {@value #POOL} as the planner would hand it to the provider. */
    static DesiredPool desired() {
        return desired(", providerImage: " + AMI, DEFAULT_OVERRIDE);
    }

    /**
     * @param providerImage the rest of the image version's flow mapping, e.g. {@code ", providerImage: ami-1"}
     * @param override      the lines of {@code providerConfig.infrastructureTemplate}, indented by 6
     */
    static DesiredPool desired(String providerImage, String override) {
        return TestClusters.load(SPEC.formatted(providerImage, override)).pools().get(0);
    }

    // ---- writing objects ------------------------------------------------------------------------

    GenericKubernetesResource create(ResourceDefinitionContext context, String yaml) {
        GenericKubernetesResource o = client.getKubernetesSerialization().unmarshal(yaml, GenericKubernetesResource.class);
        return client.genericKubernetesResources(context).inNamespace(NS).resource(o).create();
    }

    GenericKubernetesResource get(ResourceDefinitionContext context, String name) {
        return client.genericKubernetesResources(context).inNamespace(NS).withName(name).get();
    }

    JsonNode json(ResourceDefinitionContext context, String name) {
        return JSON.valueToTree(get(context, name));
    }

    /** Sets the object's status through the status subresource (a create drops it, as the API server does). */
    void status(ResourceDefinitionContext context, String name, Map<String, Object> status) {
        client.genericKubernetesResources(context).inNamespace(NS).withName(name).editStatus(o -> {
            o.setAdditionalProperty("status", status);
            return o;
        });
    }

    /** The Cluster {@value #CLUSTER}, with {@code mergePatch} (YAML, RFC 7386) applied to it. */
    void cluster(String mergePatch) {
        createMerged(ClusterApiResources.CLUSTERS, """
                apiVersion: cluster.x-k8s.io/v1beta2
                kind: Cluster
                metadata: {name: c, namespace: default}
                spec: {paused: false}
                """, mergePatch);
    }

    private void createMerged(ResourceDefinitionContext context, String yaml, String... mergePatches) {
        JsonNode merged = yaml(yaml);
        for (String patch : mergePatches) {
            merged = MergePatches.merge(merged, yaml(patch.isBlank() ? "{}" : patch));
        }
        client.genericKubernetesResources(context).inNamespace(NS)
                .resource(JSON.convertValue(merged, GenericKubernetesResource.class)).create();
    }

    /**
     * The pool's MachineDeployment: OnDelete, 3 replicas, at Kubernetes v1.31.4, pointing at the user's
     * templates {@value #MD}, with {@code mergePatches} (YAML, RFC 7386) applied to it in turn.
     */
    void machineDeploymentNamed(String name, String... mergePatches) {
        String base = """
                apiVersion: cluster.x-k8s.io/v1beta2
                kind: MachineDeployment
                metadata:
                  name: %1$s
                  namespace: default
                  labels: {nightshift.dev/pool: web, cluster.x-k8s.io/cluster-name: c}
                spec:
                  clusterName: c
                  replicas: 3
                  rollout: {strategy: {type: OnDelete}}
                  selector: {matchLabels: {cluster.x-k8s.io/deployment-name: %1$s}}
                  template:
                    metadata: {labels: {cluster.x-k8s.io/deployment-name: %1$s}}
                    spec:
                      clusterName: c
                      version: v1.31.4
                      bootstrap: {configRef: {apiGroup: bootstrap.cluster.x-k8s.io, kind: KubeadmConfigTemplate, name: web-md}}
                      infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: AWSMachineTemplate, name: web-md}
                """.formatted(name);
        createMerged(ClusterApiResources.MACHINE_DEPLOYMENTS, base, mergePatches);
    }

    void machineDeployment(String... mergePatches) {
        machineDeploymentNamed(MD, mergePatches);
    }

    /** The user's templates the MachineDeployment starts from (no Nightshift label). */
    void userTemplates() {
        create(ClusterApiResources.AWS_MACHINE_TEMPLATES, """
                apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
                kind: AWSMachineTemplate
                metadata: {name: web-md, namespace: default, labels: {team: web}}
                spec:
                  template:
                    spec:
                      instanceType: m5.large
                      ami: {id: ami-0old}
                      rootVolume: {size: 30, type: gp2}
                      sshKeyName: ops
                      iamInstanceProfile: old-profile
                """);
        create(ClusterApiResources.KUBEADM_CONFIG_TEMPLATES, """
                apiVersion: bootstrap.cluster.x-k8s.io/v1beta2
                kind: KubeadmConfigTemplate
                metadata: {name: web-md, namespace: default}
                spec:
                  template:
                    spec:
                      joinConfiguration:
                        nodeRegistration:
                          kubeletExtraArgs:
                          - {name: node-labels, value: tier=web}
                          - {name: kube-reserved, value: cpu=1}
                """);
    }

    /** Nightshift's clone {@value #CURRENT_TEMPLATE} exists; the merge patch points a MachineDeployment at it. */
    String pointedAtCurrent() {
        template(ClusterApiResources.AWS_MACHINE_TEMPLATES, CURRENT_TEMPLATE, MD);
        return "spec: {template: {spec: {infrastructureRef: {name: " + CURRENT_TEMPLATE + "}}}}";
    }

    /** A template of {@code context}'s kind named {@code name}; {@code ofMd} labels it as Nightshift's clone for that MachineDeployment. */
    void template(ResourceDefinitionContext context, String name, String ofMd) {
        create(context, """
                apiVersion: %s
                kind: %s
                metadata:
                  name: %s
                  namespace: default
                  labels: %s
                spec: {template: {spec: {}}}
                """.formatted(ClusterApiResources.apiVersion(context), context.getKind(), name,
                ofMd == null ? "{}" : "{nightshift.dev/template-of: " + ofMd + "}"));
    }

    /**
     * A MachineSet of {@value #MD} with {@code replicas}, its template at v1.31.4 pointing at
     * AWSMachineTemplate {@code infrastructure}: the MachineDeployment's current one when that is
     * where the MachineDeployment points.
     */
    void machineSet(String name, int replicas, String infrastructure) {
        create(ClusterApiResources.MACHINE_SETS, """
                apiVersion: cluster.x-k8s.io/v1beta2
                kind: MachineSet
                metadata:
                  name: %1$s
                  namespace: default
                  labels: {cluster.x-k8s.io/cluster-name: c, cluster.x-k8s.io/deployment-name: web-md}
                spec:
                  clusterName: c
                  replicas: %2$d
                  selector: {matchLabels: {cluster.x-k8s.io/set-name: %1$s}}
                  template:
                    spec:
                      clusterName: c
                      version: v1.31.4
                      bootstrap: {configRef: {apiGroup: bootstrap.cluster.x-k8s.io, kind: KubeadmConfigTemplate, name: web-md}}
                      infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: AWSMachineTemplate, name: %3$s}
                """.formatted(name, replicas, infrastructure));
    }

    /**
     * A Machine of MachineSet {@code set} with Cluster API's finalizer (so that a delete only sets
     * its deletionTimestamp); {@code node} (null for none) becomes {@code status.nodeRef.name}.
     */
    void machine(String name, String set, String node, Map<String, String> annotations) {
        GenericKubernetesResource m = client.getKubernetesSerialization().unmarshal("""
                apiVersion: cluster.x-k8s.io/v1beta2
                kind: Machine
                metadata:
                  name: %1$s
                  namespace: default
                  labels: {cluster.x-k8s.io/cluster-name: c, cluster.x-k8s.io/deployment-name: web-md, cluster.x-k8s.io/set-name: %2$s}
                  finalizers: [%3$s]
                spec:
                  clusterName: c
                  bootstrap: {dataSecretName: %1$s}
                  infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: AWSMachine, name: %1$s}
                """.formatted(name, set, CAPI_FINALIZER), GenericKubernetesResource.class);
        m.getMetadata().setAnnotations(annotations);
        client.genericKubernetesResources(ClusterApiResources.MACHINES).inNamespace(NS).resource(m).create();
        if (node != null) {
            status(ClusterApiResources.MACHINES, name, Map.of("nodeRef", Map.of("name", node)));
        }
    }

    void machine(String name, String set, String node) {
        machine(name, set, node, Map.of());
    }

    /** The MachineDeployment's surge annotations (a merge patch): the pool's size and the partners asked for, each with when. */
    static String surge(int desired, Map<String, Instant> partners) {
        ObjectNode requests = JSON.createObjectNode();
        partners.forEach((p, at) -> requests.put(p, at.toString()));
        return """
                metadata:
                  annotations:
                    nightshift.dev/desired-replicas: "%d"
                    nightshift.dev/surge-requests: '%s'
                spec: {replicas: %d}
                """.formatted(desired, requests, desired + partners.size());
    }

    // ---- what the cluster saw -------------------------------------------------------------------

    /** Writes (POST, PUT, PATCH, DELETE) to any Cluster API group: core, infrastructure, bootstrap. */
    List<RecordedRequest> capiWrites() {
        return kube.requests().stream().filter(RecordedRequest::isWrite)
                .filter(r -> r.resourcePath().matches("/apis/([a-z]+\\.)?cluster\\.x-k8s\\.io/.*")).toList();
    }

    static JsonNode body(RecordedRequest r) {
        try {
            return JSON.readTree(r.body());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new AssertionError("not JSON: " + r, e);
        }
    }

    static JsonNode yaml(String text) {
        try {
            return new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readTree(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(text, e);
        }
    }
}
