package dev.nightshift.agent.provider.capi;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.kube.SchedulableNodes;
import dev.nightshift.agent.provider.Machine;
import dev.nightshift.agent.provider.KeepsPoolSizes;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.agent.provider.Refusals;
import dev.nightshift.agent.provider.RemediationHolds;
import dev.nightshift.agent.provider.Settling;
import dev.nightshift.agent.provider.StampsMachines;
import dev.nightshift.agent.provider.ChangeNotifications;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredPool;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/**
 * Machines from Cluster API ({@code cluster.x-k8s.io/v1beta2}): a pool is the one
 * MachineDeployment labelled {@code nightshift.dev/pool: <pool>} and
 * {@code cluster.x-k8s.io/cluster-name: <cluster>}, which must roll out {@code OnDelete} so that
 * Cluster API never replaces a machine on its own.
 *
 * <ul>
 *   <li>A new roll hash is a new infrastructure template ({@link MachineTemplates}) that the
 *       MachineDeployment is pointed at in one update, with the hashes in its template metadata so
 *       that every new Machine carries them.</li>
 *   <li>A surge machine raises {@code spec.replicas} to {@code desired-replicas + surge requests}
 *       ({@link SurgeRequests}), never by one, so that asking again changes nothing.</li>
 *   <li>Lowering {@code spec.replicas} of an OnDelete MachineDeployment shrinks its oldest old
 *       MachineSet first, and {@code cluster.x-k8s.io/delete-machine} orders victims only within a
 *       MachineSet ({@code machinedeployment_rollout_ondelete.go}, {@code machineset_deletion_order.go}):
 *       a surge partner leaves by lowering replicas only when it is in that MachineSet, annotated
 *       {@code delete-machine} and {@code exclude-node-draining} after Nightshift drained it. The
 *       order of MachineSets is given to the planner ({@link Machine#removalOrder()}).</li>
 *   <li>A machine replaced without surge is deleted (Nightshift drained it: {@code exclude-node-draining})
 *       with replicas unchanged; Cluster API creates its replacement at the current template.</li>
 * </ul>
 * Nightshift never writes to a MachineDeployment it refuses ({@link #refusal}).
 */
public final class ClusterApiMachineProvider implements MachineProvider, ChangeNotifications, Settling, RemediationHolds, Refusals, StampsMachines,
        KeepsPoolSizes {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterApiMachineProvider.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Placeholder names of surge machines asked for and not created yet. */
    private static final String REQUESTED = "-requested-for-";
    /** Placeholder names of replacements Cluster API owes for deleted Machines and has not created yet. */
    private static final String OWED = "-replacement-owed-";
    /**
     * On the MachineDeployment: the Machines whose removal Nightshift asked for by lowering replicas, comma-separated,
     * written in the same patch as the lowering (see {@link #deleteStranded}).
     */
    static final String LEAVING = "nightshift.dev/leaving-machines";

    private final KubernetesClient client;
    private final ClusterApiSettings settings;
    private final Clock clock;
    private final MachineTemplates templates;
    private SharedIndexInformer<GenericKubernetesResource> clusters;
    private SharedIndexInformer<GenericKubernetesResource> deployments;
    private SharedIndexInformer<GenericKubernetesResource> sets;
    private SharedIndexInformer<GenericKubernetesResource> machines;

    /** @param client a client for the cluster that holds the Cluster API objects (the management cluster) */
    public ClusterApiMachineProvider(KubernetesClient client, ClusterApiSettings settings, Clock clock) {
        this.client = client;
        this.settings = settings;
        this.clock = clock;
        this.templates = new MachineTemplates(client, settings);
    }

    @Override
    public void start(Runnable onChange) throws Exception {
        ResourceEventHandler<GenericKubernetesResource> trigger = new ResourceEventHandler<>() {
            @Override
            public void onAdd(GenericKubernetesResource obj) {
                onChange.run();
            }

            @Override
            public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
                onChange.run();
            }

            @Override
            public void onDelete(GenericKubernetesResource obj, boolean deletedFinalStateUnknown) {
                onChange.run();
            }
        };
        clusters = informer(ClusterApi.CLUSTERS, trigger);
        deployments = informer(ClusterApi.MACHINE_DEPLOYMENTS, trigger);
        sets = informer(ClusterApi.MACHINE_SETS, trigger);
        machines = informer(ClusterApi.MACHINES, trigger);
        for (SharedIndexInformer<GenericKubernetesResource> i : List.of(clusters, deployments, sets, machines)) {
            i.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
    }

    /** Every watch is up: the caches follow the Cluster API objects. */
    public boolean watching() {
        return Stream.of(clusters, deployments, sets, machines).allMatch(i -> i != null && i.isWatching());
    }

    private SharedIndexInformer<GenericKubernetesResource> informer(ResourceDefinitionContext context,
                                                                    ResourceEventHandler<GenericKubernetesResource> trigger) {
        SharedIndexInformer<GenericKubernetesResource> i = client.genericKubernetesResources(context).inNamespace(settings.namespace())
                .runnableInformer(0);
        i.addEventHandler(trigger);
        return i;
    }

    @Override
    public void close() {
        for (SharedIndexInformer<GenericKubernetesResource> i : new SharedIndexInformer[] {clusters, deployments, sets, machines}) {
            if (i != null) {
                i.close();
            }
        }
    }

    // ---- which MachineDeployment, and whether Nightshift may act on it ---------------------------

    /** The pool's MachineDeployment, or why Nightshift will not act on the pool. */
    private sealed interface Backing permits Backing.Found, Backing.Refused {
        record Found(GenericKubernetesResource md) implements Backing {
        }

        record Refused(String reason) implements Backing {
        }
    }

    private Backing backing(String pool) {
        String where = "namespace " + settings.namespace();
        List<GenericKubernetesResource> labelled = deployments.getStore().list().stream()
                .filter(md -> pool.equals(label(md, NodeMarks.POOL)) && settings.cluster().equals(label(md, ClusterApi.CLUSTER_NAME_LABEL)))
                .sorted(Comparator.comparing(md -> md.getMetadata().getName())).toList();
        if (labelled.isEmpty()) {
            return new Backing.Refused("no MachineDeployment in " + where + " is labelled " + NodeMarks.POOL + "=" + pool + " and "
                    + ClusterApi.CLUSTER_NAME_LABEL + "=" + settings.cluster() + ": label the pool's MachineDeployment");
        }
        if (labelled.size() > 1) {
            return new Backing.Refused("MachineDeployments " + String.join(", ", labelled.stream().map(md -> md.getMetadata().getName())
                    .toList()) + " in " + where + " are all labelled " + NodeMarks.POOL + "=" + pool + ": label exactly one");
        }
        GenericKubernetesResource md = labelled.get(0);
        String name = "MachineDeployment " + settings.namespace() + "/" + md.getMetadata().getName();
        JsonNode o = JSON.valueToTree(md);
        String strategy = o.at("/spec/rollout/strategy/type").asText("RollingUpdate");
        if (!ClusterApi.ON_DELETE.equals(strategy)) {
            return new Backing.Refused(name + " rolls out with " + strategy + " (spec.rollout.strategy.type): set it to "
                    + ClusterApi.ON_DELETE + ", so that only Nightshift replaces its machines");
        }
        if (o.at("/spec/paused").asBoolean(false) || annotation(md, ClusterApi.PAUSED_ANNOTATION) != null) {
            return new Backing.Refused(name + " is paused (spec.paused or " + ClusterApi.PAUSED_ANNOTATION
                    + "): resume it, or pause the pool in Nightshift instead");
        }
        Optional<GenericKubernetesResource> cluster = clusters.getStore().list().stream()
                .filter(c -> settings.cluster().equals(c.getMetadata().getName())).findFirst();
        if (cluster.isPresent() && (JSON.valueToTree(cluster.get()).at("/spec/paused").asBoolean(false)
                || annotation(cluster.get(), ClusterApi.PAUSED_ANNOTATION) != null)) {
            return new Backing.Refused("Cluster " + settings.namespace() + "/" + settings.cluster() + " is paused (spec.paused or "
                    + ClusterApi.PAUSED_ANNOTATION + "): Cluster API acts on none of its machines until it is resumed");
        }
        if (label(md, ClusterApi.TOPOLOGY_OWNED_LABEL) != null) {
            return new Backing.Refused(name + " is owned by its Cluster's ClusterClass topology (" + ClusterApi.TOPOLOGY_OWNED_LABEL
                    + "), which would revert Nightshift's changes: manage the pool with a MachineDeployment of its own");
        }
        if (annotation(md, ClusterApi.AUTOSCALER_MIN_ANNOTATION) != null || annotation(md, ClusterApi.AUTOSCALER_MAX_ANNOTATION) != null) {
            return new Backing.Refused(name + " is scaled by the cluster autoscaler (" + ClusterApi.AUTOSCALER_MIN_ANNOTATION
                    + "/-max-size), which would also change its replicas: remove those annotations for Nightshift to manage it");
        }
        Optional<MachineTemplates.Ref> infrastructure = MachineTemplates.Ref.of(o.at("/spec/template/spec/infrastructureRef"));
        if (infrastructure.isEmpty()) {
            return new Backing.Refused(name + " names no spec.template.spec.infrastructureRef");
        }
        if (settings.mapping(infrastructure.get().kind()).isEmpty()) {
            return new Backing.Refused(name + " uses infrastructure template kind " + infrastructure.get().kind()
                    + ", which Nightshift has no mapping for: add one under provider.clusterApi.infrastructure");
        }
        return new Backing.Found(md);
    }

    @Override
    public Optional<String> refusal(String pool) {
        return backing(pool) instanceof Backing.Refused r ? Optional.of(r.reason()) : Optional.empty();
    }

    private GenericKubernetesResource found(String pool) {
        Backing b = backing(pool);
        if (b instanceof Backing.Refused r) {
            throw new IllegalStateException(pool + ": " + r.reason());
        }
        return ((Backing.Found) b).md();
    }

    // ---- what the pool has ----------------------------------------------------------------------

    /** The MachineDeployment's MachineSets, in the order in which Cluster API shrinks them. */
    private MachineSets setsOf(GenericKubernetesResource md) {
        String name = md.getMetadata().getName();
        return MachineSets.of(md, sets.getStore().list().stream().filter(ms -> name.equals(label(ms, ClusterApi.DEPLOYMENT_NAME_LABEL)))
                .toList());
    }

    private List<GenericKubernetesResource> machinesOf(GenericKubernetesResource md) {
        String name = md.getMetadata().getName();
        return machines.getStore().list().stream().filter(m -> name.equals(label(m, ClusterApi.DEPLOYMENT_NAME_LABEL)))
                .sorted(Comparator.comparing((GenericKubernetesResource m) -> m.getMetadata().getCreationTimestamp())
                        .thenComparing(m -> m.getMetadata().getName()))
                .toList();
    }

    /** The pool's machines as Cluster API has them, with the surge pairing worked out, and placeholders for surge asked and not created. */
    private record Pool(GenericKubernetesResource md, MachineSets sets, List<GenericKubernetesResource> machines,
                        SurgeRequests requests, int desiredReplicas, Map<String, String> pairing) {

        Optional<GenericKubernetesResource> machineOf(String nodeOrMachine) {
            return machines.stream().filter(m -> nodeOrMachine.equals(nodeName(m).orElse(null))).findFirst()
                    .or(() -> machines.stream().filter(m -> m.getMetadata().getName().equals(nodeOrMachine)).findFirst());
        }
    }

    private Pool pool(GenericKubernetesResource md) {
        MachineSets mdSets = setsOf(md);
        List<GenericKubernetesResource> mdMachines = machinesOf(md);
        SurgeRequests requests = SurgeRequests.read(annotation(md, SurgeRequests.ANNOTATION));
        int replicas = JSON.valueToTree(md).at("/spec/replicas").asInt(0);
        // Nightshift writes replicas and requests together: with no request in flight, replicas is the
        // pool's size, even when someone scaled the MachineDeployment since the last surge. The recorded
        // size is read only while surge is in flight; reading it then would shrink a resized pool undrained.
        int desired = requests.size() == 0 ? replicas
                : Optional.ofNullable(annotation(md, SurgeRequests.DESIRED_REPLICAS)).map(Integer::parseInt)
                        .orElse(replicas - requests.size());
        return new Pool(md, mdSets, mdMachines, requests, desired, pairing(mdSets, mdMachines, requests, desired, leaving(md)));
    }

    /**
     * Which Machine stands in for which old node: those annotated {@code surge-for}, then, for
     * requests not answered yet, the oldest unannotated Machines of the current MachineSet (the
     * one new Machines go to) created after the request, as many as the pool has machines beyond
     * its desired size. Worked out the same way by every agent, so a restarted one pairs as its
     * predecessor did.
     */
    private static Map<String, String> pairing(MachineSets sets, List<GenericKubernetesResource> machines,
                                               SurgeRequests requests, int desired, Set<String> lowered) {
        Map<String, String> byMachine = new LinkedHashMap<>();
        List<GenericKubernetesResource> alive = machines.stream().filter(m -> m.getMetadata().getDeletionTimestamp() == null).toList();
        for (GenericKubernetesResource m : alive) {
            String partner = annotation(m, NodeMarks.SURGE_FOR);
            if (partner != null && requests.partners().containsKey(partner)) {
                byMachine.put(m.getMetadata().getName(), partner);
            }
        }
        // A Machine being deleted holds its replica until it is gone (its replacement comes only then),
        // unless Nightshift lowered replicas to remove it (delete-machine): those are beyond the count, and so is a
        // Machine lowered for that is still alive. Counted in, it let a Machine Cluster API made to replace a lost one
        // answer a request as well, and the pool read one member short.
        long holdingReplicas = machines.stream().filter(m -> !lowered.contains(m.getMetadata().getName())
                && (m.getMetadata().getDeletionTimestamp() == null || annotation(m, ClusterApi.DELETE_MACHINE_ANNOTATION) == null)).count();
        long unaccounted = holdingReplicas - desired - byMachine.size();
        String current = sets.current().orElse(null);
        List<Map.Entry<String, Instant>> waiting = requests.partners().entrySet().stream()
                .filter(r -> !byMachine.containsValue(r.getKey()))
                .sorted(Map.Entry.<String, Instant>comparingByValue().thenComparing(Map.Entry.comparingByKey())).toList();
        for (Map.Entry<String, Instant> request : waiting) {
            if (unaccounted <= 0) {
                break;
            }
            Optional<GenericKubernetesResource> candidate = alive.stream()
                    .filter(m -> !byMachine.containsKey(m.getMetadata().getName()) && annotation(m, NodeMarks.SURGE_FOR) == null)
                    .filter(m -> Objects.equals(current, label(m, ClusterApi.SET_NAME_LABEL)))
                    // A partner (a current Machine a lost partner's stand-in was given to) never answers a request too.
                    .filter(m -> !requests.partners().containsKey(nodeName(m).orElse(m.getMetadata().getName()))
                            && !requests.partners().containsKey(m.getMetadata().getName()))
                    .filter(m -> !created(m).isBefore(request.getValue().minusSeconds(1)))
                    .findFirst();
            if (candidate.isEmpty()) {
                break;
            }
            byMachine.put(candidate.get().getMetadata().getName(), request.getKey());
            unaccounted--;
        }
        return byMachine;
    }

    /**
     * The hashes of Machines that carry none, where their MachineSet's other live Machines all carry the same ones.
     *
     * <p>A MachineSet's templates are immutable, so its Machines are all built alike: a Machine it makes after
     * adoption (to replace one a MachineHealthCheck deleted) is at the hashes its siblings were stamped with. Without
     * this, such a Machine arrives without hashes and is adopted at whatever spec Nightshift acts on by then — after
     * a new commit, an old-template Machine taken for current for good (ProviderModelIT seed 27 on cluster-api: the
     * replacement registered between the commit and the MachineDeployment's first patch).
     */
    private static Map<String, Map<String, String>> siblingHashes(Pool p) {
        Map<String, List<GenericKubernetesResource>> bySet = new HashMap<>();
        p.machines().stream().filter(m -> m.getMetadata().getDeletionTimestamp() == null)
                .forEach(m -> bySet.computeIfAbsent(label(m, ClusterApi.SET_NAME_LABEL), k -> new ArrayList<>()).add(m));
        Map<String, Map<String, String>> inferred = new HashMap<>();
        for (List<GenericKubernetesResource> set : bySet.values()) {
            List<Map<String, String>> stamped = set.stream().map(ClusterApiMachineProvider::annotations)
                    .filter(a -> NodeMarks.rollHash(a).isPresent()).toList();
            if (stamped.stream().anyMatch(a -> NodeMarks.kubeletHash(a).isEmpty())) {
                continue;
            }
            List<Map<String, String>> hashes = stamped.stream().map(a -> NodeMarks.hashes(NodeMarks.rollHash(a).orElseThrow(),
                    NodeMarks.kubeletHash(a).orElseThrow())).distinct().toList();
            if (hashes.size() != 1) {
                continue;
            }
            for (GenericKubernetesResource m : set) {
                if (NodeMarks.rollHash(annotations(m)).isEmpty()) {
                    Map<String, String> a = new HashMap<>(annotations(m));
                    a.putAll(hashes.get(0));
                    inferred.put(m.getMetadata().getName(), a);
                }
            }
        }
        return inferred;
    }

    /** Which Machines' roll hashes to believe, from the MachineDeployment read afresh when the cached one may be older than a Machine. */
    private TemplateHashes templateHashes(Pool p) {
        TemplateHashes cached = TemplateHashes.of(p.md(), p.sets());
        boolean unsure = p.machines().stream().anyMatch(m -> NodeMarks.rollHash(annotations(m))
                .filter(h -> cached.unsure(h, label(m, ClusterApi.SET_NAME_LABEL))).isPresent());
        if (!unsure) {
            return cached;
        }
        GenericKubernetesResource fresh = client.genericKubernetesResources(ClusterApi.MACHINE_DEPLOYMENTS)
                .inNamespace(settings.namespace()).withName(p.md().getMetadata().getName()).get();
        return fresh == null ? cached : TemplateHashes.of(fresh, p.sets());
    }

    @Override
    public List<Machine> machines(String pool) {
        if (!(backing(pool) instanceof Backing.Found f)) {
            return List.of();
        }
        Pool p = pool(f.md());
        TemplateHashes believed = templateHashes(p);
        Map<String, Map<String, String>> inferred = siblingHashes(p);
        Map<String, String> given = givenPartners(p);
        Set<String> leaving = leavingMembers(p, given);
        List<Machine> result = new ArrayList<>();
        for (GenericKubernetesResource m : p.machines()) {
            Map<String, String> a = inferred.getOrDefault(m.getMetadata().getName(), annotations(m));
            Optional<String> node = nodeName(m);
            result.add(new Machine(m.getMetadata().getName(), pool, created(m),
                    NodeMarks.rollHash(a).map(h -> believed.rollHashOf(h, label(m, ClusterApi.SET_NAME_LABEL))).orElse(null),
                    NodeMarks.kubeletHash(a).orElse(null),
                    standsInFor(p, m, given),
                    node.isPresent(), node, m.getMetadata().getDeletionTimestamp() != null, healthCheckFailed(m),
                    p.sets().rank(label(m, ClusterApi.SET_NAME_LABEL)), leaving.contains(m.getMetadata().getName())));
        }
        // Asked for and not created yet: they count as surge in flight, so the planner does not ask again.
        Set<String> answered = new HashSet<>(p.pairing().values());
        p.requests().partners().forEach((partner, at) -> {
            if (!answered.contains(partner)) {
                String standsInFor = given.getOrDefault(partner, partner);
                result.add(new Machine(f.md().getMetadata().getName() + REQUESTED + standsInFor, pool, at, null, null,
                        Optional.of(standsInFor), false, Optional.empty(), false, false, p.sets().inRemovalOrder().size()));
            }
        });
        // An OnDelete MachineDeployment replaces a deleted Machine only once it is gone (its MachineSet
        // counts it until then), which may take minutes. Until the replacement exists, it is reported as
        // a machine asked for and not up, as a scaling group's would be: otherwise the pool looks one
        // machine short with every machine available, and the planner disrupts the next one.
        // A Machine Nightshift lowered replicas for is out of the replicas while it is still alive: counted in, it would
        // hide a replacement owed for a Machine deleted meanwhile (long-profile seed 169: the pool looked one Machine
        // short, every Machine counted available, and the guard let one more node go below count - maxUnavailable).
        Set<String> lowered = leaving(f.md());
        long alive = p.machines().stream().filter(m -> m.getMetadata().getDeletionTimestamp() == null
                && !lowered.contains(m.getMetadata().getName())).count();
        long surgeWaiting = p.requests().partners().keySet().stream().filter(partner -> !answered.contains(partner)).count();
        // Or as the MachineSets have it: after a lowering Nightshift made, the MachineDeployment's replicas count the
        // lowered Machine out while it is still alive, and a replacement a MachineSet is already making (its replicas
        // raised, the Machine not seen yet: another watch) would be missed. Long-profile seed 57 surged beside it, one
        // Machine beyond count + maxSurge for 138 ms.
        long owed = Math.max(JSON.valueToTree(f.md()).at("/spec/replicas").asLong(0) - alive - surgeWaiting,
                p.sets().pendingCreations(p.machines(), ClusterApi.SET_NAME_LABEL) - surgeWaiting);
        Map<String, String> template = new HashMap<>();
        JSON.valueToTree(f.md()).at("/spec/template/metadata/annotations").fields()
                .forEachRemaining(e -> template.put(e.getKey(), e.getValue().asText()));
        for (long i = 1; i <= owed; i++) {
            result.add(new Machine(f.md().getMetadata().getName() + OWED + i, pool, clock.instant(), NodeMarks.rollHash(template).orElse(null),
                    NodeMarks.kubeletHash(template).orElse(null), Optional.empty(), false, Optional.empty(), false, false,
                    p.sets().inRemovalOrder().size()));
        }
        return result;
    }

    // ---- changes --------------------------------------------------------------------------------

    @Override
    public void create(DesiredPool target, String surgeFor) {
        if (surgeFor == null || surgeFor.isEmpty()) {
            throw new IllegalArgumentException("the cluster-api provider creates machines only to stand in for another");
        }
        GenericKubernetesResource md = found(target.name());
        Pool p = pool(md);
        SurgeRequests requests = p.requests().with(surgeFor, clock.instant());
        ObjectNode patch = templatePatch(md, target);
        int replicas = p.desiredReplicas() + requests.size();
        if (patch.isEmpty() && requests.equals(p.requests()) && Integer.toString(p.desiredReplicas()).equals(
                annotation(md, SurgeRequests.DESIRED_REPLICAS)) && JSON.valueToTree(md).at("/spec/replicas").asInt(-1) == replicas) {
            // Asked already: a write would change nothing but the resourceVersion other writers go by.
            return;
        }
        ObjectNode annotations = ((ObjectNode) patch.with("metadata")).putObject("annotations");
        annotations.put(SurgeRequests.DESIRED_REPLICAS, Integer.toString(p.desiredReplicas()));
        annotations.put(SurgeRequests.ANNOTATION, requests.write());
        annotations.put(LEAVING, leavingAfter(p));
        ((ObjectNode) patch.with("spec")).put("replicas", replicas);
        patchDeployment(md, patch);
        LOG.info("MachineDeployment {}: replicas {} (desired {} + {} surge), a machine to stand in for {}", md.getMetadata().getName(),
                replicas, p.desiredReplicas(), requests.size(), surgeFor);
        deleteStranded(p, replicas);
    }

    /**
     * Deletes outright the drained Machines Nightshift lowered replicas for that Cluster API will not remove any more: a
     * new stand-in raised the replicas again before Cluster API acted on the lowering (issue 24 case 1), or an agent
     * stopped between the two writes. Cluster API then has nothing to do (every MachineSet holds its replicas, and they
     * add up to the MachineDeployment's), and the marked Machine would stay for good. Deleted, it leaves by the OnDelete
     * path, and its replacement at the current template is the new stand-in; {@code spec.replicas} — the pool's size plus
     * the surge asked for, in absolute terms — is not touched.
     *
     * <p>Only Machines named in the MachineDeployment's {@value #LEAVING} annotation, written in the same patch as the
     * lowering, are considered: so the cached MachineDeployment is known to include the lowering, and a stale cache
     * cannot make Nightshift delete a Machine Cluster API is about to remove as well (two removals for one lowered replica
     * would take an undrained Machine). Safe if Cluster API acted on the lowering meanwhile: a MachineSet removes a
     * Machine being deleted first, so the two removals are the same one.
     */
    private void deleteStranded(Pool p, int replicas) {
        Set<String> leaving = leaving(p.md());
        if (!p.sets().atRest(replicas, p.machines(), ClusterApi.SET_NAME_LABEL)) {
            return;
        }
        for (GenericKubernetesResource m : p.machines()) {
            // Marked by Nightshift (both marks are written together) for a lowering that was never made: an agent stopped
            // between the two writes. At rest, nothing will remove it; the mark goes, and its partner's removal is asked
            // again in the usual way.
            if (!leaving.contains(m.getMetadata().getName()) && m.getMetadata().getDeletionTimestamp() == null
                    && annotation(m, ClusterApi.DELETE_MACHINE_ANNOTATION) != null
                    && annotation(m, ClusterApi.EXCLUDE_NODE_DRAINING_ANNOTATION) != null) {
                HashMap<String, String> unmark = new HashMap<>();
                unmark.put(ClusterApi.DELETE_MACHINE_ANNOTATION, null);
                annotateMachine(m.getMetadata().getName(), unmark);
                LOG.info("MachineDeployment {}: machine {} was marked to leave for a lowering never made; the mark is removed",
                        p.md().getMetadata().getName(), m.getMetadata().getName());
            }
        }
        if (leaving.isEmpty()) {
            return;
        }
        for (GenericKubernetesResource m : p.machines()) {
            if (leaving.contains(m.getMetadata().getName()) && m.getMetadata().getDeletionTimestamp() == null
                    && annotation(m, ClusterApi.DELETE_MACHINE_ANNOTATION) != null) {
                machineResource(m.getMetadata().getName()).delete();
                LOG.info("MachineDeployment {}: deleted machine {} (drained, marked to leave) outright: Cluster API, with every "
                        + "MachineSet at its replicas, will not remove it", p.md().getMetadata().getName(), m.getMetadata().getName());
            }
        }
    }

    /** The Machines Nightshift lowered replicas for, as the MachineDeployment records them. */
    private static Set<String> leaving(GenericKubernetesResource md) {
        String text = annotation(md, LEAVING);
        Set<String> names = new java.util.TreeSet<>();
        if (text != null && !text.isBlank()) {
            for (String name : text.split(",")) {
                if (!name.isBlank()) {
                    names.add(name.trim());
                }
            }
        }
        return names;
    }

    /** {@code md}'s leaving Machines that still exist, plus {@code added}: what the next patch of the MachineDeployment records. */
    private static String leavingAfter(Pool p, String... added) {
        Set<String> names = new java.util.TreeSet<>(leaving(p.md()));
        names.removeIf(name -> p.machines().stream().noneMatch(m -> m.getMetadata().getName().equals(name)));
        names.addAll(List.of(added));
        return String.join(",", names);
    }

    @Override
    public Deletion delete(DesiredPool target, String name, boolean replace) {
        GenericKubernetesResource md = found(target.name());
        Pool p = pool(md);
        Optional<GenericKubernetesResource> found = p.machineOf(name);
        if (found.isEmpty()) {
            if (name.startsWith(md.getMetadata().getName() + REQUESTED)) {
                // Lowering replicas now would let Cluster API remove any machine of the oldest MachineSet.
                return Deletion.deferred("the machine asked of " + md.getMetadata().getName() + " for "
                        + name.substring((md.getMetadata().getName() + REQUESTED).length()) + " is not created yet");
            }
            if (name.startsWith(md.getMetadata().getName() + OWED)) {
                return Deletion.deferred("Cluster API creates the replacement " + name + " once the Machine it replaces is gone");
            }
            return Deletion.started("machine of " + name + " is already gone");
        }
        GenericKubernetesResource machine = found.get();
        String machineName = machine.getMetadata().getName();
        if (machine.getMetadata().getDeletionTimestamp() != null) {
            return Deletion.started("machine " + machineName + " is already being deleted");
        }
        // Given a lost partner's stand-in and not written down yet (settle writes it): it leaves as a partner all the same.
        Map<String, String> given = givenPartners(p);
        boolean partnerLeaving = !replace && (p.requests().partners().containsKey(name) || given.containsValue(name));
        if (!partnerLeaving && annotation(machine, ClusterApi.DELETE_MACHINE_ANNOTATION) != null) {
            // Its replicas were lowered for it: its MachineSet removes it; deleting it as well would be a second removal.
            return Deletion.started("machine " + machineName + " of " + name + " is already leaving its MachineSet");
        }
        String set = label(machine, ClusterApi.SET_NAME_LABEL);
        List<GenericKubernetesResource> sameSet = p.machines().stream().filter(m -> Objects.equals(set, label(m, ClusterApi.SET_NAME_LABEL))
                && !m.getMetadata().getName().equals(machineName)).toList();
        if (!partnerLeaving) {
            // A MachineSet shrinking for a lowered replica removes a Machine being deleted before the one
            // marked delete-machine (upstream's deletion priority): deleting another Machine of it now would
            // be counted as that removal, and the marked, drained Machine would stay.
            Optional<GenericKubernetesResource> leaving = sameSet.stream().filter(m -> m.getMetadata().getDeletionTimestamp() == null
                    && annotation(m, ClusterApi.DELETE_MACHINE_ANNOTATION) != null).findFirst();
            if (leaving.isPresent()) {
                return Deletion.deferred("MachineSet " + set + " is removing machine " + leaving.get().getMetadata().getName()
                        + " for a lowered replica; deleting " + machineName + " now would be counted instead");
            }
            // Planned from a cache: the Machine may have joined since (its nodeRef set, its node Ready). Read it now, so
            // that a node that can take pods is drained first, never deleted with them (the executor's own check only
            // knows the node's name when the cache did).
            GenericKubernetesResource fresh = machineResource(machineName).get();
            if (fresh == null) {
                return Deletion.deferred("machine " + machineName + " of " + name + " is gone already; planned again from what is left");
            }
            Optional<String> joined = joined(fresh);
            if (joined.isPresent()) {
                return Deletion.deferred("machine " + machineName + " joined as node " + joined.get()
                        + ", Ready and schedulable: it is drained first");
            }
            // Whatever Cluster API makes for the replicas the MachineDeployment keeps must be at the pool's desired
            // template: the replacement asked for, and with replace=false the Machine a surge still asked for brings back.
            // Left at an older template (a second change mid-rollout), the current MachineSet would make an outdated
            // Machine for each one deleted, for ever (ProviderCrashModelIT seed 16: a loop of minutes).
            ObjectNode patch = templatePatch(md, target);
            if (patch.size() > 0) {
                patchDeployment(md, patch);
            }
            // Deleted as read above, or not at all: its node may join between the read and the delete (ProviderModelIT
            // seed 23 under load: nodeRef set 13 ms before the DELETE). Both writes carry the resourceVersion read, so
            // a Machine that changed meanwhile is refused (409) and planned again from what it is now.
            try {
                GenericKubernetesResource annotated = annotateMachine(machineName, fresh.getMetadata().getResourceVersion(),
                        Map.of(ClusterApi.EXCLUDE_NODE_DRAINING_ANNOTATION, "true"));
                machineResource(machineName).lockResourceVersion(annotated.getMetadata().getResourceVersion()).delete();
            } catch (KubernetesClientException changed) {
                if (changed.getCode() != java.net.HttpURLConnection.HTTP_CONFLICT) {
                    throw changed;
                }
                return Deletion.deferred("machine " + machineName + " changed while it was being deleted (its node may have joined); "
                        + "it is planned again from what it is now");
            }
            return Deletion.started("deleted machine " + machineName + " of " + name
                    + (replace ? "; Cluster API creates its replacement" : ""));
        }
        Optional<GenericKubernetesResource> deleting = sameSet.stream().filter(m -> m.getMetadata().getDeletionTimestamp() != null).findFirst();
        if (deleting.isPresent()) {
            // Lowered now, the MachineSet would count the Machine being deleted as the one to remove.
            return Deletion.deferred("machine " + deleting.get().getMetadata().getName() + " of MachineSet " + set
                    + " is being deleted; replicas are lowered for " + machineName + " once it is gone");
        }
        Optional<String> moving = p.sets().movingReplicas(JSON.valueToTree(md).at("/spec/replicas").asInt(0), p.machines(),
                ClusterApi.SET_NAME_LABEL);
        if (moving.isPresent()) {
            return Deletion.deferred("Cluster API is still moving replicas (" + moving.get() + "); replicas are lowered for "
                    + machineName + " once it is done");
        }
        Optional<GenericKubernetesResource> shrinksFirst = p.sets().shrinksFirst();
        if (shrinksFirst.isEmpty() || !shrinksFirst.get().getMetadata().getName().equals(set)) {
            return Deletion.deferred("machine " + machineName + " is in MachineSet " + set + ", and Cluster API removes machines of "
                    + shrinksFirst.map(ms -> ms.getMetadata().getName()).orElse("the oldest old MachineSet") + " first");
        }
        // One removal at a time per MachineSet: with another live Machine of it marked (a lowering Cluster API has not
        // acted on yet), it may remove either marked Machine for that lowering. Should this one's lowering then fail, or
        // not be made, the other would stay marked and live, and the pool end a Machine larger (ProviderModelIT under
        // load: a lowering's patch refused with 409 after its mark, and Cluster API took the wrong marked Machine).
        Optional<GenericKubernetesResource> marked = sameSet.stream().filter(m -> m.getMetadata().getDeletionTimestamp() == null
                && annotation(m, ClusterApi.DELETE_MACHINE_ANNOTATION) != null).findFirst();
        if (marked.isPresent()) {
            return Deletion.deferred("MachineSet " + set + " has machine " + marked.get().getMetadata().getName()
                    + " marked to leave for a lowered replica; replicas are lowered for " + machineName + " once it is gone");
        }
        // Marked first: once replicas are lowered, the MachineSet removes the marked machine, and nothing undrained.
        annotateMachine(machineName, Map.of(ClusterApi.DELETE_MACHINE_ANNOTATION, "true",
                ClusterApi.EXCLUDE_NODE_DRAINING_ANNOTATION, "true"));
        SurgeRequests requests = p.requests().without(name);
        for (Map.Entry<String, String> e : given.entrySet()) {
            if (e.getValue().equals(name)) {
                requests = requests.without(e.getKey());
            }
        }
        ObjectNode patch = JSON.createObjectNode();
        ObjectNode annotations = patch.putObject("metadata").putObject("annotations");
        annotations.put(SurgeRequests.DESIRED_REPLICAS, Integer.toString(p.desiredReplicas()));
        annotations.put(SurgeRequests.ANNOTATION, requests.write());
        annotations.put(LEAVING, leavingAfter(p, machineName));
        patch.putObject("spec").put("replicas", p.desiredReplicas() + requests.size());
        try {
            patchDeployment(md, patch);
        } catch (RuntimeException refused) {
            // Not lowered (a concurrent change, 409): the mark goes, so that no later lowering removes this Machine
            // instead of the one it is for. (A crash between the two writes leaves the mark; the check above then waits.)
            HashMap<String, String> unmark = new HashMap<>();
            unmark.put(ClusterApi.DELETE_MACHINE_ANNOTATION, null);
            annotateMachine(machineName, unmark);
            throw refused;
        }
        return Deletion.started("lowered " + md.getMetadata().getName() + "'s replicas to " + (p.desiredReplicas() + requests.size())
                + ": Cluster API removes machine " + machineName + " of " + name + ", whose stand-in runs");
    }

    @Override
    public void stamp(String pool, String name, StampedHash rollHash, StampedHash kubeletHash) {
        GenericKubernetesResource md = found(pool);
        pool(md).machineOf(name).ifPresent(m -> annotateMachine(m.getMetadata().getName(), NodeMarks.hashes(rollHash, kubeletHash)));
    }

    /** A registered node stamped: its Machine carries the hashes too, for its siblings to come (siblingHashes, recordAdoptedHashes). */
    @Override
    public void stamped(String pool, String node, StampedHash rollHash, StampedHash kubeletHash) {
        stamp(pool, node, rollHash, kubeletHash);
    }

    /** While its node is updated, the Machine carries {@code skip-remediation}: MachineHealthCheck leaves a rebooting machine alone. */
    @Override
    public void nodeUpdating(String poolName, String node, boolean updating) {
        if (!(backing(poolName) instanceof Backing.Found f)) {
            return;
        }
        pool(f.md()).machineOf(node).filter(m -> (annotation(m, ClusterApi.SKIP_REMEDIATION_ANNOTATION) != null) != updating)
                .ifPresent(m -> {
                    java.util.HashMap<String, String> change = new java.util.HashMap<>();
                    change.put(ClusterApi.SKIP_REMEDIATION_ANNOTATION, updating ? "" : null);
                    annotateMachine(m.getMetadata().getName(), change);
                });
    }

    @Override
    public void settle(String poolName) {
        if (!(backing(poolName) instanceof Backing.Found f)) {
            return;
        }
        Pool p = pool(f.md());
        p.pairing().forEach((machine, partner) -> {
            GenericKubernetesResource m = p.machines().stream().filter(x -> x.getMetadata().getName().equals(machine)).findFirst().orElseThrow();
            if (!partner.equals(annotation(m, NodeMarks.SURGE_FOR))) {
                annotateMachine(machine, Map.of(NodeMarks.SURGE_FOR, partner));
            }
        });
        forgetVanishedPartners(p);
        deleteStranded(p, JSON.valueToTree(p.md()).at("/spec/replicas").asInt(0));
        // Written down, so that the hashes outlive the siblings they were read from.
        siblingHashes(p).forEach((machine, annotations) -> {
            annotateMachine(machine, NodeMarks.hashes(NodeMarks.rollHash(annotations).orElseThrow(),
                    NodeMarks.kubeletHash(annotations).orElseThrow()));
            LOG.info("machine {} of pool {} carries the hashes of its MachineSet's other Machines", machine, poolName);
        });
        recordAdoptedHashes(p);
        collectTemplates(p);
    }

    /**
     * A pool adopted on the user's own template: the hashes its Machines were stamped with go onto the
     * MachineDeployment's template too, once every live Machine of that template carries the same ones.
     *
     * <p>Otherwise a Machine the MachineSet makes later (after a MachineHealthCheck deleted one) comes without
     * hashes, and a Machine without hashes is adopted at the spec Nightshift is acting on then: after a new
     * commit, an old-template Machine taken for current and never replaced (ProviderModelIT seed 27 on
     * cluster-api: a lost Machine's replacement registered the instant before the rollout's first patch). Only
     * template metadata changes, which Cluster API copies to the MachineSets and Machines in place: no rollout.
     */
    private void recordAdoptedHashes(Pool p) {
        JsonNode md = JSON.valueToTree(p.md());
        Map<String, String> template = new HashMap<>();
        md.at("/spec/template/metadata/annotations").fields().forEachRemaining(e -> template.put(e.getKey(), e.getValue().asText()));
        if (NodeMarks.rollHash(template).isPresent()) {
            return;
        }
        String infrastructure = md.at("/spec/template/spec/infrastructureRef/name").asText("");
        Set<String> setsOfTemplate = new HashSet<>();
        for (GenericKubernetesResource ms : p.sets().inRemovalOrder()) {
            if (infrastructure.equals(JSON.valueToTree(ms).at("/spec/template/spec/infrastructureRef/name").asText(""))) {
                setsOfTemplate.add(ms.getMetadata().getName());
            }
        }
        List<Map<String, String>> stamped = p.machines().stream().filter(m -> m.getMetadata().getDeletionTimestamp() == null)
                .filter(m -> setsOfTemplate.contains(label(m, ClusterApi.SET_NAME_LABEL))).map(ClusterApiMachineProvider::annotations).toList();
        Set<Optional<StampedHash>> rolls = stamped.stream().map(NodeMarks::rollHash).collect(Collectors.toSet());
        Set<Optional<StampedHash>> kubelets = stamped.stream().map(NodeMarks::kubeletHash).collect(Collectors.toSet());
        if (stamped.isEmpty() || rolls.size() != 1 || kubelets.size() != 1 || rolls.contains(Optional.empty())
                || kubelets.contains(Optional.empty())) {
            return;
        }
        StampedHash roll = rolls.iterator().next().orElseThrow();
        StampedHash kubelet = kubelets.iterator().next().orElseThrow();
        ObjectNode patch = JSON.createObjectNode();
        ObjectNode annotations = ((ObjectNode) patch.putObject("spec").putObject("template").putObject("metadata")).putObject("annotations");
        NodeMarks.hashes(roll, kubelet).forEach(annotations::put);
        try {
            patchDeployment(p.md(), patch);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            // Our copy of the MachineDeployment is behind (this very patch, seen late?): decided again at the next settle.
            LOG.debug("MachineDeployment {} changed since it was read; its adopted hashes are recorded at the next settle",
                    p.md().getMetadata().getName());
            return;
        }
        LOG.info("MachineDeployment {}: the hashes its Machines were adopted at are on its template now, so that Machines it makes later carry them",
                p.md().getMetadata().getName());
    }

    /**
     * A partner whose Machine went without Nightshift lowering replicas (a MachineHealthCheck or a
     * person deleted it) leaves its request behind, and Cluster API replaces the Machine at the
     * current template: with the stand-in, the pool has one Machine more than its size. So the
     * stand-in is given to another partner — an outdated Machine of the MachineSet that shrinks
     * first, not a partner or a stand-in already — with its request's time, and that one is drained
     * and leaves by a lowering as any partner does: the pool keeps its size (seeds 12 and 38 of the
     * long profile ended one Machine larger when the stand-in became a member). {@code spec.replicas}
     * never changes here: lowering it would let Cluster API remove an undrained Machine of the oldest
     * MachineSet.
     *
     * <p>Where no outdated Machine is free (every one has a stand-in: {@code maxSurge} as large as the
     * pool), the stand-in is given to a registered Machine of the current MachineSet that stands in for
     * no one (Cluster API's replacement of the lost one, once it joined), reported {@linkplain
     * Machine#leaving leaving}: drained, it leaves by a lowering once the old MachineSets are empty
     * (only then does the current one shrink first), and the pool ends at its size (long-profile seed
     * 36 ended one larger). Until such a Machine joined, nothing is written: the request keeps
     * {@code spec.replicas} at the pool's size plus the surge, so Cluster API's replacement comes.
     *
     * <p>Where the stand-in is outdated itself (a second change), it stays as a member and the pool's
     * recorded size grows by one, said in a warning: a larger pool, never an undrained removal.
     */
    private void forgetVanishedPartners(Pool p) {
        List<String> vanished = vanishedPartners(p);
        if (vanished.isEmpty()) {
            return;
        }
        Map<String, String> given = givenPartners(p);
        Map<String, String> standInOf = new HashMap<>();
        p.pairing().forEach((machine, partner) -> standInOf.put(partner, machine));
        SurgeRequests requests = p.requests();
        List<String> kept = new ArrayList<>();
        for (String partner : vanished) {
            Instant asked = requests.partners().get(partner);
            if (given.containsKey(partner)) {
                requests = requests.without(partner).with(given.get(partner), asked);
            } else if (!standInCurrent(p, standInOf.get(partner))) {
                requests = requests.without(partner);
                kept.add(partner);
            }
        }
        if (given.isEmpty() && kept.isEmpty()) {
            LOG.debug("MachineDeployment {}: the Machines of {} went without Nightshift; their stand-ins wait for a Machine to stand in for",
                    p.md().getMetadata().getName(), vanished);
            return;
        }
        ObjectNode patch = JSON.createObjectNode();
        ObjectNode annotations = patch.putObject("metadata").putObject("annotations");
        annotations.put(SurgeRequests.DESIRED_REPLICAS, Integer.toString(p.desiredReplicas() + kept.size()));
        annotations.put(SurgeRequests.ANNOTATION, requests.write());
        patchDeployment(p.md(), patch);
        // After the request: a crash between the two writes leaves the stand-in paired with nothing (its surge-for names
        // no request), and the pairing gives the request to an unannotated Machine of the current MachineSet made after
        // it, such as Cluster API's replacement of the lost one: the pool's size holds either way.
        given.forEach((partner, next) -> {
            String standIn = standInOf.get(partner);
            if (standIn != null) {
                annotateMachine(standIn, Map.of(NodeMarks.SURGE_FOR, next));
            }
            LOG.warn("MachineDeployment {}: the Machine of {} went without Nightshift; {} stands in for {} now, which leaves in its place",
                    p.md().getMetadata().getName(), partner, standIn == null ? "the surge machine asked for it" : "machine " + standIn, next);
        });
        if (!kept.isEmpty()) {
            LOG.warn("MachineDeployment {}: the Machines of {} went without Nightshift and no outdated Machine is left to stand in for;"
                    + " their stand-ins stay as members, the pool is now {}", p.md().getMetadata().getName(), kept,
                    p.desiredReplicas() + kept.size());
        }
    }

    private static List<String> vanishedPartners(Pool p) {
        return p.requests().partners().keySet().stream().filter(partner -> p.machineOf(partner).isEmpty()).toList();
    }

    /**
     * Each vanished partner's new one, by the same rule for every reader (so that {@link #machines} reports a stand-in
     * with the partner {@link #settle} gives it, before and after the write): the vanished partners in name order get
     * the {@linkplain #newPartnerCandidates candidates} in order, while there are any, unless their stand-in is
     * outdated itself. Reported at once, the stand-in never counts as a member for a moment, which would make the pool
     * look one larger and let the planner surge beyond {@code count + maxSurge} next to Cluster API's replacement.
     */
    private static Map<String, String> givenPartners(Pool p) {
        List<String> vanished = vanishedPartners(p);
        if (vanished.isEmpty()) {
            return Map.of();
        }
        Map<String, String> standInOf = new HashMap<>();
        p.pairing().forEach((machine, partner) -> standInOf.put(partner, machine));
        java.util.Iterator<String> candidates = newPartnerCandidates(p).iterator();
        Map<String, String> given = new LinkedHashMap<>();
        for (String partner : vanished) {
            if (standInCurrent(p, standInOf.get(partner)) && candidates.hasNext()) {
                given.put(partner, candidates.next());
            }
        }
        return given;
    }

    /**
     * The old node {@code m} stands in for: its request's partner (or the one given in its place), else the partner its
     * own {@code surge-for} names while that partner's Machine still exists. A lowering takes the request away at once,
     * while the partner's Machine is still there until Cluster API removes it; reported by the request alone, the
     * stand-in read as a member in that while whenever its node's {@code surge-for} (the agent's own write moments
     * before) was not in the cache yet, and the planner surged beside it: one Machine beyond {@code count + maxSurge}
     * (long-profile seed 93 on cluster-api).
     */
    private static Optional<String> standsInFor(Pool p, GenericKubernetesResource m, Map<String, String> given) {
        return Optional.ofNullable(p.pairing().get(m.getMetadata().getName())).map(partner -> given.getOrDefault(partner, partner))
                .or(() -> Optional.ofNullable(annotation(m, NodeMarks.SURGE_FOR)).filter(partner -> p.machineOf(partner).isPresent()));
    }

    /** The stand-in is of the current MachineSet, or not created yet (it will be): not outdated by a second change. */
    private static boolean standInCurrent(Pool p, String standIn) {
        String current = p.sets().current().orElse(null);
        return standIn == null || p.machines().stream().filter(m -> m.getMetadata().getName().equals(standIn))
                .anyMatch(m -> Objects.equals(current, label(m, ClusterApi.SET_NAME_LABEL)));
    }

    /**
     * The registered Machines of the current MachineSet that a stand-in of the current MachineSet stands in for (given,
     * or written down): at the desired spec, and one too many, so they are to leave drained ({@link Machine#leaving}).
     * A stand-in of an old MachineSet (a roll back) leaves instead, as any outdated surge machine does. And those
     * Nightshift lowered replicas for and Cluster API has not removed yet: their request is gone with the lowering, and
     * read as current again, their node would be uncordoned the moment before it goes.
     */
    private static Set<String> leavingMembers(Pool p, Map<String, String> given) {
        String current = p.sets().current().orElse(null);
        Set<String> lowered = leaving(p.md());
        Set<String> leaving = new HashSet<>();
        p.machines().stream().filter(m -> lowered.contains(m.getMetadata().getName()) && nodeName(m).isPresent()
                        && annotation(m, ClusterApi.DELETE_MACHINE_ANNOTATION) != null && Objects.equals(current, label(m, ClusterApi.SET_NAME_LABEL)))
                .forEach(m -> leaving.add(m.getMetadata().getName()));
        p.pairing().forEach((standIn, partner) -> {
            if (!standInCurrent(p, standIn)) {
                return;
            }
            p.machineOf(given.getOrDefault(partner, partner))
                    .filter(m -> nodeName(m).isPresent() && Objects.equals(current, label(m, ClusterApi.SET_NAME_LABEL)))
                    .ifPresent(m -> leaving.add(m.getMetadata().getName()));
        });
        return leaving;
    }

    /**
     * The Machines a stand-in whose partner vanished can be given to, by node (or Machine, before it joined) name: live
     * Machines not marked to leave, not a partner or a stand-in already. First those of an old MachineSet, in removal
     * order (only a Machine of the MachineSet that shrinks first can leave by a lowering), the registered ones first,
     * then by name; then the registered ones of the current MachineSet, oldest first (drained, they leave once the old
     * MachineSets are empty). One of the current MachineSet that has not joined is never given: it could not be drained,
     * and deleted before it joined, Cluster API would make another in its place.
     */
    private static List<String> newPartnerCandidates(Pool p) {
        String current = p.sets().current().orElse(null);
        if (current == null) {
            return List.of();
        }
        Set<String> standIns = p.pairing().keySet();
        List<GenericKubernetesResource> free = p.machines().stream()
                .filter(m -> m.getMetadata().getDeletionTimestamp() == null && annotation(m, ClusterApi.DELETE_MACHINE_ANNOTATION) == null)
                .filter(m -> !standIns.contains(m.getMetadata().getName()))
                .filter(m -> !p.requests().partners().containsKey(nodeName(m).orElse(m.getMetadata().getName()))
                        && !p.requests().partners().containsKey(m.getMetadata().getName()))
                .toList();
        Stream<String> old = free.stream().filter(m -> !current.equals(label(m, ClusterApi.SET_NAME_LABEL)))
                .sorted(Comparator.comparingInt((GenericKubernetesResource m) -> p.sets().rank(label(m, ClusterApi.SET_NAME_LABEL)))
                        .thenComparing(m -> nodeName(m).isEmpty()).thenComparing(m -> m.getMetadata().getName()))
                .map(m -> nodeName(m).orElse(m.getMetadata().getName()));
        Stream<String> members = free.stream().filter(m -> current.equals(label(m, ClusterApi.SET_NAME_LABEL)) && nodeName(m).isPresent())
                .sorted(Comparator.comparing(ClusterApiMachineProvider::created).thenComparing(m -> m.getMetadata().getName()))
                .map(m -> nodeName(m).orElseThrow());
        return Stream.concat(old, members).toList();
    }

    /** Deletes Nightshift's templates that neither the MachineDeployment nor a MachineSet with machines names. */
    private void collectTemplates(Pool p) {
        Set<MachineTemplates.Ref> inUse = new HashSet<>();
        Set<MachineTemplates.Ref> kinds = new HashSet<>();
        JsonNode md = JSON.valueToTree(p.md());
        refs(md).forEach(r -> {
            inUse.add(r);
            kinds.add(r.named(""));
        });
        for (GenericKubernetesResource ms : p.sets().inRemovalOrder()) {
            JsonNode o = JSON.valueToTree(ms);
            boolean used = o.at("/spec/replicas").asInt(0) > 0 || p.machines().stream()
                    .anyMatch(m -> ms.getMetadata().getName().equals(label(m, ClusterApi.SET_NAME_LABEL)));
            refs(o).forEach(r -> {
                kinds.add(r.named(""));
                if (used) {
                    inUse.add(r);
                }
            });
        }
        templates.collect(p.md().getMetadata().getName(), inUse, kinds);
    }

    private static List<MachineTemplates.Ref> refs(JsonNode o) {
        List<MachineTemplates.Ref> refs = new ArrayList<>();
        MachineTemplates.Ref.of(o.at("/spec/template/spec/infrastructureRef")).ifPresent(refs::add);
        MachineTemplates.Ref.of(o.at("/spec/template/spec/bootstrap/configRef")).ifPresent(refs::add);
        return refs;
    }

    /**
     * What must change in the MachineDeployment for new Machines to be at the pool's desired spec:
     * its templates, its Kubernetes version (with Cluster API's {@code v}; compared without it, as
     * the webhook adds it) and the hashes in its template metadata. Empty when nothing must.
     */
    private ObjectNode templatePatch(GenericKubernetesResource md, DesiredPool target) {
        JsonNode o = JSON.valueToTree(md);
        String name = md.getMetadata().getName();
        ObjectNode patch = JSON.createObjectNode();
        ObjectNode spec = JSON.createObjectNode();
        MachineTemplates.Ref infrastructure = MachineTemplates.Ref.of(o.at("/spec/template/spec/infrastructureRef")).orElseThrow();
        MachineTemplates.Ref wantedInfrastructure = templates.infrastructure(name, infrastructure, target);
        if (!wantedInfrastructure.equals(infrastructure)) {
            spec.set("infrastructureRef", wantedInfrastructure.json());
        }
        Optional<MachineTemplates.Ref> bootstrap = MachineTemplates.Ref.of(o.at("/spec/template/spec/bootstrap/configRef"));
        if (bootstrap.isPresent()) {
            MachineTemplates.Ref wanted = templates.bootstrap(name, bootstrap.get(), target);
            if (!wanted.equals(bootstrap.get())) {
                spec.putObject("bootstrap").set("configRef", wanted.json());
            }
        }
        String version = target.spec().fullVersion();
        if (!o.at("/spec/template/spec/version").asText("").replaceFirst("^v", "").equals(version)) {
            spec.put("version", "v" + version);
        }
        Map<String, String> hashes = NodeMarks.hashes(target.rollHash(), target.kubeletHash());
        JsonNode current = o.at("/spec/template/metadata/annotations");
        boolean hashesChanged = hashes.entrySet().stream().anyMatch(e -> !e.getValue().equals(current.path(e.getKey()).asText(null)));
        if (spec.size() > 0 || hashesChanged) {
            ObjectNode template = patch.putObject("spec").putObject("template");
            if (spec.size() > 0) {
                template.set("spec", spec);
            }
            ObjectNode annotations = template.putObject("metadata").putObject("annotations");
            hashes.forEach(annotations::put);
        }
        return patch;
    }

    /** One JSON merge patch carrying the resourceVersion it was computed from: a concurrent change makes it fail (409), never mix. */
    private void patchDeployment(GenericKubernetesResource md, ObjectNode patch) {
        ((ObjectNode) patch.with("metadata")).put("resourceVersion", md.getMetadata().getResourceVersion());
        client.genericKubernetesResources(ClusterApi.MACHINE_DEPLOYMENTS).inNamespace(settings.namespace())
                .withName(md.getMetadata().getName()).patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
    }

    /** The node {@code fresh} (a Machine just read from the API server) has, when that node can take pods. */
    private Optional<String> joined(GenericKubernetesResource fresh) {
        String node = JSON.valueToTree(fresh).at("/status/nodeRef/name").asText("");
        return !node.isEmpty() && SchedulableNodes.takesPods(client.nodes().withName(node).get()) ? Optional.of(node) : Optional.empty();
    }

    private GenericKubernetesResource annotateMachine(String machine, Map<String, String> annotations) {
        return annotateMachine(machine, null, annotations);
    }

    /** With {@code resourceVersion}, refused (409) when the Machine changed since it was read at that version. */
    private GenericKubernetesResource annotateMachine(String machine, String resourceVersion, Map<String, String> annotations) {
        ObjectNode patch = JSON.createObjectNode();
        ObjectNode metadata = patch.putObject("metadata");
        if (resourceVersion != null) {
            metadata.put("resourceVersion", resourceVersion);
        }
        ObjectNode a = metadata.putObject("annotations");
        annotations.forEach(a::put);
        return machineResource(machine).patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
    }

    private io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource> machineResource(String machine) {
        return client.genericKubernetesResources(ClusterApi.MACHINES).inNamespace(settings.namespace()).withName(machine);
    }

    // ---- reading objects ------------------------------------------------------------------------

    static Optional<String> nodeName(GenericKubernetesResource machine) {
        JsonNode name = JSON.valueToTree(machine).at("/status/nodeRef/name");
        return name.isMissingNode() || name.asText().isEmpty() ? Optional.empty() : Optional.of(name.asText());
    }

    /** MachineHealthCheck found it unhealthy: condition {@code HealthCheckSucceeded} is False (v1beta2 {@code status.conditions}). */
    private static boolean healthCheckFailed(GenericKubernetesResource machine) {
        for (JsonNode c : JSON.valueToTree(machine).at("/status/conditions")) {
            if ("HealthCheckSucceeded".equals(c.path("type").asText()) && "False".equals(c.path("status").asText())) {
                return true;
            }
        }
        return false;
    }

    private static Instant created(GenericKubernetesResource o) {
        return NodeMarks.instant(o.getMetadata().getCreationTimestamp()).orElse(Instant.EPOCH);
    }

    private static String label(GenericKubernetesResource o, String key) {
        return o.getMetadata().getLabels() == null ? null : o.getMetadata().getLabels().get(key);
    }

    private static String annotation(GenericKubernetesResource o, String key) {
        return o.getMetadata().getAnnotations() == null ? null : o.getMetadata().getAnnotations().get(key);
    }

    private static Map<String, String> annotations(GenericKubernetesResource o) {
        return o.getMetadata().getAnnotations() == null ? Map.of() : o.getMetadata().getAnnotations();
    }
}
