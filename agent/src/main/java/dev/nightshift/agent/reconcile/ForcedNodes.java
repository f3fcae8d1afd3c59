package dev.nightshift.agent.reconcile;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;

/**
 * {@code nightshift rolling-update --force} (kops' {@code --force}): the machines that are current when the run starts are
 * updated too. Done on the observation, not in the planner: each such machine is shown to the planner stamped with a
 * roll hash that is not the desired one, so that the pure planner's API and rules stay as they are and the update goes
 * through exactly the strategy, limits, guard and drains of any outdated node. Nothing is written for it: the real
 * marks on the nodes stay, so a run stopped half way leaves the agent nothing to take over (unlike a needs-update label).
 *
 * <p>Forced are the machines current at the first observation, by name; a replaced machine's successor has another
 * name and is current. A machine whose node registered but does not carry the pool label yet is observed under the
 * machine's name, and under its node's once the pass has labelled it: the name it is forced under follows it (else the
 * machine would drop out of the forced set, and a run after {@code --cloudonly}, whose nodes nobody labelled, would end
 * at once with nothing updated). A machine updated in place keeps its name: it stays forced until its update is seen
 * started and then finished. Kept by one run only (not thread-safe: the pass's thread).
 */
final class ForcedNodes {

    /** Never a real roll hash: hashes are hex. */
    static final String FORCED = "forced-by-rolling-update";

    private Set<String> forced;
    private final Set<String> updatingInPlace = new HashSet<>();

    /** The observation with the forced machines shown outdated; {@code machineNodes}: each machine's node, by machine name. */
    ObservedCluster apply(DesiredCluster desired, ObservedCluster observed, Map<String, String> machineNodes) {
        Map<String, DesiredPool> pools = desired.pools().stream().collect(Collectors.toMap(DesiredPool::name, p -> p));
        if (forced == null) {
            forced = observed.nodes().stream().filter(n -> pools.containsKey(n.pool()) && n.rollHash().isPresent()
                    && !pools.get(n.pool()).outdated(n)).map(ObservedNode::name).collect(Collectors.toCollection(HashSet::new));
        }
        Set<String> present = observed.nodes().stream().map(ObservedNode::name).collect(Collectors.toSet());
        // A machine observed under its own name before, under its node's now.
        for (String name : Set.copyOf(forced)) {
            String node = machineNodes.get(name);
            if (!present.contains(name) && node != null && present.contains(node)) {
                forced.remove(name);
                forced.add(node);
            }
        }
        forced.retainAll(present);
        for (ObservedNode n : observed.nodes()) {
            if (!forced.contains(n.name())) {
                continue;
            }
            if (n.inPlaceStartedAt().isPresent()) {
                updatingInPlace.add(n.name());
            } else if (updatingInPlace.remove(n.name())) {
                // Its in-place update started and finished since: it runs the desired spec anew.
                forced.remove(n.name());
            }
        }
        if (forced.isEmpty()) {
            return observed;
        }
        List<ObservedNode> nodes = observed.nodes().stream().map(n -> forced.contains(n.name()) && pools.containsKey(n.pool())
                ? outdated(n, pools.get(n.pool())) : n).toList();
        return observed.withNodes(nodes);
    }

    /** Machines still to be forced. */
    int left() {
        return forced == null ? 0 : forced.size();
    }

    private static ObservedNode outdated(ObservedNode n, DesiredPool pool) {
        return new ObservedNode(n.name(), n.pool(), Optional.of(new StampedHash(pool.rollHash().version(), FORCED)), n.kubeletHash(),
                n.registered(), n.readySince(), n.cordoned(), n.updateTainted(), n.drainStartedAt(), n.drained(), n.blockedEvictions(),
                n.needsUpdate(), n.candidateForUpdate(), n.selectedForUpdate(), n.surgeFor(), n.inPlaceStartedAt(), n.inPlaceFailed(),
                n.kubeletRestartAt(), n.terminating(), n.createdAt(), n.managedLabels(), n.managedTaints(), n.managedAnnotations(),
                n.conditions(), n.removalOrder());
    }
}
