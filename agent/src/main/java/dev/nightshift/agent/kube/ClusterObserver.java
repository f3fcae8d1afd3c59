package dev.nightshift.agent.kube;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.function.Predicate;

import dev.nightshift.agent.eta.PoolDurations;
import dev.nightshift.agent.provider.Machine;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.agent.provider.ProviderCapabilities;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.NodeCondition;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/**
 * What the cluster looks like, read from informer caches (watches, no LIST in steady state):
 * the pools' nodes, the pods on them, and the pool status records, turned into the planner's
 * {@link ObservedCluster}. Machines the provider reports that never registered join as
 * unregistered nodes; a registered node's machine record supplies the hashes and surge partner the
 * node does not carry ({@link #withMachine}). Nightshift's marks on a node are read through
 * {@link NodeMarks}, the codec the executor writes them with.
 *
 * <p>Built for large clusters: every informer lists in pages of {@value #PAGE}; of each pod only a
 * {@link PodSummary} is kept; and only a change that can change a plan asks for a reconcile — a node
 * change that {@link NodeChanges#matter matters} (not a kubelet heartbeat), a pod change on a node
 * in flight (being drained or updated), a pool record's annotations. Each watch event is reported
 * to {@link WatchEvents} with what it caused.
 */
public final class ClusterObserver implements AutoCloseable {

    static final String CONTROL_PLANE_ROLE = "node-role.kubernetes.io/control-plane";
    /**
     * Items per page of an informer's LIST, as client-go's informers and kubectl ask: the first
     * list of a large cluster's pods never arrives, nor sits in memory, whole.
     */
    static final long PAGE = 500;
    /**
     * On an unreachable node (Ready Unknown) a pod whose deletionTimestamp (the end of its grace
     * period, set when it was evicted or deleted) is more than this in the past is gone: no kubelet
     * is left to confirm it. Cluster API's drain skips such pods the same way
     * ({@code SkipWaitForDeleteTimeoutSeconds}), so a dead node is not held for drainTimeout.
     */
    static final Duration UNREACHABLE_POD_GRACE = Duration.ofSeconds(5);

    /** The nodes informer's index of nodes by their pool label. */
    private static final String BY_POOL = "pool";
    private final MachineProvider provider;
    /** What only some providers have: listings kept across passes, change notifications, refusals. */
    private final ProviderCapabilities capabilities;
    private final Clock clock;
    private final Optional<String> nodeUpdatesNamespace;
    private final Runnable onChange;
    private final WatchEvents events;
    private final SharedIndexInformer<Node> nodes;
    private final SharedIndexInformer<Pod> pods;
    /** The pods informer's store: a summary per pod, by node. */
    private final PodStore podStore = new PodStore();
    private final SharedIndexInformer<ConfigMap> records;
    /** Control-plane nodes, where the cluster shows them (kubeadm, kops; not managed control planes). */
    private final SharedIndexInformer<Node> controlPlane;
    /** Nodes without the pool label: only their arrival matters (a machine's node registering). */
    private final SharedIndexInformer<Node> registrations;

    /** @param onChange called on every change that can change a plan: schedules a reconcile */
    public ClusterObserver(KubernetesClient client, String namespace, MachineProvider provider, Runnable onChange) {
        this(client, namespace, provider, onChange, Clock.systemUTC());
    }

    /**
     * @param onChange called on every change that can change a plan: schedules a reconcile
     * @param clock    to tell how long ago a pod's deletion started
     */
    public ClusterObserver(KubernetesClient client, String namespace, MachineProvider provider, Runnable onChange, Clock clock) {
        this(client, namespace, provider, onChange, clock, Optional.empty());
    }

    /**
     * @param nodeUpdatesNamespace where the node updater Jobs run ({@code nodeUpdates.type: job}): their
     *                             pods are never evicted and no drain waits for them
     */
    public ClusterObserver(KubernetesClient client, String namespace, MachineProvider provider, Runnable onChange, Clock clock,
                           Optional<String> nodeUpdatesNamespace) {
        this(client, namespace, provider, onChange, clock, nodeUpdatesNamespace, WatchEvents.NONE);
    }

    /** @param events told of every watch event and whether it asked for a reconcile */
    public ClusterObserver(KubernetesClient client, String namespace, MachineProvider provider, Runnable onChange, Clock clock,
                           Optional<String> nodeUpdatesNamespace, WatchEvents events) {
        this.nodeUpdatesNamespace = nodeUpdatesNamespace;
        this.provider = provider;
        this.capabilities = new ProviderCapabilities(provider);
        this.clock = clock;
        this.onChange = onChange;
        this.events = events;
        this.nodes = client.nodes().withLabel(NodeMarks.POOL).withLimit(PAGE).runnableInformer(0);
        nodes.addIndexers(Map.of(BY_POOL, n -> List.of(NodeMarks.labels(n).getOrDefault(NodeMarks.POOL, ""))));
        // No index by namespace: nothing looks pods up by it, and at 100,000 pods it is a set of every key.
        this.pods = client.pods().inAnyNamespace().withLimit(PAGE).runnableInformer(0).itemStore(podStore).removeNamespaceIndex();
        this.records = client.configMaps().inNamespace(namespace).withLabel(PoolStatusRecords.LABEL).withLimit(PAGE)
                .runnableInformer(0);
        this.controlPlane = client.nodes().withLabel(CONTROL_PLANE_ROLE).withLimit(PAGE).runnableInformer(0);
        nodes.addEventHandler(new Trigger<>(WatchEvents.Kind.NODE, n -> machineNews(n, true),
                (before, after) -> machineNews(after, NodeChanges.matter(before, after))));
        controlPlane.addEventHandler(new Trigger<>(WatchEvents.Kind.CONTROL_PLANE_NODE, n -> true, NodeChanges::matter));
        pods.addEventHandler(new Trigger<>(WatchEvents.Kind.POD, this::onNodeInFlight,
                (before, after) -> onNodeInFlight(before) || onNodeInFlight(after)));
        // The agent writes the records' data itself; only a change of their annotations (a user's
        // pause or resume) is news. Reacting to our own writes would loop.
        records.addEventHandler(new Trigger<>(WatchEvents.Kind.POOL_RECORD, r -> true,
                (before, after) -> !Objects.equals(before.getMetadata().getAnnotations(), after.getMetadata().getAnnotations())));
        // A node registering for a machine of a pool comes without the pool label (the agent writes it, with the
        // machine's hashes): its arrival must wake the agent, or it waits for the provider's next poll. Its
        // heartbeats are nobody's business here. (One an adapter registers already labelled arrives in the pool's
        // informer above: a change of the pool's nodes, so its machines are listed again.)
        this.registrations = client.nodes().withoutLabel(NodeMarks.POOL).withLimit(PAGE).runnableInformer(0);
        registrations.addEventHandler(new Trigger<>(WatchEvents.Kind.UNLABELLED_NODE, n -> {
            capabilities.nodeRegistered(n.getMetadata().getName());
            return true;
        }, (before, after) -> false));
    }

    /**
     * A pool's node that changed in a way that matters may be news of its machine (failed, deleted or
     * replaced outside the agent): the provider reads the pool's machines again at the next reconcile.
     */
    private boolean machineNews(Node node, boolean matters) {
        String pool = NodeMarks.labels(node).get(NodeMarks.POOL);
        if (matters && pool != null) {
            capabilities.nodeChanged(pool);
        }
        return matters;
    }

    /**
     * Asks for a reconcile for the events that can change a plan: an added or deleted object when
     * {@code present} says so, an update when {@code changed} does.
     */
    private final class Trigger<T> implements ResourceEventHandler<T> {
        private final WatchEvents.Kind kind;
        private final Predicate<T> present;
        private final BiPredicate<T, T> changed;

        Trigger(WatchEvents.Kind kind, Predicate<T> present, BiPredicate<T, T> changed) {
            this.kind = kind;
            this.present = present;
            this.changed = changed;
        }

        @Override
        public void onAdd(T obj) {
            fire(present.test(obj));
        }

        @Override
        public void onUpdate(T oldObj, T newObj) {
            fire(changed.test(oldObj, newObj));
        }

        @Override
        public void onDelete(T obj, boolean deletedFinalStateUnknown) {
            fire(present.test(obj));
        }

        private void fire(boolean reconcile) {
            events.seen(kind, reconcile);
            if (reconcile) {
                onChange.run();
            }
        }
    }

    /**
     * A pod whose change can change a plan: it is on a node in flight, whose drain waits for its
     * pods or whose update runs as a pod, or it is a node updater's pod. Pods elsewhere change
     * nothing the planner reads. A drain's first pass marks the node before it evicts; a pod event
     * seen before the mark reached the cache is followed by the mark's own node event, whose
     * reconcile reads the pod cache as it is by then.
     */
    private boolean onNodeInFlight(Pod pod) {
        if (nodeUpdatesNamespace.isPresent() && nodeUpdatesNamespace.get().equals(pod.getMetadata().getNamespace())) {
            return true;
        }
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        Node cached = node == null ? null : nodes.getStore().getByKey(node);
        return cached != null && NodeChanges.inFlight(cached);
    }

    /** Starts the watches and waits until the caches hold the cluster. */
    public void start() throws Exception {
        capabilities.start(onChange);
        nodes.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
        pods.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
        records.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
        controlPlane.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
        registrations.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    /** Every watch is up: the API answered and the caches follow it. */
    public boolean watching() {
        return nodes.isWatching() && pods.isWatching() && records.isWatching() && controlPlane.isWatching();
    }

    /**
     * Every node labelled {@value #CONTROL_PLANE_ROLE} is Ready. A cluster whose control plane runs
     * elsewhere shows none, and this holds; the API server's own readiness is checked apart.
     */
    public boolean controlPlaneNodesReady() {
        return controlPlane.getStore().list().stream().allMatch(n -> readySince(n).isPresent());
    }

    public ObservedCluster observe(MaintenanceState maintenance, boolean controlPlaneReady, Set<String> pools) {
        return observe(maintenance, controlPlaneReady, pools, (pool, e) -> {
            throw e;
        });
    }

    /**
     * The cluster as the planner reads it; a pool whose machines cannot be listed is told to {@code failed} and observed
     * without its machines (the caller holds it), so that one pool's provider failure does not stop the others.
     */
    public ObservedCluster observe(MaintenanceState maintenance, boolean controlPlaneReady, Set<String> pools,
                                   java.util.function.BiConsumer<String, RuntimeException> failed) {
        Map<String, Machine> byNode = new HashMap<>();
        List<Machine> machines = new ArrayList<>();
        for (String pool : new java.util.TreeSet<>(pools)) {
            List<Machine> listed;
            try {
                listed = provider.machines(pool);
            } catch (RuntimeException e) {
                failed.accept(pool, e);
                continue;
            }
            for (Machine m : listed) {
                machines.add(m);
                m.node().ifPresent(node -> byNode.put(node, m));
            }
        }
        List<ObservedNode> observed = new ArrayList<>();
        Set<String> registered = new HashSet<>();
        Map<String, String> zones = new HashMap<>();
        for (Node node : nodes.getStore().list()) {
            registered.add(node.getMetadata().getName());
            // The zone, for the repairs' per-zone limit (DisruptionGuard): the well-known label every cloud sets.
            Optional.ofNullable(node.getMetadata().getLabels()).map(l -> l.get(ObservedCluster.ZONE_LABEL))
                    .ifPresent(z -> zones.put(node.getMetadata().getName(), z));
            observed.add(withMachine(toObserved(node), Optional.ofNullable(byNode.get(node.getMetadata().getName()))));
        }
        for (Machine m : machines) {
            if (m.node().filter(registered::contains).isEmpty()) {
                observed.add(unregistered(m));
            }
        }
        Map<String, PoolStatus> status = new HashMap<>();
        for (ConfigMap map : records.getStore().list()) {
            status.put(map.getMetadata().getLabels().get(PoolStatusRecords.LABEL), PoolStatusRecords.read(map));
        }
        Map<String, Boolean> controlPlaneNodes = new HashMap<>();
        for (Node node : controlPlane.getStore().list()) {
            controlPlaneNodes.put(node.getMetadata().getName(), readySince(node).isPresent());
        }
        return new ObservedCluster(observed, controlPlaneReady, maintenance, status, controlPlaneNodes).withZones(zones);
    }

    /**
     * The node of each machine of these pools that has one, by machine name (the provider's listing of this reconcile);
     * a pool whose machines cannot be listed is left out.
     */
    public Map<String, String> machineNodes(Set<String> pools) {
        Map<String, String> nodesByMachine = new HashMap<>();
        for (String pool : pools) {
            try {
                provider.machines(pool).forEach(m -> m.node().ifPresent(n -> nodesByMachine.put(m.name(), n)));
            } catch (RuntimeException e) {
                // Observed as failed by the pass already (providerFailures): held, so nothing is forced in it anyway.
            }
        }
        return nodesByMachine;
    }

    /** A reconcile begins: the machine provider forgets what it read for the last one. */
    public void refresh() {
        capabilities.refresh();
    }

    /** See {@link ProviderCapabilities#listAhead}: the pools this pass reads, listed at once where the provider lists. */
    public void listAhead(Set<String> pools) {
        capabilities.listAhead(pools);
    }

    /**
     * Machines of these pools whose node registered but does not carry the pool label yet (the
     * provider knows the node; the node does not know its pool), or carries it without the hashes
     * the machine has (an adapter that labels its nodes with the pool; a Cluster API Machine whose
     * hashes became known after its node was labelled): the node is to get them from its machine. And those whose
     * node still carries {@link NodeMarks#STARTUP_TAINT}: seen now, it is taken off.
     */
    public List<Machine> unmarked(String pool) {
        return provider.machines(pool).stream().filter(m -> m.node().isPresent() && !m.deleting()).filter(m -> {
            Node node = nodes.getStore().getByKey(m.node().get());
            return node == null || (m.rollHash() != null && NodeMarks.rollHash(NodeMarks.annotations(node)).isEmpty())
                    || NodeMarks.startupTainted(node) || newPartner(m, node);
        }).toList();
    }

    /**
     * A stand-in the provider gave to another partner (Cluster API, when its partner's Machine went behind Nightshift's
     * back): the node still names the old one. Only a surge partner the machine's records name is copied over a node's
     * mark; every other mark of a registered node stays authoritative.
     */
    static boolean newPartner(Machine m, Node node) {
        return m.surgeFor().isPresent() && !m.surgeFor().get().equals(NodeMarks.annotations(node).get(NodeMarks.SURGE_FOR));
    }

    private static boolean newPartner(Machine m, ObservedNode node) {
        return m.surgeFor().isPresent() && !m.surgeFor().equals(node.surgeFor());
    }

    /**
     * The pools the machine provider refuses to act on, each with its reason (what to change):
     * Nightshift does nothing to them and reports why.
     */
    /** See {@link ProviderCapabilities#refillsPools}. */
    public boolean refillsPools() {
        return capabilities.refillsPools();
    }

    public Map<String, String> refusals(Set<String> pools) {
        Map<String, String> refused = new java.util.TreeMap<>();
        for (String pool : pools) {
            capabilities.refusal(pool).ifPresent(reason -> refused.put(pool, reason));
        }
        return refused;
    }

    /**
     * Pods a drain must evict: not owned by a DaemonSet, not mirror pods, not finished, and not a node
     * updater Job's (which updates the very node the drain prepares). Each as the pod cache keeps it:
     * name, namespace, resourceVersion, deletionTimestamp, node and phase.
     */
    public List<Pod> evictablePods(String node) {
        return podStore.onNode(node).stream().filter(PodSummary::evictable).filter(p -> !nodeUpdater(p))
                .map(PodSummary::toPod).toList();
    }

    /** A pod of a Job in the node updates namespace. */
    private boolean nodeUpdater(PodSummary pod) {
        return pod.job() && nodeUpdatesNamespace.filter(pod.namespace()::equals).isPresent();
    }

    /**
     * The evictable pods a drain still waits for. On an unreachable node, pods whose
     * deletionTimestamp is more than {@link #UNREACHABLE_POD_GRACE} past are not waited for.
     */
    List<Pod> podsLeft(Node node) {
        List<Pod> evictable = evictablePods(node.getMetadata().getName());
        if (!unreachable(node)) {
            return evictable;
        }
        Instant cutoff = clock.instant().minus(UNREACHABLE_POD_GRACE);
        return evictable.stream().filter(p -> instant(p.getMetadata().getDeletionTimestamp())
                .filter(deleting -> deleting.isBefore(cutoff)).isEmpty()).toList();
    }

    /** Its kubelet stopped reporting: the node controller set Ready to Unknown. */
    static boolean unreachable(Node node) {
        return conditions(node).stream().anyMatch(c -> NodeCondition.READY.equals(c.type()) && "Unknown".equals(c.status()));
    }

    static List<NodeCondition> conditions(Node node) {
        if (node.getStatus() == null || node.getStatus().getConditions() == null) {
            return List.of();
        }
        return node.getStatus().getConditions().stream().filter(c -> c.getType() != null)
                .map(c -> new NodeCondition(c.getType(), Objects.toString(c.getStatus(), "Unknown"),
                        instant(c.getLastTransitionTime())))
                .toList();
    }

    /**
     * The pool's nodes the cache shows with an update or kubelet restart started, or a node updater Job followed:
     * the only ones a node updater may have an outcome to record for ({@link StepExecutor#settle}).
     */
    public Set<String> awaitingUpdate(String pool) {
        Set<String> waiting = new HashSet<>();
        for (Node n : nodes.getIndexer().byIndex(BY_POOL, pool)) {
            if (NodeChanges.awaitingUpdate(n)) {
                waiting.add(n.getMetadata().getName());
            }
        }
        return waiting;
    }

    public Optional<Node> node(String name) {
        return Optional.ofNullable(nodes.getStore().getByKey(name));
    }

    public Optional<ConfigMap> statusRecord(String namespace, String pool) {
        return Optional.ofNullable(records.getStore().getByKey(namespace + "/" + PoolStatusRecords.name(pool)));
    }

    /** The observed durations the pool's status record keeps ({@link PoolStatusRecords#durations}); none without a record. */
    public PoolDurations recordedDurations(String namespace, String pool) {
        return statusRecord(namespace, pool).map(PoolStatusRecords::durations).orElse(PoolDurations.NONE);
    }

    /** A node as the planner sees it: every mark read through {@link NodeMarks}. */
    private ObservedNode toObserved(Node node) {
        Map<String, String> labels = NodeMarks.labels(node);
        Map<String, String> a = NodeMarks.annotations(node);
        String name = node.getMetadata().getName();
        Optional<Instant> drainStartedAt = instant(a.get(NodeMarks.DRAIN_STARTED_AT));
        boolean drained = drainStartedAt.isPresent() && podsLeft(node).isEmpty();
        Map<String, String> managed = present(NodeMarks.managedLabelKeys(a), labels);
        return new ObservedNode(name, labels.get(NodeMarks.POOL),
                NodeMarks.rollHash(a), NodeMarks.kubeletHash(a),
                true, readySince(node), cordonedByNightshift(node, a),
                NodeMarks.updateTainted(node),
                drainStartedAt, drained, NodeMarks.blockedEvictions(a.get(NodeMarks.EVICTION_ATTEMPTS)),
                "true".equals(labels.get(NodeMarks.NEEDS_UPDATE)),
                "true".equals(labels.get(NodeMarks.CANDIDATE_FOR_UPDATE)),
                "true".equals(labels.get(NodeMarks.SELECTED_FOR_UPDATE)),
                Optional.ofNullable(a.get(NodeMarks.SURGE_FOR)),
                instant(a.get(NodeMarks.IN_PLACE_STARTED_AT)), "true".equals(a.get(NodeMarks.IN_PLACE_FAILED)),
                instant(a.get(NodeMarks.KUBELET_RESTART_AT)),
                node.getMetadata().getDeletionTimestamp() != null,
                Optional.ofNullable(node.getMetadata().getCreationTimestamp()).flatMap(NodeMarks::instant),
                managed, NodeMarks.managedTaints(a), present(NodeMarks.managedAnnotationKeys(a), a),
                conditions(node), 0);
    }

    /**
     * Cordoned as the planner counts it: by Nightshift (its {@link NodeMarks#CORDONED_AT} mark), or with a drain or an
     * in-place update of Nightshift's under way. Someone else's cordon alone leaves a Ready node serving its pods: it is
     * available, and draining it costs budget like any other (issue 24 case 3: six operator-cordoned nodes were taken as
     * down already and drained at once).
     */
    private static boolean cordonedByNightshift(Node node, Map<String, String> a) {
        return Boolean.TRUE.equals(NodeMarks.spec(node).getUnschedulable()) && (a.containsKey(NodeMarks.CORDONED_AT)
                || a.containsKey(NodeMarks.DRAIN_STARTED_AT) || a.containsKey(NodeMarks.IN_PLACE_STARTED_AT));
    }

    /** The managed keys the node still carries, with the values it carries now. */
    private static Map<String, String> present(List<String> managedKeys, Map<String, String> onNode) {
        Map<String, String> present = new HashMap<>();
        for (String key : managedKeys) {
            if (onNode.containsKey(key)) {
                present.put(key, onNode.get(key));
            }
        }
        return present;
    }

    private static ObservedNode unregistered(Machine m) {
        return new ObservedNode(m.name(), m.pool(), Optional.ofNullable(m.rollHash()), Optional.ofNullable(m.kubeletHash()),
                false, m.running() ? Optional.of(m.createdAt()) : Optional.empty(), false, false, Optional.empty(), false,
                List.of(), false, false, false, m.surgeFor(), Optional.empty(), false, Optional.empty(), m.deleting(),
                Optional.of(m.createdAt()), Map.of(), List.of(), Map.of(), List.of(), m.removalOrder());
    }

    /**
     * A registered node with what its machine's provider adds: a machine being deleted is
     * terminating, one its provider's health check failed is not Ready (so unavailable), and the
     * provider's removal order.
     *
     * <p>The machine's record is the truth of what the node was made from: its hashes and surge
     * partner fill in each of those marks the node does not carry. A node normally gets them from the
     * agent in the same write as its pool label ({@link StepExecutor#settle}), but a node that
     * registers already labelled with its pool (an adapter that passes the pool to the kubelet's
     * {@code --node-labels}) is skipped by that write and carries none of them: read from its node
     * alone it would be unstamped, adopted (stamped from the spec, whatever spec its machine was
     * made from) and no longer a surge machine, so its partner would never be drained. A mark the node
     * carries (the settle write, a stamp, an update's outcome, all written by the agent) stays
     * authoritative, but for a surge partner the provider gave the machine since; a node whose machine carries no hashes, or that no machine names, is read from
     * its own marks, and adopted when it has none.
     */
    private static ObservedNode withMachine(ObservedNode node, Optional<Machine> machine) {
        if (machine.isEmpty()) {
            return node;
        }
        Machine m = machine.get();
        ObservedNode.Builder b = node.toBuilder().removalOrder(m.removalOrder());
        if (node.rollHash().isEmpty() && m.rollHash() != null) {
            b.rollHash(m.rollHash());
        }
        if (node.kubeletHash().isEmpty() && m.kubeletHash() != null) {
            b.kubeletHash(m.kubeletHash());
        }
        // Including a partner the provider gave the machine since the node was marked (newPartner): the stand-in of a
        // partner lost behind Nightshift's back is read as standing in for its new one at once, never as a member.
        if (node.surgeFor().isEmpty() || newPartner(m, node)) {
            m.surgeFor().ifPresent(b::surgeFor);
        }
        if (m.deleting()) {
            b.terminating(true);
        }
        // Current, and still to leave in its stand-in's favour: replaced as a node marked needs-update would be, and the
        // stand-in keeps standing in for it (never a member beside it), so the pool ends at its size.
        if (m.leaving()) {
            b.needsUpdate(true);
        }
        if (m.healthCheckFailed()) {
            b.readySince(null);
        }
        return b.build();
    }

    private static Optional<Instant> readySince(Node node) {
        if (node.getStatus() == null || node.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        for (io.fabric8.kubernetes.api.model.NodeCondition c : node.getStatus().getConditions()) {
            if ("Ready".equals(c.getType()) && "True".equals(c.getStatus())) {
                return instant(c.getLastTransitionTime()).or(() -> Optional.of(Instant.EPOCH));
            }
        }
        return Optional.empty();
    }

    private static Optional<Instant> instant(String text) {
        return NodeMarks.instant(text);
    }

    @Override
    public void close() {
        nodes.close();
        pods.close();
        records.close();
        controlPlane.close();
        registrations.close();
        capabilities.close();
    }
}
