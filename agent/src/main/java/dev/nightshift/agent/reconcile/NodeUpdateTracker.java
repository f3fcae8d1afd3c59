package dev.nightshift.agent.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;

/**
 * Tells which node updates and drains finished, from what the cluster shows and the steps carried
 * out, so that durations come from the timestamps the agent writes on nodes and survive a restart.
 *
 * <ul>
 *   <li>roll: ends when the outdated node's machine is deleted; starts at the creation of its surge
 *       machine, else at its drain start. A surge machine deleted without ever becoming Ready is a
 *       failed roll.</li>
 *   <li>in place: ends when the node carries a new roll hash (success) or is marked failed; starts at
 *       the in-place start written on the node.</li>
 *   <li>kubelet restart: ends when the node carries the new kubelet hash (success) or is marked failed
 *       (the node updater reported it failed); starts at the restart time written on the node.</li>
 * </ul>
 * In-place and kubelet updates are seen as changes between two observations, so the first reconcile
 * after a start only takes a baseline.
 *
 * <p>Machine creations are timed from the machine's creation (as the provider reported it while
 * the machine had no node yet; else the node's creation) to its node's Ready, for machines created
 * since the tracker's first observation and not seen Ready before: a node that was Ready once and
 * comes back after a reboot is not a creation, and a machine created before the agent watched may
 * have been created by someone else.
 */
final class NodeUpdateTracker {

    /** What finished in one reconcile. */
    record Finished(List<NodeUpdate> updates, List<FinishedDrain> drains, List<FinishedCreation> creations) {
    }

    private Map<String, ObservedNode> previous = Map.of();
    /**
     * Nodes whose roll or drain was already counted: the planner repeats a deletion or an in-place
     * start until the cache shows its effect, and each counts once.
     */
    private final Set<String> rollCounted = new HashSet<>();
    private final Set<String> drainCounted = new HashSet<>();
    /** Nodes seen Ready (or whose creation was counted): a later Ready is a recovery, not a creation. */
    private final Set<String> seenReady = new HashSet<>();
    /** When each machine seen without a node yet was created, by name: its node's own creation comes later. */
    private final Map<String, Instant> machineCreated = new HashMap<>();
    /** The first observation: machines created before it are not timed. */
    private Instant watchingSince;

    /**
     * @param observed what this reconcile planned from
     * @param executed the steps carried out, in order
     */
    Finished track(DesiredCluster desired, ObservedCluster observed, List<Step> executed, Instant now) {
        Map<String, ObservedNode> byName = new HashMap<>();
        observed.nodes().forEach(n -> byName.put(n.name(), n));
        List<NodeUpdate> updates = new ArrayList<>();
        List<FinishedDrain> drains = new ArrayList<>();
        List<FinishedCreation> creations = new ArrayList<>();
        if (watchingSince == null) {
            watchingSince = now;
        }
        for (ObservedNode n : observed.nodes()) {
            ObservedNode before = previous.get(n.name());
            if (!n.registered()) {
                n.createdAt().ifPresent(c -> machineCreated.putIfAbsent(n.name(), c));
            }
            Optional<Instant> created = Optional.ofNullable(machineCreated.get(n.name())).or(n::createdAt);
            if (n.ready() && n.registered() && seenReady.add(n.name()) && (before == null || !before.ready())
                    && created.filter(c -> !c.isBefore(watchingSince)).isPresent()) {
                creations.add(new FinishedCreation(n.pool(), n.name(),
                        nonNegative(Duration.between(created.get(), n.readySince().orElse(now)))));
            }
            if (before == null) {
                continue;
            }
            if (before.inPlaceStartedAt().isPresent() && !before.inPlaceFailed()) {
                if (n.inPlaceFailed()) {
                    updates.add(update(n, NodeUpdate.Kind.IN_PLACE, false, before.inPlaceStartedAt().get(), now));
                } else if (!n.rollHash().equals(before.rollHash())) {
                    updates.add(update(n, NodeUpdate.Kind.IN_PLACE, true, before.inPlaceStartedAt().get(), now));
                }
            } else if (before.kubeletRestartAt().isPresent() && !before.inPlaceFailed() && n.inPlaceFailed()) {
                updates.add(update(n, NodeUpdate.Kind.KUBELET_RESTART, false, before.kubeletRestartAt().get(), now));
            } else if (before.kubeletRestartAt().isPresent() && !n.kubeletHash().equals(before.kubeletHash())) {
                updates.add(update(n, NodeUpdate.Kind.KUBELET_RESTART, true, before.kubeletRestartAt().get(), now));
            }
        }
        for (Step step : executed) {
            ObservedNode n = byName.get(step.target());
            if (n == null) {
                continue;
            }
            if (step instanceof Step.DeleteMachine && rollCounted.add(n.name())) {
                if (outdated(desired, n)) {
                    Optional<Instant> surge = observed.nodes().stream().filter(s -> s.surgeFor().filter(n.name()::equals).isPresent())
                            .map(ObservedNode::createdAt).flatMap(Optional::stream).findFirst();
                    updates.add(update(n, NodeUpdate.Kind.ROLL, true, surge.or(n::drainStartedAt).orElse(now), now));
                } else if (n.surgeFor().isPresent() && n.readySince().isEmpty()) {
                    updates.add(update(n, NodeUpdate.Kind.ROLL, false, n.createdAt().orElse(now), now));
                }
            }
            if ((step instanceof Step.DeleteMachine || (step instanceof Step.UpdateInPlace && n.inPlaceStartedAt().isEmpty()))
                    && n.drainStartedAt().isPresent() && drainCounted.add(n.name())) {
                drains.add(new FinishedDrain(n.pool(), n.name(), nonNegative(Duration.between(n.drainStartedAt().get(), now))));
            }
        }
        previous = byName;
        rollCounted.retainAll(byName.keySet());
        // A drain ends for good when its mark is cleared; the node's next drain counts again.
        drainCounted.removeIf(name -> !byName.containsKey(name) || byName.get(name).drainStartedAt().isEmpty());
        seenReady.retainAll(byName.keySet());
        machineCreated.keySet().retainAll(byName.keySet());
        observed.nodes().stream().filter(ObservedNode::ready).forEach(n -> seenReady.add(n.name()));
        return new Finished(updates, drains, creations);
    }

    /** Outdated as the planner means it ({@link DesiredPool#outdated}); a node of a pool no longer desired only by its mark. */
    private static boolean outdated(DesiredCluster desired, ObservedNode n) {
        return desired.pools().stream().filter(p -> p.name().equals(n.pool())).findFirst()
                .map(p -> p.outdated(n)).orElse(n.needsUpdate());
    }

    private static NodeUpdate update(ObservedNode n, NodeUpdate.Kind kind, boolean succeeded, Instant start, Instant now) {
        return new NodeUpdate(n.pool(), n.name(), kind, succeeded, nonNegative(Duration.between(start, now)));
    }

    private static Duration nonNegative(Duration d) {
        return d.isNegative() ? Duration.ZERO : d;
    }
}
