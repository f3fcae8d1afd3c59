package dev.nightshift.sandbox.capi;

import static dev.nightshift.sandbox.capi.CapiObjects.JSON;
import static dev.nightshift.sandbox.capi.CapiObjects.annotation;
import static dev.nightshift.sandbox.capi.CapiObjects.deleting;
import static dev.nightshift.sandbox.capi.CapiObjects.label;
import static dev.nightshift.sandbox.capi.CapiObjects.name;
import static dev.nightshift.sandbox.capi.CapiObjects.objectAt;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGenerator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.sandbox.embedded.ControllerLoop;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import dev.nightshift.sandbox.capi.MachineSetScaling.DeletionOrder;
import dev.nightshift.sandbox.capi.MachineSetScaling.MachineState;
import dev.nightshift.sandbox.capi.OnDeleteRollout.MachineSetReplicas;

/**
 * A double of Cluster API's core controllers (MachineDeployment, MachineSet, Machine, MachineHealthCheck remediation)
 * and of an infrastructure provider whose machines become Nodes, honest enough to test a machine provider against.
 * It implements the {@code OnDelete} rollout strategy only; a {@code RollingUpdate} MachineDeployment is left alone
 * (logged once).
 *
 * <p>Every watch event (MachineDeployments, MachineSets, Machines, Nodes) and a slow resync start one reconcile pass
 * over the namespace, one at a time. A pass reads the objects with fresh list requests (not informer caches), so that
 * it never acts on a view older than its own last write: upstream guards the same with its cache expectations
 * ({@code DeferNextReconcileUntilCacheUpToDate}). Every request goes out with User-Agent {@value #USER_AGENT}.
 *
 * <p>Per pass: for each MachineDeployment not paused ({@code spec.paused}, {@code cluster.x-k8s.io/paused}, or its
 * Cluster paused), {@link OnDeleteRollout} decides the MachineSets' replicas; for each MachineSet,
 * {@link MachineSetScaling} which Machines to create or delete; then {@link MachineLifecycle} moves each Machine
 * towards a Node, or through drain and deletion.
 */
public final class ClusterApiControllers implements AutoCloseable {

    /** The User-Agent of every request the double makes, to tell them apart in the embedded API's request log. */
    public static final String USER_AGENT = "nightshift-capi-controllers";

    static final String DEPLOYMENT_NAME = "cluster.x-k8s.io/deployment-name";
    static final String SET_NAME = "cluster.x-k8s.io/set-name";
    static final String CLUSTER_NAME = "cluster.x-k8s.io/cluster-name";
    static final String TEMPLATE_HASH = "machine-template-hash";
    static final String PAUSED = "cluster.x-k8s.io/paused";
    static final String DISABLE_MACHINE_CREATE = "cluster.x-k8s.io/disable-machine-create";
    static final String REVISION = "machinedeployment.clusters.x-k8s.io/revision";
    static final String DELETE_MACHINE = "cluster.x-k8s.io/delete-machine";

    private static final Logger LOG = LoggerFactory.getLogger(ClusterApiControllers.class);
    /** Upstream's name suffix alphabet ({@code k8s.io/apimachinery/pkg/util/rand.String}): no vowels, no confusable digits. */
    private static final String ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

    private final KubernetesClient client;
    private final String namespace;
    private final Clock clock;
    private final RandomGenerator random;
    private final Behaviour behaviour;
    private final CapiObjects objects;
    private final MachineLifecycle machines;
    private final Set<String> warnedStrategies = new HashSet<>();
    private final ControllerLoop loop;
    private final List<SharedIndexInformer<? extends HasMetadata>> informers = new ArrayList<>();

    /**
     * @param api       a client for the embedded API; the double builds its own from its configuration (own
     *                  User-Agent, no automatic retries) and closes that one in {@link #close()}
     * @param namespace where the Cluster API objects live (the double watches only there; Nodes are cluster-wide)
     * @param executor  runs the passes and the delayed steps; the double never shuts it down
     * @param random    seeds names, Node addresses and faults: the same seed and the same events give the same names
     */
    public ClusterApiControllers(KubernetesClient api, String namespace, ScheduledExecutorService executor, Clock clock,
            RandomGenerator random, Behaviour behaviour) {
        this.client = new KubernetesClientBuilder().withConfig(new ConfigBuilder(api.getConfiguration())
                .withUserAgent(USER_AGENT).withRequestRetryBackoffLimit(0).build()).build();
        this.namespace = namespace;
        this.clock = clock;
        this.random = random;
        this.behaviour = behaviour;
        this.objects = new CapiObjects(client, namespace);
        this.loop = new ControllerLoop("CAPI double", LOG, executor, behaviour.resync(), this::reconcile);
        this.machines = new MachineLifecycle(client, objects, namespace, clock, random, behaviour, this::passIn);
    }

    /** Starts watching and reconciling; returns once the watches are open. */
    public void start() {
        for (var kind : List.of(ClusterApiResources.MACHINE_DEPLOYMENTS, ClusterApiResources.MACHINE_SETS,
                ClusterApiResources.MACHINES, ClusterApiResources.CLUSTERS)) {
            informers.add(client.genericKubernetesResources(kind).inNamespace(namespace).inform(loop.trigger(), 0));
        }
        informers.add(client.nodes().inform(loop.trigger(), 0));
        loop.start();
    }

    /** Stops watching and reconciling and closes the double's own client. Machines keep their state. */
    @Override
    public void close() {
        // After the pass under way, so that no write of the double is still producing watch events.
        loop.close(() -> {
            informers.forEach(SharedIndexInformer::close);
            client.close();
        });
    }

    /**
     * A MachineHealthCheck finding {@code machineName} unhealthy: its {@code HealthCheckSucceeded} condition turns
     * False (reason {@code UnhealthyNode}), its {@code OwnerRemediated} condition False, and its MachineSet deletes it
     * (upstream's {@code reconcileUnhealthyMachines}); the OnDelete MachineDeployment then replaces it in the newest
     * MachineSet once it is gone. Runs on the caller's thread.
     */
    public void healthCheckFails(String machineName) {
        loop.betweenPasses(() -> machines.healthCheckFails(machineName));
        passSoon();
    }

    /** The next {@code count} Machines created (by anyone) never get a Node (fault), besides {@link Behaviour#neverJoinRate()}. */
    public void nextMachinesNeverJoin(int count) {
        machines.nextMachinesNeverJoin(count);
    }

    /** {@code machineName}, once deleted, takes {@link Behaviour#slowDeletionDelay()} after its drain (fault). */
    public void deleteSlowly(String machineName) {
        machines.deleteSlowly(machineName);
    }

    /** Queues one pass now unless one is already queued. */
    void passSoon() {
        loop.passSoon();
    }

    private void passIn(Duration delay) {
        loop.passIn(delay);
    }

    private void reconcile() {
        Instant now = clock.instant();
        List<ObjectNode> clusters = objects.list(ClusterApiResources.CLUSTERS);
        Set<String> pausedClusters = new HashSet<>();
        for (ObjectNode cluster : clusters) {
            if (cluster.path("spec").path("paused").asBoolean(false) || CapiObjects.hasAnnotation(cluster, PAUSED)) {
                pausedClusters.add(name(cluster));
            }
        }
        for (ObjectNode md : objects.list(ClusterApiResources.MACHINE_DEPLOYMENTS)) {
            if (!deleting(md) && !pausedClusters.contains(md.path("spec").path("clusterName").asText())
                    && !md.path("spec").path("paused").asBoolean(false) && !CapiObjects.hasAnnotation(md, PAUSED)) {
                reconcileDeployment(md, now);
            }
        }
        List<ObjectNode> allMachines = objects.list(ClusterApiResources.MACHINES);
        Set<String> currentSets = new HashSet<>();
        List<ObjectNode> allSets = objects.list(ClusterApiResources.MACHINE_SETS);
        for (ObjectNode ms : allSets) {
            if ("false".equals(annotation(ms, DISABLE_MACHINE_CREATE))) {
                currentSets.add(name(ms));
            }
        }
        for (ObjectNode ms : allSets) {
            if (!deleting(ms) && !pausedClusters.contains(ms.path("spec").path("clusterName").asText())) {
                reconcileSet(ms, machinesOf(ms, allMachines), now);
            }
        }
        machines.reconcile(objects.list(ClusterApiResources.MACHINES), pausedClusters, currentSets, now);
    }

    private static List<ObjectNode> machinesOf(JsonNode ms, List<ObjectNode> all) {
        return all.stream().filter(m -> name(ms).equals(label(m, SET_NAME))).toList();
    }

    // ---- MachineDeployment controller ------------------------------------------------------------------------------

    private void reconcileDeployment(ObjectNode md, Instant now) {
        String mdName = name(md);
        String strategy = md.path("spec").path("rollout").path("strategy").path("type").asText("OnDelete");
        if (!"OnDelete".equals(strategy)) {
            if (warnedStrategies.add(mdName)) {
                LOG.warn("CAPI double: MachineDeployment {} uses rollout strategy {}; the double implements OnDelete only and leaves it alone",
                        mdName, strategy);
            }
            return;
        }
        List<ObjectNode> sets = objects.list(ClusterApiResources.MACHINE_SETS).stream()
                .filter(ms -> mdName.equals(label(ms, DEPLOYMENT_NAME)) && !deleting(ms)).toList();
        List<ObjectNode> allMachines = objects.list(ClusterApiResources.MACHINES);
        JsonNode template = md.path("spec").path("template");
        List<MachineSetReplicas> replicas = new ArrayList<>();
        for (ObjectNode ms : sets) {
            replicas.add(new MachineSetReplicas(name(ms), revision(ms), ms.path("spec").path("replicas").asInt(0),
                    machinesOf(ms, allMachines).size(),
                    MachineTemplates.upToDate(ms.path("spec").path("template").path("spec"), template.path("spec"))));
        }
        // The name is drawn only when a MachineSet is created, so that the seeded names do not depend on how many passes ran.
        String unnamed = mdName + "-";
        OnDeleteRollout.Plan plan = OnDeleteRollout.plan(md.path("spec").path("replicas").asInt(1), replicas, unnamed);
        long nextRevision = sets.stream().mapToLong(ClusterApiControllers::revision).filter(r -> r != Long.MAX_VALUE).max().orElse(0) + 1;
        String current = plan.current();
        if (plan.create()) {
            String suffix = randomSuffix();
            current = mdName + "-" + suffix;
            objects.create(ClusterApiResources.MACHINE_SETS, newMachineSet(md, current, suffix, plan.replicas().get(unnamed), nextRevision));
            LOG.info("CAPI double: MachineDeployment {} created MachineSet {}", mdName, current);
        }
        for (ObjectNode ms : sets) {
            boolean isCurrent = name(ms).equals(current);
            ObjectNode patch = JSON.createObjectNode();
            if (plan.replicas().containsKey(name(ms))) {
                objectAt(patch, "spec").put("replicas", plan.replicas().get(name(ms)));
            }
            String disabled = isCurrent ? "false" : "true";
            if (!disabled.equals(annotation(ms, DISABLE_MACHINE_CREATE))) {
                objectAt(patch, "metadata", "annotations").put(DISABLE_MACHINE_CREATE, disabled);
            }
            // computeDesiredMS: template labels and annotations are propagated in place to every MachineSet, old ones too.
            ObjectNode wantedLabels = templateLabels(md, label(ms, TEMPLATE_HASH));
            if (!wantedLabels.equals(ms.path("spec").path("template").path("metadata").path("labels"))) {
                objectAt(patch, "spec", "template", "metadata").set("labels", wantedLabels);
            }
            JsonNode wantedAnnotations = template.path("metadata").path("annotations").isObject()
                    ? template.path("metadata").path("annotations") : JSON.createObjectNode();
            JsonNode haveAnnotations = ms.path("spec").path("template").path("metadata").path("annotations");
            if (!wantedAnnotations.equals(haveAnnotations.isObject() ? haveAnnotations : JSON.createObjectNode())) {
                objectAt(patch, "spec", "template", "metadata").set("annotations", replacing(haveAnnotations, wantedAnnotations));
            }
            if (!patch.isEmpty()) {
                objects.mergePatch(ClusterApiResources.MACHINE_SETS, name(ms), patch);
            }
        }
        updateDeploymentStatus(md, current, allMachines, now);
    }

    /** A merge patch value that turns {@code have} into {@code want}: keys of {@code have} not in {@code want} become null. */
    private static ObjectNode replacing(JsonNode have, JsonNode want) {
        ObjectNode result = ((ObjectNode) want).deepCopy();
        have.fieldNames().forEachRemaining(key -> {
            if (!want.has(key)) {
                result.putNull(key);
            }
        });
        return result;
    }

    private static long revision(JsonNode ms) {
        try {
            return Long.parseLong(annotation(ms, REVISION));
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    private static ObjectNode templateLabels(JsonNode md, String hash) {
        ObjectNode labels = md.path("spec").path("template").path("metadata").path("labels").isObject()
                ? ((ObjectNode) md.path("spec").path("template").path("metadata").path("labels")).deepCopy()
                : JSON.createObjectNode();
        labels.put(TEMPLATE_HASH, hash);
        return labels;
    }

    /** {@code computeDesiredMS} for a new MachineSet: the MachineDeployment's template, labels, selector and owner. */
    private ObjectNode newMachineSet(ObjectNode md, String name, String suffix, int replicas, long revision) {
        JsonNode template = md.path("spec").path("template");
        String hash = MachineTemplates.hash(template.path("spec"), suffix);
        String clusterName = md.path("spec").path("clusterName").asText();
        ObjectNode ms = JSON.createObjectNode();
        ms.put("apiVersion", ClusterApiResources.apiVersion(ClusterApiResources.MACHINE_SETS)).put("kind", "MachineSet");
        ObjectNode metadata = ms.putObject("metadata").put("name", name).put("namespace", namespace);
        ObjectNode labels = templateLabels(md, hash);
        labels.put(DEPLOYMENT_NAME, name(md));
        labels.put(CLUSTER_NAME, clusterName);
        metadata.set("labels", labels);
        ObjectNode annotations = metadata.putObject("annotations");
        md.path("metadata").path("annotations").fields().forEachRemaining(e -> annotations.set(e.getKey(), e.getValue()));
        annotations.put("machinedeployment.clusters.x-k8s.io/desired-replicas", md.path("spec").path("replicas").asText("1"));
        annotations.put("machinedeployment.clusters.x-k8s.io/max-replicas", md.path("spec").path("replicas").asText("1"));
        annotations.put(REVISION, Long.toString(revision));
        annotations.put(DISABLE_MACHINE_CREATE, "false");
        metadata.putArray("ownerReferences").addObject()
                .put("apiVersion", ClusterApiResources.apiVersion(ClusterApiResources.MACHINE_DEPLOYMENTS))
                .put("kind", "MachineDeployment").put("name", name(md))
                .put("uid", md.path("metadata").path("uid").asText()).put("controller", true).put("blockOwnerDeletion", true);
        ObjectNode spec = ms.putObject("spec").put("clusterName", clusterName).put("replicas", replicas);
        String order = md.path("spec").path("deletion").path("order").asText("");
        if (!order.isEmpty()) {
            spec.putObject("deletion").put("order", order);
        }
        ObjectNode selector = md.path("spec").path("selector").isObject()
                ? ((ObjectNode) md.path("spec").path("selector")).deepCopy() : JSON.createObjectNode();
        objectAt(selector, "matchLabels").put(TEMPLATE_HASH, hash);
        spec.set("selector", selector);
        ObjectNode msTemplate = spec.putObject("template");
        ObjectNode templateMetadata = msTemplate.putObject("metadata");
        templateMetadata.set("labels", templateLabels(md, hash));
        if (template.path("metadata").path("annotations").isObject()) {
            templateMetadata.set("annotations", template.path("metadata").path("annotations").deepCopy());
        }
        msTemplate.set("spec", template.path("spec").deepCopy());
        return ms;
    }

    private void updateDeploymentStatus(ObjectNode md, String current, List<ObjectNode> allMachines, Instant now) {
        List<ObjectNode> mine = allMachines.stream().filter(m -> name(md).equals(label(m, DEPLOYMENT_NAME))).toList();
        int ready = (int) mine.stream().filter(m -> MachineLifecycle.isTrue(m, "Ready")).count();
        int available = (int) mine.stream().filter(m -> MachineLifecycle.isTrue(m, "Available")).count();
        int upToDate = (int) mine.stream().filter(m -> current.equals(label(m, SET_NAME)) && MachineLifecycle.isTrue(m, "UpToDate")).count();
        ObjectNode status = md.path("status").isObject() ? ((ObjectNode) md.get("status")).deepCopy() : JSON.createObjectNode();
        status.put("replicas", mine.size()).put("readyReplicas", ready).put("availableReplicas", available)
                .put("upToDateReplicas", upToDate).put("observedGeneration", md.path("metadata").path("generation").asLong(1))
                .put("phase", phase(mine.size(), md.path("spec").path("replicas").asInt(1)));
        writeStatus(ClusterApiResources.MACHINE_DEPLOYMENTS, md, status);
    }

    private static String phase(int machines, int replicas) {
        return machines < replicas ? "ScalingUp" : machines > replicas ? "ScalingDown" : "Running";
    }

    private void writeStatus(io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext kind, ObjectNode object, ObjectNode status) {
        if (!status.equals(object.path("status"))) {
            ObjectNode updated = object.deepCopy();
            updated.set("status", status);
            objects.updateStatus(kind, updated);
        }
    }

    // ---- MachineSet controller -----------------------------------------------------------------------------------

    private void reconcileSet(ObjectNode ms, List<ObjectNode> machinesOfSet, Instant now) {
        int specReplicas = ms.path("spec").path("replicas").asInt(0);
        boolean createDisabled = "true".equals(annotation(ms, DISABLE_MACHINE_CREATE));
        List<MachineState> states = machinesOfSet.stream().map(m -> new MachineState(name(m),
                CapiObjects.created(m).orElse(now), deleting(m), CapiObjects.hasAnnotation(m, DELETE_MACHINE),
                MachineLifecycle.healthy(m))).toList();
        MachineSetScaling.Decision decision = MachineSetScaling.decide(specReplicas, createDisabled, states,
                DeletionOrder.of(ms.path("spec").path("deletion").path("order").asText("")), now);
        for (int i = 0; i < decision.create(); i++) {
            ObjectNode machine = objects.create(ClusterApiResources.MACHINES, newMachine(ms));
            LOG.info("CAPI double: MachineSet {} created Machine {}", name(ms), name(machine));
        }
        for (String victim : decision.delete()) {
            objects.delete(ClusterApiResources.MACHINES, victim);
            LOG.info("CAPI double: MachineSet {} deleted Machine {} (scale down)", name(ms), victim);
        }
        machines.syncMetadata(ms, machinesOfSet);
        ObjectNode status = ms.path("status").isObject() ? ((ObjectNode) ms.get("status")).deepCopy() : JSON.createObjectNode();
        status.put("replicas", machinesOfSet.size())
                .put("readyReplicas", (int) machinesOfSet.stream().filter(m -> MachineLifecycle.isTrue(m, "Ready")).count())
                .put("availableReplicas", (int) machinesOfSet.stream().filter(m -> MachineLifecycle.isTrue(m, "Available")).count())
                .put("upToDateReplicas", (int) machinesOfSet.stream().filter(m -> MachineLifecycle.isTrue(m, "UpToDate")).count())
                .put("observedGeneration", ms.path("metadata").path("generation").asLong(1))
                .put("selector", TEMPLATE_HASH + "=" + label(ms, TEMPLATE_HASH));
        writeStatus(ClusterApiResources.MACHINE_SETS, ms, status);
    }

    /** {@code computeDesiredMachine} for a new Machine; infrastructure and bootstrap refs name the clones upstream would make. */
    private ObjectNode newMachine(ObjectNode ms) {
        String name = name(ms) + "-" + randomSuffix();
        JsonNode template = ms.path("spec").path("template");
        String clusterName = ms.path("spec").path("clusterName").asText();
        ObjectNode machine = JSON.createObjectNode();
        machine.put("apiVersion", ClusterApiResources.apiVersion(ClusterApiResources.MACHINES)).put("kind", "Machine");
        ObjectNode metadata = machine.putObject("metadata").put("name", name).put("namespace", namespace);
        ObjectNode labels = metadata.putObject("labels");
        template.path("metadata").path("labels").fields().forEachRemaining(e -> labels.set(e.getKey(), e.getValue()));
        labels.put(SET_NAME, name(ms));
        if (!label(ms, DEPLOYMENT_NAME).isEmpty()) {
            labels.put(DEPLOYMENT_NAME, label(ms, DEPLOYMENT_NAME));
        }
        labels.put(CLUSTER_NAME, clusterName); // the Machine webhook's defaulting
        ObjectNode annotations = metadata.putObject("annotations");
        template.path("metadata").path("annotations").fields().forEachRemaining(e -> annotations.set(e.getKey(), e.getValue()));
        metadata.putArray("finalizers").add(MachineLifecycle.FINALIZER);
        metadata.putArray("ownerReferences").addObject()
                .put("apiVersion", ClusterApiResources.apiVersion(ClusterApiResources.MACHINE_SETS))
                .put("kind", "MachineSet").put("name", name(ms))
                .put("uid", ms.path("metadata").path("uid").asText()).put("controller", true).put("blockOwnerDeletion", true);
        ObjectNode spec = template.path("spec").isObject() ? ((ObjectNode) template.get("spec")).deepCopy() : JSON.createObjectNode();
        spec.put("clusterName", clusterName);
        spec.set("infrastructureRef", cloneRef(template.path("spec").path("infrastructureRef"), name));
        if (template.path("spec").path("bootstrap").path("configRef").isObject()) {
            objectAt(spec, "bootstrap").set("configRef", cloneRef(template.path("spec").path("bootstrap").path("configRef"), name));
        }
        machine.set("spec", spec);
        machine.putObject("status").put("phase", "Pending");
        return machine;
    }

    /** The reference to the object cloned from a template: same group, kind without {@code Template}, the Machine's name. */
    private static ObjectNode cloneRef(JsonNode templateRef, String name) {
        ObjectNode ref = JSON.createObjectNode();
        if (templateRef.has("apiGroup")) {
            ref.put("apiGroup", templateRef.path("apiGroup").asText());
        }
        String kind = templateRef.path("kind").asText();
        ref.put("kind", kind.endsWith("Template") ? kind.substring(0, kind.length() - "Template".length()) : kind);
        ref.put("name", name);
        return ref;
    }

    private String randomSuffix() {
        StringBuilder suffix = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            suffix.append(ALPHANUMS.charAt(random.nextInt(ALPHANUMS.length())));
        }
        return suffix.toString();
    }
}
