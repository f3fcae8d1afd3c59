package dev.nightshift.strategies.model;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.model.Taint;

/**
 * A machine of a pool as observed now: a registered Kubernetes node, or a machine the provider
 * created that has not registered yet. Everything a timer needs (drain start, in-place start) is
 * part of it, written to the cluster as annotations, so that a restarted planner resumes every
 * timer where it was.
 *
 * @param rollHash          the roll hash the node runs; empty for a node Nightshift never stamped
 * @param registered        false for a machine that never became a node
 * @param readySince        when the node last became Ready; empty when not Ready
 * @param updateTainted     carries Nightshift's PreferNoSchedule "selected for update" taint
 * @param drainStartedAt    when Nightshift started draining it
 * @param drained           no evictable pod is left on it
 * @param surgeFor          the old node this machine was created to replace
 * @param inPlaceStartedAt  when an in-place update or kubelet restart started on it
 * @param kubeletRestartAt  when Nightshift asked for a kubelet restart still pending on it
 * @param terminating       its machine is being deleted
 * @param createdAt         when the machine was created (for creationTimeout)
 * @param managedLabels     the labels Nightshift set on it (only those are ever changed or removed)
 * @param managedTaints     the spec taints Nightshift set on it
 * @param managedAnnotations the annotations Nightshift set on it, with their values on the node now
 *                          (only those are ever changed or removed)
 * @param conditions        the node's status conditions (empty for a machine that never registered)
 * @param removalOrder      the order in which the machine provider lets old machines leave the pool
 *                          when it shrinks, lower first (Cluster API: the oldest old MachineSet
 *                          first); 0 where any order will do
 */
public record ObservedNode(
        String name,
        String pool,
        Optional<StampedHash> rollHash,
        Optional<StampedHash> kubeletHash,
        boolean registered,
        Optional<Instant> readySince,
        boolean cordoned,
        boolean updateTainted,
        Optional<Instant> drainStartedAt,
        boolean drained,
        List<BlockedEviction> blockedEvictions,
        boolean needsUpdate,
        boolean candidateForUpdate,
        boolean selectedForUpdate,
        Optional<String> surgeFor,
        Optional<Instant> inPlaceStartedAt,
        boolean inPlaceFailed,
        Optional<Instant> kubeletRestartAt,
        boolean terminating,
        Optional<Instant> createdAt,
        Map<String, String> managedLabels,
        List<Taint> managedTaints,
        Map<String, String> managedAnnotations,
        List<NodeCondition> conditions,
        int removalOrder) {

    public ObservedNode {
        conditions = List.copyOf(conditions);
        blockedEvictions = List.copyOf(blockedEvictions);
        managedLabels = Map.copyOf(managedLabels);
        managedTaints = List.copyOf(managedTaints);
        managedAnnotations = Map.copyOf(managedAnnotations);
    }

    public boolean ready() {
        return readySince.isPresent();
    }

    public boolean draining() {
        return drainStartedAt.isPresent();
    }

    public boolean updatingInPlace() {
        return inPlaceStartedAt.isPresent();
    }

    /**
     * Ready for at least minReadySeconds and not cordoned, draining or being updated: a node that
     * carries its share of the load.
     */
    public boolean available(Instant now, Duration minReady) {
        return registered && !terminating && !cordoned && !draining() && !updatingInPlace()
                && readySince.filter(since -> !since.plus(minReady).isAfter(now)).isPresent();
    }

    /** A fresh, Ready, unstamped node: what a cluster has before Nightshift is installed. */
    public static ObservedNode ready(String name, String pool, Instant since) {
        return new ObservedNode(name, pool, Optional.empty(), Optional.empty(), true, Optional.of(since), false, false,
                Optional.empty(), false, List.of(), false, false, false, Optional.empty(), Optional.empty(), false, Optional.empty(), false, Optional.of(since), Map.of(), List.of(),
                Map.of(), List.of(), 0);
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Copies with a few fields changed; used by the simulator and tests, never to mutate. */
    public static final class Builder {
        private String name;
        private String pool;
        private Optional<StampedHash> rollHash;
        private Optional<StampedHash> kubeletHash;
        private boolean registered;
        private Optional<Instant> readySince;
        private boolean cordoned;
        private boolean updateTainted;
        private Optional<Instant> drainStartedAt;
        private boolean drained;
        private List<BlockedEviction> blockedEvictions;
        private boolean needsUpdate;
        private boolean candidateForUpdate;
        private boolean selectedForUpdate;
        private Optional<String> surgeFor;
        private Optional<Instant> inPlaceStartedAt;
        private boolean inPlaceFailed;
        private Optional<Instant> kubeletRestartAt;
        private boolean terminating;
        private Optional<Instant> createdAt;
        private Map<String, String> managedLabels;
        private List<Taint> managedTaints;
        private Map<String, String> managedAnnotations;
        private List<NodeCondition> conditions;
        private int removalOrder;

        private Builder(ObservedNode n) {
            name = n.name;
            pool = n.pool;
            rollHash = n.rollHash;
            kubeletHash = n.kubeletHash;
            registered = n.registered;
            readySince = n.readySince;
            cordoned = n.cordoned;
            updateTainted = n.updateTainted;
            drainStartedAt = n.drainStartedAt;
            drained = n.drained;
            blockedEvictions = n.blockedEvictions;
            needsUpdate = n.needsUpdate;
            candidateForUpdate = n.candidateForUpdate;
            selectedForUpdate = n.selectedForUpdate;
            surgeFor = n.surgeFor;
            inPlaceStartedAt = n.inPlaceStartedAt;
            inPlaceFailed = n.inPlaceFailed;
            kubeletRestartAt = n.kubeletRestartAt;
            terminating = n.terminating;
            createdAt = n.createdAt;
            managedLabels = n.managedLabels;
            managedTaints = n.managedTaints;
            managedAnnotations = n.managedAnnotations;
            conditions = n.conditions;
            removalOrder = n.removalOrder;
        }

        public Builder name(String v) { name = v; return this; }
        public Builder rollHash(StampedHash v) { rollHash = Optional.ofNullable(v); return this; }
        public Builder kubeletHash(StampedHash v) { kubeletHash = Optional.ofNullable(v); return this; }
        public Builder registered(boolean v) { registered = v; return this; }
        public Builder readySince(Instant v) { readySince = Optional.ofNullable(v); return this; }
        public Builder cordoned(boolean v) { cordoned = v; return this; }
        public Builder updateTainted(boolean v) { updateTainted = v; return this; }
        public Builder drainStartedAt(Instant v) { drainStartedAt = Optional.ofNullable(v); return this; }
        public Builder drained(boolean v) { drained = v; return this; }
        public Builder blockedEvictions(List<BlockedEviction> v) { blockedEvictions = v; return this; }
        public Builder needsUpdate(boolean v) { needsUpdate = v; return this; }
        public Builder candidateForUpdate(boolean v) { candidateForUpdate = v; return this; }
        public Builder selectedForUpdate(boolean v) { selectedForUpdate = v; return this; }
        public Builder surgeFor(String v) { surgeFor = Optional.ofNullable(v); return this; }
        public Builder inPlaceStartedAt(Instant v) { inPlaceStartedAt = Optional.ofNullable(v); return this; }
        public Builder inPlaceFailed(boolean v) { inPlaceFailed = v; return this; }
        public Builder kubeletRestartAt(Instant v) { kubeletRestartAt = Optional.ofNullable(v); return this; }
        public Builder terminating(boolean v) { terminating = v; return this; }
        public Builder createdAt(Instant v) { createdAt = Optional.ofNullable(v); return this; }
        public Builder managedLabels(Map<String, String> v) { managedLabels = v; return this; }
        public Builder managedTaints(List<Taint> v) { managedTaints = v; return this; }
        public Builder managedAnnotations(Map<String, String> v) { managedAnnotations = v; return this; }
        public Builder conditions(List<NodeCondition> v) { conditions = v; return this; }
        public Builder removalOrder(int v) { removalOrder = v; return this; }

        public ObservedNode build() {
            return new ObservedNode(name, pool, rollHash, kubeletHash, registered, readySince, cordoned, updateTainted,
                    drainStartedAt, drained, blockedEvictions, needsUpdate, candidateForUpdate, selectedForUpdate, surgeFor,
                    inPlaceStartedAt, inPlaceFailed, kubeletRestartAt, terminating, createdAt, managedLabels, managedTaints,
                    managedAnnotations, conditions, removalOrder);
        }
    }
}
