package dev.nightshift.agent.kube;

import static dev.nightshift.agent.kube.NodeMarks.annotation;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


import dev.nightshift.agent.health.EvictedWorkloads;
import dev.nightshift.agent.kube.NodeMarks.EvictionAttempt;
import dev.nightshift.agent.provider.MachineProvider;
import dev.nightshift.agent.provider.ProviderCapabilities;
import dev.nightshift.agent.provider.NodeUpdater;
import dev.nightshift.spec.model.Taint;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.strategies.EvictionBackoff;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.plan.Step;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Carries out the planner's steps against the cluster and the machine provider. It decides
 * nothing: every choice was made by the planner from what was observed. It is the agent's
 * {@link Step.Handler}, one method per step type, as the simulator is the model's: the contract
 * test ({@code StepContractTest}) runs each step through both and compares the observed node.
 */
public final class StepExecutor implements Step.Handler<Optional<StepExecutor.Outcome>> {

    private static final Logger LOG = LoggerFactory.getLogger(StepExecutor.class);

    /** What executing one step did, for logs, the demo's screen, /status and metrics. */
    public record Outcome(Step step, String summary, Evictions evictions) {

        public Outcome(Step step, String summary) {
            this(step, summary, Evictions.NONE);
        }
    }

    /** Eviction requests of one drain pass by answer: evicted (or already gone), refused by a budget, failed otherwise. */
    public record Evictions(int evicted, int blocked, int failed) {
        public static final Evictions NONE = new Evictions(0, 0, 0);
    }

    private final KubernetesClient client;
    private final NodePatcher patcher;
    /**
     * For eviction counts and the drain's mark: read before each write, so that a pass never judges a pod's backoff from a
     * cache that has not seen the last pass's refusals yet (drain passes are off the reconcile's thread: the read costs it
     * nothing).
     */
    private final NodePatcher reading;
    /** A drain pass's evictions, sent at once up to a bound. */
    private final ConcurrentEvictions evictions;
    /** Where drain passes run: off the reconcile's thread in the agent. */
    private final DrainPasses drains;
    private final ClusterObserver observer;
    private final MachineProvider machines;
    private final ProviderCapabilities capabilities;
    private final NodeUpdater nodeUpdates;
    private final Clock clock;
    private final EventRecorder events;
    private final EvictedWorkloads evictedWorkloads;

    /**
     * @param machines    creates and deletes machines
     * @param nodeUpdates updates nodes in place and restarts kubelets
     */
    public StepExecutor(KubernetesClient client, Evictor evictor, ClusterObserver observer, MachineProvider machines,
                        NodeUpdater nodeUpdates, Clock clock, EventRecorder events) {
        this(client, evictor, observer, machines, nodeUpdates, clock, events, new EvictedWorkloads());
    }

    /**
     * Drain passes in the caller: {@link #execute} returns when a drain pass is done, with what it did.
     *
     * @param evictedWorkloads told of every pod a drain evicted: the {@code workloadsAvailable} check follows their workloads
     */
    public StepExecutor(KubernetesClient client, Evictor evictor, ClusterObserver observer, MachineProvider machines,
                        NodeUpdater nodeUpdates, Clock clock, EventRecorder events, EvictedWorkloads evictedWorkloads) {
        this(client, evictor, observer, machines, nodeUpdates, clock, events, evictedWorkloads, DrainPasses.inCaller());
    }

    /**
     * @param drains where drain passes run; on threads of their own ({@link DrainPasses#onThreads}), a drain step only
     *               starts its pass and what the pass did comes from {@link #finishedDrains()}
     */
    public StepExecutor(KubernetesClient client, Evictor evictor, ClusterObserver observer, MachineProvider machines,
                        NodeUpdater nodeUpdates, Clock clock, EventRecorder events, EvictedWorkloads evictedWorkloads,
                        DrainPasses drains) {
        this.drains = drains;
        this.evictedWorkloads = evictedWorkloads;
        this.events = events;
        this.client = client;
        // Steps are planned from the observer's nodes: a write is computed from the same node, read again only on a 409.
        this.patcher = new NodePatcher(client, observer::node);
        this.reading = new NodePatcher(client);
        this.evictions = new ConcurrentEvictions(evictor::evictAsync, ConcurrentEvictions.DEFAULT_BOUND);
        this.observer = observer;
        this.machines = machines;
        this.capabilities = new ProviderCapabilities(machines);
        this.nodeUpdates = nodeUpdates;
        this.clock = clock;
    }

    /**
     * Before a plan, by the replica that acts: the provider brings its records of the pool up to
     * date, and every node that registered for one of its machines and does not carry the pool
     * label yet gets it, with the machine's hashes and surge partner (providers such as Cluster API
     * copy none of Nightshift's marks onto nodes). A mark the node already carries is kept: once
     * registered, the node's marks are authoritative, but for a surge partner the provider gave its
     * machine since. Then the node updater records the updates it observed finished
     * ({@link NodeUpdater#settle}).
     */
    public void settle(DesiredPool desiredPool, List<dev.nightshift.agent.provider.Machine> unmarked) {
        String pool = desiredPool.name();
        capabilities.settle(pool);
        for (dev.nightshift.agent.provider.Machine m : unmarked) {
            String node = m.node().orElseThrow();
            Map<String, String> wanted = new HashMap<>();
            if (m.rollHash() != null) {
                wanted.putAll(NodeMarks.rollHash(m.rollHash()));
            }
            if (m.kubeletHash() != null) {
                wanted.putAll(NodeMarks.kubeletHash(m.kubeletHash()));
            }
            m.surgeFor().ifPresent(partner -> wanted.put(NodeMarks.SURGE_FOR, partner));
            // What the patch did, decided on the node as read: labelled already (by an adapter, or before its machine's
            // hashes were known) means only the missing hashes; nothing missing, no write and no line.
            String[] did = {""};
            patcher.patch(node, n -> {
                Map<String, String> annotations = new HashMap<>(wanted);
                annotations.keySet().removeAll(NodeMarks.annotations(n).keySet());
                // The one mark a registered node takes from its machine again: a surge partner the provider gave it since.
                boolean newPartner = m.surgeFor().isPresent() && NodeMarks.annotations(n).containsKey(NodeMarks.SURGE_FOR)
                        && ClusterObserver.newPartner(m, n);
                if (newPartner) {
                    annotations.put(NodeMarks.SURGE_FOR, m.surgeFor().get());
                }
                Map<String, Object> patch = new HashMap<>();
                if (!m.pool().equals(NodeMarks.labels(n).get(NodeMarks.POOL))) {
                    did[0] = "registered: labelled " + NodeMarks.POOL + "=" + m.pool();
                    patch.put("metadata", Map.of("labels", Map.of(NodeMarks.POOL, m.pool()), "annotations", annotations));
                } else if (NodeMarks.rollHash(NodeMarks.annotations(n)).isEmpty() && !annotations.isEmpty()) {
                    did[0] = "the machine's hashes copied onto it";
                    patch.put("metadata", Map.of("annotations", annotations));
                } else if (newPartner) {
                    did[0] = "stands in for " + m.surgeFor().get() + " now (was " + NodeMarks.annotations(n).get(NodeMarks.SURGE_FOR) + ")";
                    patch.put("metadata", Map.of("annotations", annotations));
                } else {
                    did[0] = "";
                }
                // In the same write as its pool label: the node takes pods once it is known to be this machine's.
                withoutStartupTaint(n).ifPresent(taints -> {
                    patch.put("spec", Map.of("taints", taints));
                    did[0] = did[0].isEmpty() ? "seen: " + NodeMarks.STARTUP_TAINT + " taken off" : did[0] + ", " + NodeMarks.STARTUP_TAINT + " taken off";
                });
                return patch.isEmpty() ? Optional.empty() : Optional.of(patch);
            });
            if (!did[0].isEmpty()) {
                LOG.info("node {} of machine {} {}", node, m.name(), did[0]);
            }
        }
        // The outcomes of node updates the updater observed finished, written on the nodes before they are observed.
        // Only nodes the cache shows with an update or kubelet restart started can wait for its outcome: the others
        // (every node of a quiet pool, a node being drained) are not read from the API.
        nodeUpdates.settle(desiredPool, observer.awaitingUpdate(desiredPool.name()));
    }

    /**
     * Executes one step; the steps that make or change machines carry the pool's desired spec they were planned with.
     * A step that would change a node whose drain pass is running (its deletion, in-place update, release, a forced pod
     * deletion) waits for the pass: it does nothing now, and the planner asks for it again from what the pass left. The
     * planner asks for those before a drain of the same node, so a pass started by this reconcile holds none of them back.
     */
    public Optional<Outcome> execute(Step step) {
        if (waitsForDrain(step) && drains.running(step.target())) {
            LOG.debug("{} of {} waits for the node's drain pass", step.getClass().getSimpleName(), step.target());
            return Optional.empty();
        }
        return step.accept(this);
    }

    private static boolean waitsForDrain(Step step) {
        return step instanceof Step.DeleteMachine || step instanceof Step.UpdateInPlace || step instanceof Step.Uncordon
                || step instanceof Step.ForceDeletePod;
    }

    /** What the drain passes that ran off the caller's thread did, finished since the last call. */
    public List<Outcome> finishedDrains() {
        return drains.finished();
    }

    @Override
    public Optional<Outcome> stamp(Step.Stamp s) {
        String node = s.target();
        if (observer.node(node).isPresent()) {
            patchAnnotations(node, NodeMarks.hashes(s.rollHash(), s.kubeletHash()));
            // The node's marks are authoritative for the node; the machine's record keeps them for the machines a
            // backend makes later from the same template (StampsMachines).
            capabilities.stamped(s.pool(), node, s.rollHash(), s.kubeletHash());
        } else {
            machines.stamp(s.pool(), node, s.rollHash(), s.kubeletHash());
        }
        return outcome(s, s.adopted() ? "adopted " + node + " (stamped, not disrupted)" : "re-stamped " + node);
    }

    @Override
    public Optional<Outcome> taint(Step.Taint step) {
        String node = step.target();
        patcher.patch(node, n -> withTaints(n, true));
        return outcome(step, "tainted " + node + " " + NodeMarks.UPDATE_TAINT + ":" + NodeMarks.UPDATE_TAINT_EFFECT);
    }

    @Override
    public Optional<Outcome> untaint(Step.Untaint step) {
        String node = step.target();
        patcher.patch(node, n -> withTaints(n, false));
        return outcome(step, "untainted " + node);
    }

    @Override
    public Optional<Outcome> cordon(Step.Cordon step) {
        String node = step.target();
        patcher.patch(node, this::cordonPatch);
        return outcome(step, "cordoned " + node);
    }

    /**
     * Cordons with Nightshift's mark in the same patch, so that no moment shows Nightshift's cordon without it. A node
     * someone else cordoned is left as it is, unmarked: that cordon stays theirs.
     */
    private Optional<Map<String, Object>> cordonPatch(Node n) {
        return Boolean.TRUE.equals(NodeMarks.spec(n).getUnschedulable()) ? Optional.empty()
                : Optional.of(Map.<String, Object>of("spec", Map.of("unschedulable", true),
                        "metadata", Map.of("annotations", Map.of(NodeMarks.CORDONED_AT, NodeMarks.instant(clock.instant())))));
    }

    @Override
    public Optional<Outcome> uncordon(Step.Uncordon step) {
        String node = step.target();
        Map<String, Object> annotations = new HashMap<>();
        for (String key : List.of(NodeMarks.CORDONED_AT, NodeMarks.DRAIN_STARTED_AT, NodeMarks.EVICTION_ATTEMPTS,
                NodeMarks.IN_PLACE_STARTED_AT, NodeMarks.IN_PLACE_TARGET, NodeMarks.KUBELET_RESTART_AT, NodeMarks.UPDATE_JOB)) {
            annotations.put(key, null);
        }
        // Only Nightshift's own cordon is lifted: a node someone else had cordoned stays cordoned once Nightshift is done.
        patcher.patch(node, n -> Optional.of(NodeMarks.annotations(n).containsKey(NodeMarks.CORDONED_AT)
                ? Map.<String, Object>of("spec", mapOf("unschedulable", null), "metadata", Map.of("annotations", annotations))
                : Map.<String, Object>of("metadata", Map.of("annotations", annotations))));
        return outcome(step, "released " + node);
    }

    @Override
    public Optional<Outcome> drain(Step.Drain step) {
        return drain(step, step.target());
    }

    @Override
    public Optional<Outcome> forceDeletePod(Step.ForceDeletePod f) {
        String node = f.target();
        Optional<Pod> pod = observer.evictablePods(node).stream().filter(p -> p.getMetadata().getName().equals(f.pod())).findFirst();
        pod.ifPresent(p -> client.pods().inNamespace(p.getMetadata().getNamespace()).withName(f.pod()).delete());
        // The pod is gone: its refusals no longer block the drain (as the simulator has it), and a
        // repeat of this step from a stale view finds nothing to delete.
        reading.patch(node, n -> {
            Map<String, EvictionAttempt> attempts = NodeMarks.evictionAttempts(annotation(n, NodeMarks.EVICTION_ATTEMPTS));
            return attempts.remove(f.pod()) == null ? Optional.empty() : Optional.of(Map.of("metadata",
                    Map.of("annotations", mapOf(NodeMarks.EVICTION_ATTEMPTS, NodeMarks.evictionAttempts(attempts)))));
        });
        return outcome(f, "force-deleted pod " + f.pod() + " on " + node + " (its budget refused every eviction)");
    }

    @Override
    public Optional<Outcome> deleteMachine(Step.DeleteMachine d) {
        String node = d.target();
        Optional<String> servesPods = registeredSinceThePlan(d);
        if (servesPods.isPresent()) {
            LOG.info("machine of {} not deleted yet: {}", node, servesPods.get());
            return Optional.empty();
        }
        MachineProvider.Deletion deletion = machines.delete(d.desired(), node, d.replace());
        if (!deletion.started()) {
            LOG.info("machine of {} not deleted yet: {}", node, deletion.detail());
            return Optional.empty();
        }
        return outcome(d, deletion.detail());
    }

    /**
     * Every deletion the planner asks for is of a node Nightshift cordoned and drained, or of a machine with no node
     * yet. The second kind is decided from a view that may be a moment old: the machine's node can have registered
     * Ready since, and pods can land on it. So the node it has or will have is read from the API server now (one GET,
     * only for a deletion); found Ready and schedulable, the deletion waits, and the next pass sees a registered node
     * to drain like any other. Why it waits, or empty when it may go.
     */
    private Optional<String> registeredSinceThePlan(Step.DeleteMachine d) {
        String target = d.target();
        String nodeName = machines.machines(d.pool()).stream()
                .filter(m -> m.name().equals(target) || m.node().filter(target::equals).isPresent())
                .findFirst().flatMap(dev.nightshift.agent.provider.Machine::node).orElse(target);
        if (!SchedulableNodes.takesPods(client.nodes().withName(nodeName).get())) {
            return Optional.empty();
        }
        return Optional.of("its node " + nodeName + " is Ready and schedulable (registered after the plan, or uncordoned):"
                + " it is drained before its machine goes");
    }

    @Override
    public Optional<Outcome> createMachine(Step.CreateMachine c) {
        machines.create(c.desired(), c.surgeFor());
        return outcome(c, "requested a machine for pool " + c.pool()
                + (c.surgeFor().isEmpty() ? " to bring it back to its minimum" : " to stand in for " + c.surgeFor()));
    }

    @Override
    public Optional<Outcome> updateInPlace(Step.UpdateInPlace u) {
        String node = u.target();
        // Decided on the node as the API has it when the patch lands (a base the cache had from
        // before our last write answers 409 and is read again): a repeated step must not restart
        // the in-place clock.
        String now = NodeMarks.instant(clock.instant());
        AtomicBoolean failed = new AtomicBoolean();
        patcher.patch(node, n -> {
            // A step planned from a cache that had not yet seen the node updater mark the node failed
            // would start the update again: the pool stops at a failed node, whatever the cache said.
            failed.set(failedUpdate(n));
            if (failed.get()) {
                return Optional.empty();
            }
            Map<String, Object> a = new HashMap<>();
            if (!u.rollHash().value().equals(annotation(n, NodeMarks.IN_PLACE_TARGET))) {
                a.put(NodeMarks.IN_PLACE_TARGET, u.rollHash().value());
                a.put(NodeMarks.IN_PLACE_STARTED_AT, now);
            } else if (annotation(n, NodeMarks.IN_PLACE_STARTED_AT) == null) {
                a.put(NodeMarks.IN_PLACE_STARTED_AT, now);
            }
            return a.isEmpty() ? Optional.empty() : Optional.of(Map.of("metadata", Map.of("annotations", a)));
        });
        if (failed.get()) {
            return Optional.empty();
        }
        nodeUpdates.updateInPlace(u.desired(), node);
        return outcome(u, "updating " + node + " in place");
    }

    @Override
    public Optional<Outcome> restartKubelet(Step.RestartKubelet r) {
        String node = r.target();
        // Only the step that sets the mark (on the node as the API has it when the patch lands: a
        // stale base answers 409 and is read again) restarts the kubelet: a repeat from a stale
        // cache must not restart it again or reset its clock.
        // A request made again replaces exactly the unanswered mark it was planned from.
        String now = NodeMarks.instant(clock.instant());
        AtomicBoolean started = new AtomicBoolean();
        patcher.patch(node, n -> {
            // Nor is a restart the node updater has marked failed asked again (the cache may not show the mark yet).
            started.set(!failedUpdate(n) && NodeMarks.instant(annotation(n, NodeMarks.KUBELET_RESTART_AT)).equals(r.unansweredSince()));
            return started.get() ? Optional.of(Map.of("metadata", Map.of("annotations", Map.of(NodeMarks.KUBELET_RESTART_AT, now))))
                    : Optional.empty();
        });
        if (!started.get()) {
            return Optional.empty();
        }
        nodeUpdates.restartKubelet(r.desired(), node);
        return outcome(r, "restarting the kubelet on " + node);
    }

    private static boolean failedUpdate(Node n) {
        return "true".equals(annotation(n, NodeMarks.IN_PLACE_FAILED));
    }

    @Override
    public Optional<Outcome> propagate(Step.Propagate p) {
        String node = p.target();
        patcher.patch(node, n -> propagate(n, p.labels(), p.annotations(), p.taints()));
        return outcome(p, "propagated labels, annotations and taints to " + node);
    }

    @Override
    public Optional<Outcome> labelCandidate(Step.LabelCandidate step) {
        String node = step.target();
        patcher.patch(node, n -> Optional.of(Map.of("metadata", Map.of("labels", Map.of(NodeMarks.CANDIDATE_FOR_UPDATE, "true")))));
        return outcome(step, "labelled " + node + " a candidate for update");
    }

    /** The pass validates (its execute stage keeps the pool's streak); nothing is done to the cluster. */
    @Override
    public Optional<Outcome> validate(Step.Validate step) {
        return Optional.empty();
    }

    /**
     * Starts a repair: the Event naming the condition (once, by the step that sets the drain mark),
     * the cordon and the first drain pass.
     */
    @Override
    public Optional<Outcome> repair(Step.Repair r) {
        String node = r.target();
        Optional<Node> cached = observer.node(node);
        if (cached.isEmpty()) {
            return Optional.empty();
        }
        if (annotation(cached.get(), NodeMarks.DRAIN_STARTED_AT) == null) {
            events.node(node, EventRecorder.Reason.NodeFailed, "Node " + node + " of pool " + r.pool() + " has been unhealthy (" + r.condition()
                    + ") since " + r.since() + ", longer than its healthTimeout: draining it and replacing its machine");
        }
        patcher.patch(node, this::cordonPatch);
        Optional<Outcome> drained = drain(r, node);
        String summary = "repairing " + node + " (" + r.condition() + " since " + r.since() + "): cordoned, draining";
        return Optional.of(new Outcome(r, summary, drained.map(Outcome::evictions).orElse(Evictions.NONE)));
    }

    private static Optional<Outcome> outcome(Step step, String summary) {
        return Optional.of(new Outcome(step, summary));
    }

    private static Map<String, Object> mapOf(String key, Object value) {
        Map<String, Object> m = new HashMap<>();
        m.put(key, value);
        return m;
    }

    private void patchAnnotations(String node, Map<String, ?> annotations) {
        patcher.patch(node, n -> Optional.of(Map.of("metadata", Map.of("annotations", annotations))));
    }

    /** The node's taints with Nightshift's update taint added or removed; everyone else's kept. */
    private static Optional<Map<String, Object>> withTaints(Node n, boolean add) {
        List<Map<String, Object>> taints = new ArrayList<>();
        boolean present = false;
        for (io.fabric8.kubernetes.api.model.Taint t : NodeMarks.taints(n)) {
            if (NodeMarks.UPDATE_TAINT.equals(t.getKey())) {
                present = true;
                continue;
            }
            taints.add(taint(t.getKey(), t.getValue(), t.getEffect()));
        }
        if (present == add) {
            return Optional.empty();
        }
        if (add) {
            taints.add(taint(NodeMarks.UPDATE_TAINT, NodeMarks.UPDATE_TAINT_VALUE, NodeMarks.UPDATE_TAINT_EFFECT));
        }
        return Optional.of(Map.of("spec", Map.of("taints", taints)));
    }

    /** The node's taints without {@link NodeMarks#STARTUP_TAINT}; empty when it does not carry it. */
    private static Optional<List<Map<String, Object>>> withoutStartupTaint(Node n) {
        if (!NodeMarks.startupTainted(n)) {
            return Optional.empty();
        }
        List<Map<String, Object>> taints = new ArrayList<>();
        for (io.fabric8.kubernetes.api.model.Taint t : NodeMarks.taints(n)) {
            if (!NodeMarks.STARTUP_TAINT.equals(t.getKey())) {
                taints.add(taint(t.getKey(), t.getValue(), t.getEffect()));
            }
        }
        return Optional.of(taints);
    }

    private static Map<String, Object> taint(String key, String value, String effect) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("key", key);
        if (value != null && !value.isEmpty()) {
            m.put("value", value);
        }
        m.put("effect", effect);
        return m;
    }

    /**
     * Sets the pool's labels, annotations and taints, removing only those Nightshift set before and
     * no longer wants. An annotation under {@code nightshift.dev/} is neither copied nor removed
     * here: those are control annotations and Nightshift's own marks.
     */
    private static Optional<Map<String, Object>> propagate(Node n, Map<String, String> labels, Map<String, String> wantedAnnotations,
                                                           List<Taint> wantedTaints) {
        Map<String, String> annotations = NodeMarks.annotations(n);
        Map<String, String> copied = new TreeMap<>(wantedAnnotations);
        copied.keySet().removeIf(WorkerPoolSpec::controlAnnotation);
        Map<String, Object> annotationPatch = new HashMap<>(copied);
        for (String previouslyManaged : NodeMarks.managedAnnotationKeys(annotations)) {
            if (!copied.containsKey(previouslyManaged)) {
                annotationPatch.put(previouslyManaged, null);
            }
        }
        Map<String, Object> labelPatch = new HashMap<>(labels);
        for (String previouslyManaged : NodeMarks.managedLabelKeys(annotations)) {
            if (!labels.containsKey(previouslyManaged)) {
                labelPatch.put(previouslyManaged, null);
            }
        }
        List<Taint> previous = NodeMarks.managedTaints(annotations);
        List<Map<String, Object>> taints = new ArrayList<>();
        for (io.fabric8.kubernetes.api.model.Taint t : NodeMarks.taints(n)) {
            boolean ours = previous.stream().anyMatch(p -> p.key().equals(t.getKey()) && p.effect().name().equals(t.getEffect()))
                    || wantedTaints.stream().anyMatch(w -> w.key().equals(t.getKey()) && w.effect().name().equals(t.getEffect()));
            if (!ours) {
                taints.add(taint(t.getKey(), t.getValue(), t.getEffect()));
            }
        }
        for (Taint t : wantedTaints) {
            taints.add(taint(t.key(), t.value(), t.effect().name()));
        }
        annotationPatch.put(NodeMarks.MANAGED_LABELS, NodeMarks.managedLabels(labels.keySet()));
        annotationPatch.put(NodeMarks.MANAGED_TAINTS, NodeMarks.managedTaints(wantedTaints));
        annotationPatch.put(NodeMarks.MANAGED_ANNOTATIONS, NodeMarks.managedAnnotations(copied.keySet()));
        return Optional.of(Map.of("metadata", Map.of("labels", labelPatch, "annotations", annotationPatch),
                "spec", Map.of("taints", taints)));
    }

    /**
     * Starts a drain pass where {@link DrainPasses} runs them, unless the node's last pass is still running; in the
     * agent the reconcile does not wait for it.
     */
    private Optional<Outcome> drain(Step step, String node) {
        if (observer.node(node).isEmpty()) {
            return Optional.empty();
        }
        return drains.start(node, () -> drainPass(step, node));
    }

    /**
     * One drain pass: every evictable pod is asked to leave once, except a pod whose budget refused
     * it less than its {@link EvictionBackoff} ago. Budget refusals are counted on the node with the
     * time of the last one (so count and backoff survive a restart) and reported as an Event naming
     * pod and budget.
     */
    private Optional<Outcome> drainPass(Step step, String node) {
        // The marks are computed from the node as the API has it now: the cache may not show our
        // last write yet, and a repeated step must neither restart the drain clock nor lose counts.
        Instant now = clock.instant();
        String started = NodeMarks.instant(now);
        AtomicReference<Node> current = new AtomicReference<>();
        boolean exists = reading.patch(node, n -> {
            current.set(n);
            return annotation(n, NodeMarks.DRAIN_STARTED_AT) != null ? Optional.empty()
                    : Optional.of(Map.of("metadata", Map.of("annotations", Map.of(NodeMarks.DRAIN_STARTED_AT, started))));
        });
        if (!exists || current.get() == null) {
            return Optional.empty();
        }
        Map<String, EvictionAttempt> refusedBefore = NodeMarks.evictionAttempts(annotation(current.get(), NodeMarks.EVICTION_ATTEMPTS));
        List<String> evictedPods = new ArrayList<>();
        Map<String, String> blockedBy = new LinkedHashMap<>();
        Map<String, String> namespaces = new HashMap<>();
        Map<String, Instant> refusedAt = new HashMap<>();
        int failed = 0;
        int backedOff = 0;
        List<ConcurrentEvictions.Request> asked = new ArrayList<>();
        List<Pod> askedPods = new ArrayList<>();
        for (Pod pod : observer.evictablePods(node)) {
            if (pod.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            String name = pod.getMetadata().getName();
            EvictionAttempt refused = refusedBefore.get(name);
            if (refused != null && !EvictionBackoff.due(refused.attempts(), refused.refusedAt(), now)) {
                backedOff++;
                continue;
            }
            namespaces.put(name, pod.getMetadata().getNamespace());
            asked.add(new ConcurrentEvictions.Request(pod.getMetadata().getNamespace(), name));
            askedPods.add(pod);
        }
        // All at once (bounded): the pass costs the slowest answer, not the sum; each answer is then judged on its own.
        List<EvictionResult> results = evictions.evict(asked);
        // Taken once the answers are in: the backoff runs from the refusal, not from the request.
        Instant answered = clock.instant();
        for (int i = 0; i < asked.size(); i++) {
            String name = asked.get(i).pod();
            EvictionResult result = results.get(i);
            if (result instanceof EvictionResult.Evicted || result instanceof EvictionResult.NotFound) {
                evictedPods.add(name);
                if (result instanceof EvictionResult.Evicted) {
                    evictedWorkloads.evicted(step.pool(), askedPods.get(i), now);
                }
            } else if (result instanceof EvictionResult.BlockedByBudget b) {
                blockedBy.put(name, b.budget());
                refusedAt.put(name, answered);
            } else if (result instanceof EvictionResult.Retry r) {
                failed++;
                LOG.info("eviction of {} on {} will be retried: {} {}", name, node, r.status(), r.message());
            }
        }
        if (backedOff > 0 && evictedPods.isEmpty() && blockedBy.isEmpty() && failed == 0) {
            // Nothing was asked this pass: every pod left waits for its next try, and
            // there is nothing to record.
            return Optional.empty();
        }
        AtomicReference<Map<String, Integer>> counts = new AtomicReference<>(Map.of());
        reading.patch(node, n -> {
            String before = annotation(n, NodeMarks.EVICTION_ATTEMPTS);
            Map<String, EvictionAttempt> attempts = NodeMarks.evictionAttempts(before);
            evictedPods.forEach(attempts::remove);
            Map<String, Integer> counted = new HashMap<>();
            blockedBy.forEach((pod, budget) -> {
                EvictionAttempt entry = attempts.getOrDefault(pod, new EvictionAttempt(budget, 0, Optional.empty()))
                        .refusedAgain(budget, refusedAt.get(pod));
                attempts.put(pod, entry);
                counted.put(pod, entry.attempts());
            });
            counts.set(counted);
            String after = NodeMarks.evictionAttempts(attempts);
            return Objects.equals(before, after) ? Optional.empty()
                    : Optional.of(Map.of("metadata", Map.of("annotations", mapOf(NodeMarks.EVICTION_ATTEMPTS, after))));
        });
        List<String> blocked = new ArrayList<>();
        blockedBy.forEach((pod, budget) -> {
            int count = counts.get().getOrDefault(pod, 1);
            blocked.add(pod + " (budget " + budget + ", attempt " + count + ")");
            // One Event per pod and budget, counted: its count is the number of refusals.
            events.node(node, EventRecorder.Reason.EvictionBlocked, "Draining " + node + ": eviction of pod " + namespaces.get(pod)
                    + "/" + pod + " refused by PodDisruptionBudget " + budget);
        });
        return Optional.of(new Outcome(step, "draining " + node + ": " + evictedPods.size() + " pod(s) evicted"
                + (blocked.isEmpty() ? "" : ", blocked: " + blocked), new Evictions(evictedPods.size(), blocked.size(), failed)));
    }
}
