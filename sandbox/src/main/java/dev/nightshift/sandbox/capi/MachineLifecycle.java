package dev.nightshift.sandbox.capi;

import static dev.nightshift.sandbox.capi.CapiObjects.JSON;
import static dev.nightshift.sandbox.capi.CapiObjects.deleting;
import static dev.nightshift.sandbox.capi.CapiObjects.label;
import static dev.nightshift.sandbox.capi.CapiObjects.name;
import static dev.nightshift.sandbox.capi.CapiObjects.objectAt;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * The Machine controller's part of the double, with the infrastructure behind it: a new Machine becomes a Node after
 * {@link Behaviour#nodeJoinDelay()}, found by {@code spec.providerID} and recorded in {@code status.nodeRef}; a
 * deleted Machine is drained (unless {@code machine.cluster.x-k8s.io/exclude-node-draining}), its Node deleted, and
 * its finalizer removed after {@link Behaviour#deletionDelay()} ({@code core/reconcilers/machine/machine_controller.go}
 * {@code reconcileDelete}: drain, wait for volumes, delete infrastructure, delete the Node, remove the finalizer).
 *
 * <p>The Node carries only what a kubelet and Cluster API set: {@code kubernetes.io/hostname}, {@code kubernetes.io/os},
 * {@code kubernetes.io/arch}; the Machine's labels in the domains CAPI syncs ({@code node.cluster.x-k8s.io},
 * {@code node-role.kubernetes.io}, {@code node-restriction.kubernetes.io}) and annotations in
 * {@code node.cluster.x-k8s.io}; CAPI's node annotations ({@code cluster.x-k8s.io/cluster-name}, {@code -namespace},
 * {@code machine}, {@code owner-kind}, {@code owner-name}). Nothing else of the Machine (no {@code nightshift.dev/}
 * key) reaches the Node: a provider copies what it needs itself.
 */
final class MachineLifecycle {

    static final String FINALIZER = "machine.cluster.x-k8s.io";
    static final String EXCLUDE_DRAIN = "machine.cluster.x-k8s.io/exclude-node-draining";

    private static final Logger LOG = LoggerFactory.getLogger(MachineLifecycle.class);
    private static final List<String> SYNCED_LABEL_DOMAINS =
            List.of("node.cluster.x-k8s.io", "node-role.kubernetes.io", "node-restriction.kubernetes.io");
    private static final String SYNCED_ANNOTATION_DOMAIN = "node.cluster.x-k8s.io";

    /** What the double remembers of one Machine, by uid: the infrastructure's side of it. */
    private static final class Infrastructure {
        final Instant created;
        final boolean neverJoins;
        Instant deletionSeen;
        Instant drained;
        Instant evictionRetryAt;
        Boolean slow;
        /** The Node the instance registered, once it has; kept so that a failed status write does not make a second one. */
        Node node;

        Infrastructure(Instant created, boolean neverJoins) {
            this.created = created;
            this.neverJoins = neverJoins;
        }
    }

    private final KubernetesClient client;
    private final CapiObjects objects;
    private final String namespace;
    private final Clock clock;
    private final RandomGenerator random;
    private final Behaviour behaviour;
    private final Consumer<Duration> passIn;
    private final Map<String, Infrastructure> infrastructure = new HashMap<>();
    private final AtomicInteger neverJoinBudget = new AtomicInteger();
    private final Set<String> slowByName = ConcurrentHashMap.newKeySet();

    MachineLifecycle(KubernetesClient client, CapiObjects objects, String namespace, Clock clock, RandomGenerator random,
            Behaviour behaviour, Consumer<Duration> passIn) {
        this.client = client;
        this.objects = objects;
        this.namespace = namespace;
        this.clock = clock;
        this.random = random;
        this.behaviour = behaviour;
        this.passIn = passIn;
    }

    void nextMachinesNeverJoin(int count) {
        neverJoinBudget.addAndGet(count);
    }

    void deleteSlowly(String machineName) {
        slowByName.add(machineName);
    }

    static boolean isTrue(JsonNode machine, String condition) {
        return CapiObjects.condition(machine, condition).map(c -> "True".equals(c.path("status").asText())).orElse(false);
    }

    private static boolean isFalse(JsonNode machine, String condition) {
        return CapiObjects.condition(machine, condition).map(c -> "False".equals(c.path("status").asText())).orElse(false);
    }

    /** Upstream's {@code isMachineHealthy} ({@code machineset_deletion_order.go}). */
    static boolean healthy(JsonNode machine) {
        return !machine.path("status").path("nodeRef").path("name").asText("").isEmpty()
                && !isFalse(machine, "NodeHealthy") && !isFalse(machine, "HealthCheckSucceeded");
    }

    void reconcile(List<ObjectNode> machines, Set<String> pausedClusters, Set<String> currentSets, Instant now) {
        Map<String, Node> nodes = new LinkedHashMap<>();
        client.nodes().list().getItems().forEach(n -> nodes.put(n.getMetadata().getName(), n));
        Set<String> seen = new HashSet<>();
        for (ObjectNode machine : machines) {
            String uid = machine.path("metadata").path("uid").asText(name(machine));
            seen.add(uid);
            if (pausedClusters.contains(machine.path("spec").path("clusterName").asText())) {
                continue;
            }
            Infrastructure infra = infrastructure.computeIfAbsent(uid, u -> new Infrastructure(now, drawNeverJoins()));
            if (deleting(machine)) {
                reconcileDelete(machine, infra, nodes, now);
            } else {
                reconcileRunning(machine, infra, nodes, currentSets.contains(label(machine, ClusterApiControllers.SET_NAME)), now);
            }
        }
        infrastructure.keySet().retainAll(seen);
    }

    private boolean drawNeverJoins() {
        if (neverJoinBudget.getAndUpdate(n -> Math.max(n - 1, 0)) > 0) {
            return true;
        }
        return behaviour.neverJoinRate() > 0 && random.nextDouble() < behaviour.neverJoinRate();
    }

    // ---- provisioning ----------------------------------------------------------------------------------------------

    private void reconcileRunning(ObjectNode machine, Infrastructure infra, Map<String, Node> nodes, boolean upToDate, Instant now) {
        String nodeName = machine.path("status").path("nodeRef").path("name").asText("");
        ObjectNode status = machine.path("status").isObject() ? ((ObjectNode) machine.get("status")).deepCopy() : JSON.createObjectNode();
        long generation = machine.path("metadata").path("generation").asLong(1);
        CapiObjects.setCondition(status, "UpToDate", upToDate, upToDate ? "UpToDate" : "NotUpToDate", "", now, generation);
        if (nodeName.isEmpty()) {
            status.put("phase", "Provisioning");
            CapiObjects.setCondition(status, "Ready", false, "NotReady", "waiting for a Node", now, generation);
            CapiObjects.setCondition(status, "Available", false, "NotReady", "", now, generation);
            Instant due = infra.created.plus(behaviour.nodeJoinDelay());
            if (!infra.neverJoins && !now.isBefore(due)) {
                if (infra.node == null) {
                    infra.node = join(machine, nodes.keySet(), now);
                }
                Node node = infra.node;
                nodes.put(node.getMetadata().getName(), node);
                nodeName = node.getMetadata().getName();
                status.putObject("nodeRef").put("name", nodeName);
                status.put("phase", "Running");
                status.putObject("nodeInfo").put("kubeletVersion", machine.path("spec").path("version").asText(""))
                        .put("operatingSystem", "linux").put("architecture", "amd64");
                CapiObjects.setCondition(status, "NodeHealthy", true, "NodeHealthy", "", now, generation);
                CapiObjects.setCondition(status, "Ready", true, "Ready", "", now, generation);
                CapiObjects.setCondition(status, "Available", true, "Available", "", now, generation);
                LOG.info("CAPI double: Machine {} joined as Node {}", name(machine), nodeName);
            } else if (!infra.neverJoins) {
                passIn.accept(Duration.between(now, due));
            }
        } else {
            Node node = nodes.get(nodeName);
            boolean nodeReady = node != null && node.getStatus() != null && node.getStatus().getConditions() != null
                    && node.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
            CapiObjects.setCondition(status, "NodeHealthy", nodeReady, nodeReady ? "NodeHealthy" : (node == null ? "NodeDeleted" : "NodeNotReady"),
                    "", now, generation);
            boolean ready = nodeReady && !isFalse(machine, "HealthCheckSucceeded");
            CapiObjects.setCondition(status, "Ready", ready, ready ? "Ready" : "NotReady", "", now, generation);
            CapiObjects.setCondition(status, "Available", ready, ready ? "Available" : "NotReady", "", now, generation);
            if (node != null) {
                syncNode(machine, node);
            }
        }
        writeStatus(machine, status);
        if (!nodeName.isEmpty() && machine.path("spec").path("providerID").asText("").isEmpty() && nodes.containsKey(nodeName)) {
            // After the status write, which carries the resourceVersion read: the Machine controller sets spec.providerID
            // from the infrastructure machine.
            objects.mergePatch(ClusterApiResources.MACHINES, name(machine), (ObjectNode) JSON.createObjectNode()
                    .set("spec", JSON.createObjectNode().put("providerID", nodes.get(nodeName).getSpec().getProviderID())));
        }
    }

    private void writeStatus(ObjectNode machine, ObjectNode status) {
        if (!status.equals(machine.path("status"))) {
            ObjectNode updated = machine.deepCopy();
            updated.set("status", status);
            objects.updateStatus(ClusterApiResources.MACHINES, updated);
        }
    }

    /** The infrastructure's instance boots and its kubelet registers a Ready Node; the Machine gets its providerID. */
    private Node join(ObjectNode machine, Set<String> taken, Instant now) {
        String nodeName;
        int a;
        int b;
        do {
            a = random.nextInt(256);
            b = 1 + random.nextInt(254);
            nodeName = "ip-10-0-" + a + "-" + b;
        } while (taken.contains(nodeName));
        StringBuilder instance = new StringBuilder("i-");
        for (int i = 0; i < 17; i++) {
            instance.append(Character.forDigit(random.nextInt(16), 16));
        }
        String providerID = "embedded:///eu-west-1a/" + instance;
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("kubernetes.io/hostname", nodeName);
        labels.put("kubernetes.io/os", "linux");
        labels.put("kubernetes.io/arch", "amd64");
        labels.putAll(syncedLabels(machine));
        Map<String, String> annotations = new LinkedHashMap<>(syncedAnnotations(machine));
        annotations.putAll(capiNodeAnnotations(machine));
        String time = now.toString();
        Node node = new NodeBuilder()
                .withNewMetadata().withName(nodeName).withLabels(labels).withAnnotations(annotations).endMetadata()
                .withNewSpec().withProviderID(providerID).endSpec()
                .withNewStatus()
                .addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady")
                .withMessage("kubelet is posting ready status").withLastTransitionTime(time).withLastHeartbeatTime(time).endCondition()
                .addNewAddress().withType("InternalIP").withAddress("10.0." + a + "." + b).endAddress()
                .addNewAddress().withType("Hostname").withAddress(nodeName).endAddress()
                .withNewNodeInfo().withKubeletVersion(machine.path("spec").path("version").asText(""))
                .withKubeProxyVersion(machine.path("spec").path("version").asText("")).withOperatingSystem("linux")
                .withArchitecture("amd64").withContainerRuntimeVersion("containerd://1.7.24").withOsImage("Ubuntu 24.04.1 LTS")
                .endNodeInfo()
                .endStatus()
                .build();
        return client.nodes().resource(node).create();
    }

    /** CAPI's annotations on a Node it manages ({@code machine_controller_noderef.go}, {@code getManagedAnnotations}). */
    private Map<String, String> capiNodeAnnotations(JsonNode machine) {
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put("cluster.x-k8s.io/cluster-name", machine.path("spec").path("clusterName").asText());
        annotations.put("cluster.x-k8s.io/cluster-namespace", namespace);
        annotations.put("cluster.x-k8s.io/machine", name(machine));
        JsonNode owner = machine.path("metadata").path("ownerReferences").path(0);
        if (!owner.isMissingNode()) {
            annotations.put("cluster.x-k8s.io/owner-kind", owner.path("kind").asText());
            annotations.put("cluster.x-k8s.io/owner-name", owner.path("name").asText());
        }
        return annotations;
    }

    private static Map<String, String> syncedLabels(JsonNode machine) {
        Map<String, String> labels = new LinkedHashMap<>();
        machine.path("metadata").path("labels").fields().forEachRemaining(e -> {
            String domain = domain(e.getKey());
            if (SYNCED_LABEL_DOMAINS.stream().anyMatch(d -> domain.equals(d) || domain.endsWith("." + d))) {
                labels.put(e.getKey(), e.getValue().asText());
            }
        });
        return labels;
    }

    private static Map<String, String> syncedAnnotations(JsonNode machine) {
        Map<String, String> annotations = new LinkedHashMap<>();
        machine.path("metadata").path("annotations").fields().forEachRemaining(e -> {
            String domain = domain(e.getKey());
            if (domain.equals(SYNCED_ANNOTATION_DOMAIN) || domain.endsWith("." + SYNCED_ANNOTATION_DOMAIN)) {
                annotations.put(e.getKey(), e.getValue().asText());
            }
        });
        return annotations;
    }

    private static String domain(String key) {
        int slash = key.indexOf('/');
        return slash < 0 ? "" : key.substring(0, slash);
    }

    /** Keeps the synced labels and annotations on the Node as on the Machine (adds and updates; never removes). */
    private void syncNode(JsonNode machine, Node node) {
        Map<String, String> labels = syncedLabels(machine);
        Map<String, String> annotations = new LinkedHashMap<>(syncedAnnotations(machine));
        annotations.putAll(capiNodeAnnotations(machine));
        Map<String, String> haveLabels = Optional.ofNullable(node.getMetadata().getLabels()).orElse(Map.of());
        Map<String, String> haveAnnotations = Optional.ofNullable(node.getMetadata().getAnnotations()).orElse(Map.of());
        ObjectNode patch = JSON.createObjectNode();
        labels.forEach((k, v) -> {
            if (!v.equals(haveLabels.get(k))) {
                objectAt(patch, "metadata", "labels").put(k, v);
            }
        });
        annotations.forEach((k, v) -> {
            if (!v.equals(haveAnnotations.get(k))) {
                objectAt(patch, "metadata", "annotations").put(k, v);
            }
        });
        if (!patch.isEmpty()) {
            client.nodes().withName(node.getMetadata().getName()).patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
        }
    }

    /**
     * The MachineSet controller's {@code syncMachines}: template labels and annotations propagate in place to its
     * Machines not being deleted (added and updated; a key removed from the template stays on the Machine, where
     * upstream's server-side apply would remove it).
     */
    void syncMetadata(JsonNode ms, List<ObjectNode> machines) {
        JsonNode template = ms.path("spec").path("template").path("metadata");
        for (ObjectNode machine : machines) {
            if (deleting(machine)) {
                continue;
            }
            ObjectNode patch = JSON.createObjectNode();
            for (String field : List.of("labels", "annotations")) {
                JsonNode have = machine.path("metadata").path(field);
                template.path(field).fields().forEachRemaining(e -> {
                    if (!e.getValue().equals(have.get(e.getKey()))) {
                        objectAt(patch, "metadata", field).set(e.getKey(), e.getValue());
                    }
                });
            }
            if (!patch.isEmpty()) {
                objects.mergePatch(ClusterApiResources.MACHINES, name(machine), patch);
            }
        }
    }

    // ---- deletion --------------------------------------------------------------------------------------------------

    private void reconcileDelete(ObjectNode machine, Infrastructure infra, Map<String, Node> nodes, Instant now) {
        JsonNode finalizers = machine.path("metadata").path("finalizers");
        boolean ours = false;
        for (JsonNode f : finalizers) {
            ours |= FINALIZER.equals(f.asText());
        }
        if (!ours) {
            return;
        }
        if (infra.deletionSeen == null) {
            infra.deletionSeen = now;
            infra.slow = slowByName.remove(name(machine))
                    || (behaviour.slowDeletionRate() > 0 && random.nextDouble() < behaviour.slowDeletionRate());
            LOG.info("CAPI double: Machine {} is being deleted", name(machine));
        }
        if (!"Deleting".equals(machine.path("status").path("phase").asText())) {
            ObjectNode status = machine.path("status").isObject() ? ((ObjectNode) machine.get("status")).deepCopy() : JSON.createObjectNode();
            status.put("phase", "Deleting");
            CapiObjects.setCondition(status, "Deleting", true, "DrainingNode", "", now, machine.path("metadata").path("generation").asLong(1));
            writeStatus(machine, status);
        }
        String nodeName = machine.path("status").path("nodeRef").path("name").asText("");
        Node node = nodeName.isEmpty() ? null : nodes.get(nodeName);
        if (infra.drained == null) {
            if (node != null && !CapiObjects.hasAnnotation(machine, EXCLUDE_DRAIN) && !drain(node, infra, now)) {
                return;
            }
            infra.drained = now;
        }
        Instant due = infra.drained.plus(Boolean.TRUE.equals(infra.slow) ? behaviour.slowDeletionDelay() : behaviour.deletionDelay());
        if (now.isBefore(due)) {
            passIn.accept(Duration.between(now, due));
            return;
        }
        if (node != null) {
            client.nodes().withName(nodeName).delete();
            LOG.info("CAPI double: Node {} of Machine {} deleted", nodeName, name(machine));
        }
        ArrayNode remaining = JSON.createArrayNode();
        finalizers.forEach(f -> {
            if (!FINALIZER.equals(f.asText())) {
                remaining.add(f);
            }
        });
        // With its resourceVersion: a conflicting write makes the next pass try again.
        ObjectNode patch = JSON.createObjectNode();
        objectAt(patch, "metadata").put("resourceVersion", machine.path("metadata").path("resourceVersion").asText())
                .set("finalizers", remaining);
        objects.mergePatch(ClusterApiResources.MACHINES, name(machine), patch);
        LOG.info("CAPI double: Machine {} finalizer removed", name(machine));
    }

    /**
     * Cordons the Node and evicts its pods through the eviction API (budgets apply: a refused eviction is retried after
     * {@link Behaviour#evictionRetry()}); DaemonSet pods and mirror pods stay, as {@code kubectl drain} and CAPI's
     * drainer leave them. Returns whether nothing is left to evict.
     */
    private boolean drain(Node node, Infrastructure infra, Instant now) {
        String nodeName = node.getMetadata().getName();
        if (!Boolean.TRUE.equals(node.getSpec() == null ? null : node.getSpec().getUnschedulable())) {
            client.nodes().withName(nodeName).patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":true}}");
        }
        if (infra.evictionRetryAt != null && now.isBefore(infra.evictionRetryAt)) {
            passIn.accept(Duration.between(now, infra.evictionRetryAt));
            return false;
        }
        List<Pod> pods = client.pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> p.getSpec() != null && nodeName.equals(p.getSpec().getNodeName()))
                .filter(MachineLifecycle::evictable)
                .toList();
        boolean refused = false;
        for (Pod pod : pods) {
            if (!client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).evict()) {
                refused = true;
            }
        }
        if (refused) {
            infra.evictionRetryAt = now.plus(behaviour.evictionRetry());
            passIn.accept(behaviour.evictionRetry());
            return false;
        }
        return true;
    }

    private static boolean evictable(Pod pod) {
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            return false;
        }
        if (pod.getMetadata().getAnnotations() != null && pod.getMetadata().getAnnotations().containsKey("kubernetes.io/config.mirror")) {
            return false;
        }
        return pod.getMetadata().getOwnerReferences() == null
                || pod.getMetadata().getOwnerReferences().stream().noneMatch(o -> "DaemonSet".equals(o.getKind()));
    }

    // ---- faults ------------------------------------------------------------------------------------------------------

    /** See {@link ClusterApiControllers#healthCheckFails}. */
    void healthCheckFails(String machineName) {
        ObjectNode machine = objects.tree(client.genericKubernetesResources(ClusterApiResources.MACHINES).inNamespace(namespace)
                .withName(machineName).require());
        Instant now = clock.instant();
        long generation = machine.path("metadata").path("generation").asLong(1);
        ObjectNode status = machine.path("status").isObject() ? ((ObjectNode) machine.get("status")).deepCopy() : JSON.createObjectNode();
        CapiObjects.setCondition(status, "HealthCheckSucceeded", false, "UnhealthyNode",
                "Health check failed: Condition Ready on Node is reported as False", now, generation);
        CapiObjects.setCondition(status, "OwnerRemediated", false, "WaitingForRemediation",
                "Waiting for remediation", now, generation);
        CapiObjects.setCondition(status, "Ready", false, "NotReady", "", now, generation);
        CapiObjects.setCondition(status, "Available", false, "NotReady", "", now, generation);
        writeStatus(machine, status);
        objects.delete(ClusterApiResources.MACHINES, machineName);
        LOG.info("CAPI double: MachineHealthCheck failed Machine {}; its MachineSet deletes it", machineName);
    }
}
