package dev.nightshift.strategies;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.nightshift.spec.hash.StampMatch;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.spec.model.WorkerPoolSpec;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.PoolReport.NodeHealth;

/**
 * The facts about one pool that the strategies decide from, all derived from what is observed now:
 * size, resolved limits, which nodes are outdated and which are available.
 */
final class PoolView {

    private final DesiredPool desired;
    private final List<ObservedNode> nodes;
    private final Instant now;
    private final Duration minReady;
    /** Old node names to the first surge machine (in name order) that stands in for it; which of them still exist. */
    private final NameIndex surgeByPartner;
    private final int count;
    /** Machines being deleted: out of the pool, but they exist until they are gone. */
    private final int terminating;
    private final PoolLimits limits;
    /** The conditions that make a node unhealthy when True, besides Ready not True. */
    private final Set<String> watchedConditions;
    /** Nodes unhealthy now, judged by {@link Repairs#judge}, by name. */
    private final Map<String, NodeHealth> unhealthy;
    private final Set<String> failed;
    private final List<ObservedNode> outdatedNodes;
    private final int availableCount;
    /** Per node, by its index in {@link #nodes()}: what depends on the node alone, judged once per node object. */
    private final NodeFacts[] facts;
    /** Per node, by its index: what the plan's passes ask of every node that depends on now or on other nodes, answered once. */
    private final boolean[] availableAt;
    private final boolean[] livePartnerAt;
    /** Indices of {@link #outdatedNodes()}. */
    private final int[] outdatedIndices;
    /** A surge machine stands in for it (it is some surge machine's live partner). */
    private final boolean[] partneredAt;
    private final boolean[] alreadyDownAt;
    /** Indices of the nodes that may need a stamp or a propagation; the others certainly need neither. */
    private final int[] stampOrPropagate;
    /** Indices of the registered nodes that are outdated or carry the update taint: the only ones taints may change. */
    private final int[] taintCandidates;
    /** Indices of the machines still coming up (not registered; for a bastion not Ready) with a creation time. */
    private final int[] pendingCreation;
    /** Indices of the nodes in flight (draining or updating in place). */
    private final int[] inFlightNodes;
    private final boolean anyOutdated;
    private final boolean anyKubeletOutdated;
    private final boolean anyKubeletRestart;
    /** Every registered node that has not failed is Ready. */
    private final boolean registeredNodesReady;
    /** In flight in the phase's sense: drains, in-place updates, restarts, and new machines not registered yet. */
    private final boolean phaseInFlight;
    private final long updatesInFlight;
    private final boolean canaryPassed;
    private final Tally tally;
    private final Optional<Instant> nextTimer;

    /**
     * Everything asked of the pool more than once is computed here, in a few passes over its
     * nodes, so that a plan costs time linear in the pool's size.
     */
    PoolView(DesiredPool desired, List<ObservedNode> observed, Instant now) {
        this(desired, observed, PlanMemo.judgeAll(desired, observed, false), now, false);
    }

    /** The pool's view of the cluster: its nodes picked out of all nodes in the same pass that copies them. */
    static PoolView of(DesiredPool desired, ObservedCluster observed, Instant now) {
        return new PoolView(desired, observed.nodes(), PlanMemo.judgeAll(desired, observed.nodes(), true), now, true);
    }

    /**
     * The pool's view from its own nodes only, in the order observed (a planner that picked them out of the cluster's
     * once for every pool), with the memo where there is one: the same view as {@link #of(DesiredPool, ObservedCluster,
     * Instant)}, without walking every node of the cluster for every pool.
     */
    static PoolView ofOwn(DesiredPool desired, List<ObservedNode> own, Instant now, PlanMemo memo) {
        return new PoolView(desired, own, memo == null ? PlanMemo.judgeAll(desired, own, false) : memo.judge(desired, own), now, false);
    }

    /** {@link #of(DesiredPool, ObservedCluster, Instant)}, with the nodes judged by the previous plan not judged again. */
    static PoolView of(DesiredPool desired, ObservedCluster observed, Instant now, PlanMemo memo) {
        return new PoolView(desired, observed.nodes(), memo.judge(desired, observed.nodes()), now, true);
    }

    private PoolView(DesiredPool desired, List<ObservedNode> observed, PlanMemo.Judged judged, Instant now,
                     boolean othersAmong) {
        this.desired = desired;
        this.now = now;
        this.minReady = Duration.ofSeconds(spec().minReadySeconds());
        this.watchedConditions = Set.copyOf(spec().machineControllerManager().nodeConditions());
        NodeFacts[] judgedFacts = judged.facts();
        List<NodeFacts> live = new ArrayList<>(judgedFacts.length);
        int gone = 0;
        int surgeMachines = 0;
        boolean sorted = true;
        for (NodeFacts f : judgedFacts) {
            if (othersAmong && (f == null || !f.inPool)) {
                continue;
            }
            if (f.terminating) {
                gone++;
                continue;
            }
            if (f.surgeFor != null) {
                surgeMachines++;
            }
            // Nodes known to come in name order (the memo saw them) are not compared again.
            if (!judged.sorted() && !live.isEmpty() && live.get(live.size() - 1).name.compareTo(f.name) > 0) {
                sorted = false;
            }
            live.add(f);
        }
        if (!sorted) {
            live.sort(Comparator.comparing(f -> f.name));
        }
        int size = live.size();
        if (size == observed.size() && sorted) {
            // Every node observed is the pool's, in order: the observed list is the pool's.
            this.facts = judgedFacts;
            this.nodes = List.copyOf(observed);
        } else {
            this.facts = live.toArray(new NodeFacts[0]);
            ObservedNode[] liveNodes = new ObservedNode[size];
            for (int i = 0; i < size; i++) {
                liveNodes[i] = facts[i].node;
            }
            this.nodes = Collections.unmodifiableList(Arrays.asList(liveNodes));
        }
        this.terminating = gone;
        this.surgeByPartner = new NameIndex(surgeMachines);
        this.unhealthy = new LinkedHashMap<>();
        for (int i = 0; i < size; i++) {
            NodeFacts f = facts[i];
            if (f.surgeFor != null) {
                surgeByPartner.putIfAbsent(f.surgeFor, f.surgeForHash, i);
            }
            if (f.hasConditions) {
                ObservedNode n = f.node;
                Repairs.judge(this, n).ifPresent(h -> unhealthy.put(n.name(), h));
            }
        }
        // Only the old nodes that surge machines name are looked up by name: no map of every node. The
        // names' hash codes come with the facts, so that a node whose name no surge machine has is not read.
        this.partneredAt = new boolean[size];
        if (surgeMachines > 0) {
            for (int i = 0; i < size; i++) {
                partneredAt[i] = surgeByPartner.markPresent(facts[i].name, facts[i].nameHash);
            }
        }
        this.failed = new HashSet<>();
        for (NodeHealth h : unhealthy.values()) {
            if (Repairs.failsAt(this, h).filter(t -> !t.isAfter(now)).isPresent()) {
                failed.add(h.node());
            }
        }
        this.livePartnerAt = new boolean[size];
        this.availableAt = new boolean[size];
        this.alreadyDownAt = new boolean[size];
        NodePass pass = new NodePass();
        for (int i = 0; i < size; i++) {
            pass.visit(i);
        }
        this.count = pass.counted;
        this.limits = PoolLimits.of(desired.spec(), count);
        this.outdatedNodes = Collections.unmodifiableList(pass.outdated);
        this.outdatedIndices = pass.outdatedAtIndices.toArray();
        this.availableCount = pass.availableNodes;
        this.stampOrPropagate = pass.stampOrPropagateNodes.toArray();
        this.taintCandidates = pass.taintNodes.toArray();
        this.pendingCreation = pass.pendingNodes.toArray();
        this.inFlightNodes = pass.inFlightIndices.toArray();
        this.anyOutdated = pass.anyRoll;
        this.anyKubeletOutdated = pass.anyKubelet;
        this.anyKubeletRestart = pass.anyRestart;
        this.registeredNodesReady = pass.allReady;
        this.phaseInFlight = pass.pendingOrInFlight;
        this.updatesInFlight = pass.updates;
        this.canaryPassed = pass.canary;
        this.tally = new Tally(pass.updating, pass.current, pass.outdatedCount, pass.roll, pass.kubelet);
        this.nextTimer = Optional.ofNullable(pass.next);
    }

    /**
     * The one pass over the pool's nodes that answers what every later pass asks of each node and adds
     * up what the report counts: it reads the nodes' facts, not the nodes (a node is looked at only
     * when it is unhealthy or has a timer to come).
     */
    private final class NodePass {
        final List<ObservedNode> outdated = new ArrayList<>();
        final IndexList outdatedAtIndices = new IndexList();
        final IndexList stampOrPropagateNodes = new IndexList();
        final IndexList taintNodes = new IndexList();
        final IndexList pendingNodes = new IndexList();
        final IndexList inFlightIndices = new IndexList();
        final boolean bastion = bastion();
        final long nowNanos = NodeFacts.epochNanos(now);
        int counted;
        int availableNodes;
        boolean anyRoll;
        boolean anyKubelet;
        boolean anyRestart;
        boolean allReady = true;
        boolean pendingOrInFlight;
        long updates;
        boolean canary;
        int updating;
        int current;
        int outdatedCount;
        boolean roll;
        boolean kubelet;
        Instant next;

        void visit(int i) {
            NodeFacts f = facts[i];
            ObservedNode n = f.node;
            boolean partnerAlive = f.surgeFor != null && surgeByPartner.present(f.surgeFor, f.surgeForHash);
            livePartnerAt[i] = partnerAlive;
            if (!partnerAlive) {
                counted++;
            }
            boolean old = f.outdated;
            boolean sick = unhealthy(n);
            boolean failedNode = failed(n);
            if (old && !failedNode) {
                outdated.add(n);
                outdatedAtIndices.add(i);
            }
            boolean up = f.availableAt(now, nowNanos) && (bastion || !sick);
            availableAt[i] = up;
            if (up) {
                availableNodes++;
            }
            boolean staleKubelet = f.kubeletOutdated;
            alreadyDownAt[i] = f.downUnlessUnhealthy || (!bastion && sick);
            boolean flying = f.inFlight;
            boolean restart = f.kubeletRestart;
            anyRoll |= old;
            anyKubelet |= f.registered && staleKubelet;
            anyRestart |= restart;
            if (f.registered && !failedNode && !f.ready) {
                allReady = false;
            }
            pendingOrInFlight |= f.phaseInFlight;
            if (old ? flying : !up) {
                updates++;
            }
            canary |= !old && up && f.hasRollHash;
            if (!(partnerAlive && !up)) {
                if (flying || restart) {
                    updating++;
                }
                roll |= old;
                kubelet |= staleKubelet;
                if (old || staleKubelet) {
                    outdatedCount++;
                } else {
                    current++;
                }
            }
            if (f.stampOrPropagate) {
                stampOrPropagateNodes.add(i);
            }
            if (f.taintCandidate) {
                taintNodes.add(i);
            }
            if (f.pendingCreation) {
                pendingNodes.add(i);
            }
            if (flying) {
                inFlightIndices.add(i);
            }
            if (f.timerAfter(now, nowNanos) || sick) {
                next = earliest(next, timer(n));
            }
        }
    }

    /**
     * The earliest time after now at which this node changes by itself: minReadySeconds passing,
     * drain, in-place and kubelet-restart deadlines, an unhealthy node failing, a new node not
     * Ready leaving creationTimeout's care. Null if none.
     */
    private Instant timer(ObservedNode n) {
        Instant next = null;
        if (n.readySince().isPresent()) {
            next = later(n.readySince().get().plus(minReady));
        }
        if (n.draining()) {
            next = earliest(next, later(Drains.deadline(this, n)));
        }
        if (n.inPlaceStartedAt().isPresent()) {
            next = earliest(next, later(n.inPlaceStartedAt().get().plus(spec().machineControllerManager().inPlaceUpdateTimeout())));
        }
        if (n.kubeletRestartAt().isPresent()) {
            next = earliest(next, later(KubeletRestarts.unansweredUntil(this, n.kubeletRestartAt().get())));
        }
        Optional<NodeHealth> health = health(n);
        if (health.isPresent()) {
            next = earliest(next, Repairs.failsAt(this, health.get()).map(this::later).orElse(null));
        }
        if (n.registered() && !bastion()) {
            next = earliest(next, Repairs.creatingUntil(this, n).map(this::later).orElse(null));
        }
        return next;
    }

    private Instant later(Instant t) {
        return t.isAfter(now) ? t : null;
    }

    private static Instant earliest(Instant a, Instant b) {
        if (a == null) {
            return b;
        }
        return b == null || !b.isBefore(a) ? a : b;
    }

    /**
     * Names to node indices by open addressing, without an object per entry: built and asked for
     * every node of every plan. The first index put for a name stays; a name can be marked present
     * (some node of the pool has it).
     */
    private static final class NameIndex {
        private final String[] names;
        /** The names' hash codes: a name is compared only with those of its hash code. */
        private final int[] hashes;
        private final int[] indices;
        private final boolean[] present;
        private final int mask;
        private final int shift;

        NameIndex(int expected) {
            int capacity = Integer.highestOneBit(Math.max(2, expected) * 2) * 2;
            names = new String[capacity];
            hashes = new int[capacity];
            indices = new int[capacity];
            present = new boolean[capacity];
            mask = capacity - 1;
            shift = Integer.numberOfLeadingZeros(capacity) + 1;
        }

        private int slot(String name, int hash) {
            // Names like pool-1, pool-2 have consecutive hash codes: scattered (Fibonacci hashing), or
            // they would form one long run that every lookup of an absent name walks.
            int at = (hash * 0x9E3779B9) >>> shift;
            while (names[at] != null && (hashes[at] != hash || !names[at].equals(name))) {
                at = (at + 1) & mask;
            }
            return at;
        }

        /** {@code hash} is the name's hash code, given by who has it at hand. */
        void putIfAbsent(String name, int hash, int index) {
            int at = slot(name, hash);
            if (names[at] == null) {
                names[at] = name;
                hashes[at] = hash;
                indices[at] = index;
            }
        }

        /** The index put for the name, or -1. */
        int get(String name) {
            int at = slot(name, name.hashCode());
            return names[at] == null ? -1 : indices[at];
        }

        /** Marks the name present if it was put; says whether it was. */
        boolean markPresent(String name, int hash) {
            int at = slot(name, hash);
            if (names[at] == null) {
                return false;
            }
            present[at] = true;
            return true;
        }

        boolean present(String name, int hash) {
            int at = slot(name, hash);
            return names[at] != null && present[at];
        }
    }

    /** A growing list of node indices without boxing. */
    private static final class IndexList {
        private int[] items = new int[8];
        private int size;

        void add(int i) {
            if (size == items.length) {
                items = Arrays.copyOf(items, size * 2);
            }
            items[size++] = i;
        }

        int[] toArray() {
            return Arrays.copyOf(items, size);
        }
    }

    /** What the pool's report counts, a surge machine whose old node is still there and that is not available aside. */
    record Tally(int updating, int current, int outdated, boolean roll, boolean kubelet) {
    }

    Tally tally() {
        return tally;
    }

    /** The earliest time after now at which a node of the pool changes by itself; see {@link #timer}. */
    Optional<Instant> nextTimer() {
        return nextTimer;
    }

    boolean anyOutdated() {
        return anyOutdated;
    }

    /** Some registered node runs the desired roll hash but not the desired kubelet hash. */
    boolean anyKubeletOutdated() {
        return anyKubeletOutdated;
    }

    boolean anyInFlight() {
        return inFlightNodes.length > 0;
    }

    boolean anyKubeletRestart() {
        return anyKubeletRestart;
    }

    boolean registeredNodesReady() {
        return registeredNodesReady;
    }

    boolean phaseInFlight() {
        return phaseInFlight;
    }

    long updatesInFlight() {
        return updatesInFlight;
    }

    int[] stampOrPropagate() {
        return stampOrPropagate;
    }

    int[] taintCandidates() {
        return taintCandidates;
    }

    int[] pendingCreation() {
        return pendingCreation;
    }

    int[] inFlightNodes() {
        return inFlightNodes;
    }

    int[] outdatedIndices() {
        return outdatedIndices;
    }

    boolean registered(int i) {
        return facts[i].registered;
    }

    /** {@link #inFlight(ObservedNode)} of the node at {@code i}. */
    boolean inFlight(int i) {
        return facts[i].inFlight;
    }

    boolean draining(int i) {
        return facts[i].draining;
    }

    boolean updateTainted(int i) {
        return facts[i].updateTainted;
    }

    boolean inPlaceFailed(int i) {
        return facts[i].inPlaceFailed;
    }

    int removalOrder(int i) {
        return facts[i].removalOrder;
    }

    boolean kubeletOutdated(int i) {
        return facts[i].kubeletOutdated;
    }

    /** Some surge machine stands in for the node at {@code i}. */
    boolean partnered(int i) {
        return partneredAt[i];
    }

    boolean alreadyDown(int i) {
        return alreadyDownAt[i];
    }

    /** Some node has failed (unhealthy for healthTimeout): there is something to repair. */
    boolean anyFailed() {
        return !failed.isEmpty();
    }

    /** {@link #outdated(ObservedNode)} of the node at {@code i} in {@link #nodes()}. */
    boolean outdated(int i) {
        return facts[i].outdated;
    }

    /** {@link #available(ObservedNode)} of the node at {@code i} in {@link #nodes()}. */
    boolean available(int i) {
        return availableAt[i];
    }

    /** {@link #hasLivePartner(ObservedNode)} of the node at {@code i} in {@link #nodes()}. */
    boolean hasLivePartner(int i) {
        return livePartnerAt[i];
    }

    /** The pool's node of that name, if it has one (terminating machines aside). */
    Optional<ObservedNode> node(String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst();
    }

    Set<String> watchedConditions() {
        return watchedConditions;
    }

    boolean controlPlane() {
        return spec().role() == PoolRole.CONTROL_PLANE;
    }

    /** Unhealthy now (Ready not True, or a watched condition True): such a node counts as unavailable. */
    boolean unhealthy(ObservedNode n) {
        return !unhealthy.isEmpty() && unhealthy.containsKey(n.name());
    }

    /** Unhealthy for healthTimeout without interruption, in a pool that does not disable it: to be repaired. */
    boolean failed(ObservedNode n) {
        return !failed.isEmpty() && failed.contains(n.name());
    }

    Optional<NodeHealth> health(ObservedNode n) {
        return unhealthy.isEmpty() ? Optional.empty() : Optional.ofNullable(unhealthy.get(n.name()));
    }

    /** Every unhealthy node, failed or not, by name. */
    List<NodeHealth> unhealthyNodes() {
        return unhealthy.isEmpty() ? List.of() : List.copyOf(unhealthy.values());
    }

    List<NodeHealth> failedNodes() {
        return failed.isEmpty() ? List.of() : unhealthy.values().stream().filter(h -> failed.contains(h.node())).toList();
    }

    DesiredPool desired() {
        return desired;
    }

    WorkerPoolSpec spec() {
        return desired.spec().pool();
    }

    Instant now() {
        return now;
    }

    List<ObservedNode> nodes() {
        return nodes;
    }

    boolean bastion() {
        return spec().role() == PoolRole.BASTION;
    }

    /** Every machine counts once, except a surge machine whose old partner still exists. */
    int count() {
        return count;
    }

    /**
     * Every machine that exists: the pool's nodes and machines, and those being deleted, which still
     * exist until they are gone (a Cluster API Machine can take minutes to go once its deletion
     * started). What {@code count + maxSurge} bounds.
     */
    int existingMachines() {
        return nodes.size() + terminating;
    }

    boolean hasLivePartner(ObservedNode n) {
        return n.surgeFor().isPresent() && surgeByPartner.present(n.surgeFor().get(), n.surgeFor().get().hashCode());
    }

    Optional<ObservedNode> surgePartnerOf(ObservedNode old) {
        int surge = surgeByPartner.get(old.name());
        return surge < 0 ? Optional.empty() : Optional.of(nodes.get(surge));
    }

    /** The pool's limits resolved against {@link #count()}. */
    PoolLimits limits() {
        return limits;
    }

    int maxSurge() {
        return limits.maxSurge();
    }

    int maxUnavailable() {
        return limits.maxUnavailable();
    }

    Duration minReady() {
        return minReady;
    }

    /** Bastions never register: for them, available means the provider reports the machine running. */
    boolean available(ObservedNode n) {
        if (bastion()) {
            return !n.terminating() && n.readySince().filter(since -> !since.plus(minReady()).isAfter(now)).isPresent();
        }
        return n.available(now, minReady()) && !unhealthy(n);
    }

    /**
     * Down for a reason that lasts: NotReady, unhealthy, or cordoned by someone else. Replacing such a node
     * costs no unavailability budget. A Ready node still inside minReadySeconds is warming up, not
     * down: disrupting it would keep it unavailable after it would have counted again.
     */
    boolean alreadyDown(ObservedNode n) {
        if (bastion()) {
            return !n.ready();
        }
        return !n.ready() || unhealthy(n) || (n.cordoned() && !inFlight(n));
    }

    int availableCount() {
        return availableCount;
    }

    /** Not at the desired roll hash, or marked needs-update: {@link DesiredPool#outdated}. */
    boolean outdated(ObservedNode n) {
        return desired.outdated(n);
    }

    /** Stamped with a roll hash that is not the desired one: {@link DesiredPool#hashOutdated}. */
    boolean hashOutdated(ObservedNode n) {
        return desired.hashOutdated(n);
    }

    boolean needsStamp(ObservedNode n) {
        return needsStamp(desired, bastion(), n);
    }

    static boolean needsStamp(DesiredPool desired, boolean bastion, ObservedNode n) {
        if (n.rollHash().isEmpty()) {
            return n.registered() || bastion;
        }
        // A bastion runs no kubelet: a kubelet-only change has nothing to restart, and its machine
        // takes the new kubelet hash at once (otherwise it would count as outdated forever).
        if (bastion && desired.kubeletOutdated(n)) {
            return true;
        }
        // A stamp of the desired hash version is current or outdated, never to be re-stamped: only another version is matched.
        StampedHash roll = n.rollHash().get();
        if (roll.version() != desired.rollHash().version() && desired.rollMatch(roll) == StampMatch.RESTAMP) {
            return true;
        }
        StampedHash kubelet = n.kubeletHash().orElse(null);
        return kubelet != null && kubelet.version() != desired.kubeletHash().version()
                && desired.kubeletMatch(kubelet) == StampMatch.RESTAMP;
    }

    /** Runs the desired roll hash (or has no hash yet and is being adopted). */
    boolean current(ObservedNode n) {
        return !outdated(n);
    }

    boolean kubeletOutdated(ObservedNode n) {
        return desired.kubeletOutdated(n);
    }

    /** The outdated nodes the update strategy handles: failed ones are repaired instead. */
    List<ObservedNode> outdatedNodes() {
        return outdatedNodes;
    }

    /** Some node runs the desired spec and is available: the canary has passed. */
    boolean canaryPassed() {
        return canaryPassed;
    }

    /** Nightshift cordoned it to drain it, or is updating it in place. */
    static boolean inFlight(ObservedNode n) {
        return n.draining() || n.updatingInPlace();
    }
}
