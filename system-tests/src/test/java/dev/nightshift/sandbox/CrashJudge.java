package dev.nightshift.sandbox;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The crash test's verdict on a rollout, from the sandbox's two logs (what the machine-API cloud
 * did and was asked) and the node events a watch of the test saw (what the cluster saw); never
 * from the agent's bookkeeping. Each check returns the violations it found, empty when none, so
 * that a failure names every one of them, and so that a hand-made log can show each check fails.
 */
final class CrashJudge {

    /** A pool's limits as the spec resolves them. */
    record PoolLimits(String pool, int count, int maxSurge, int maxUnavailable) {
    }

    private final Map<String, PoolLimits> pools;

    CrashJudge(List<PoolLimits> pools) {
        Map<String, PoolLimits> byName = new LinkedHashMap<>();
        pools.forEach(p -> byName.put(p.pool(), p));
        this.pools = Map.copyOf(byName);
    }

    /** Every violation of every check, each a line naming what, where and when. */
    List<String> violations(List<MachineApiLogs.Request> requests, List<MachineApiLogs.MachineEvent> machines, List<NodeEvent> nodes) {
        List<String> violations = new ArrayList<>();
        violations.addAll(nodesDrainedTwice(nodes));
        violations.addAll(keysWithSecondMachine(requests, machines));
        violations.addAll(replacementsNotOne(machines));
        violations.addAll(machinesBeyondSurge(machines));
        violations.addAll(availableBelowLimit(nodes, machines));
        return violations;
    }

    /**
     * No node drained twice: per node at most one cordon ({@code spec.unschedulable} false to true,
     * or added cordoned) and at most one value of {@code drain-started-at} ever set (a drain resumed
     * after a crash keeps its mark; a new value would be a second drain, or one started over).
     */
    List<String> nodesDrainedTwice(List<NodeEvent> events) {
        Map<String, Boolean> cordoned = new HashMap<>();
        Map<String, Integer> cordons = new TreeMap<>();
        Map<String, Set<String>> drainMarks = new TreeMap<>();
        for (NodeEvent e : events) {
            if (e.type() == NodeEvent.Type.DELETED) {
                cordoned.remove(e.node());
                continue;
            }
            boolean was = cordoned.getOrDefault(e.node(), false);
            if (e.unschedulable() && !was) {
                cordons.merge(e.node(), 1, Integer::sum);
            }
            cordoned.put(e.node(), e.unschedulable());
            if (e.drainStartedAt() != null) {
                drainMarks.computeIfAbsent(e.node(), n -> new LinkedHashSet<>()).add(e.drainStartedAt());
            }
        }
        List<String> violations = new ArrayList<>();
        cordons.forEach((node, n) -> {
            if (n > 1) {
                violations.add("node " + node + " was cordoned " + n + " times (drained twice)");
            }
        });
        drainMarks.forEach((node, marks) -> {
            if (marks.size() > 1) {
                violations.add("node " + node + " had its drain started " + marks.size() + " times: drain-started-at " + marks);
            }
        });
        return violations;
    }

    /**
     * No request made a second machine: every idempotency key (the request log's and the machine
     * log's) names at most one machine the cloud created.
     */
    List<String> keysWithSecondMachine(List<MachineApiLogs.Request> requests, List<MachineApiLogs.MachineEvent> machines) {
        Map<String, Set<String>> made = new TreeMap<>();
        requests.stream().map(MachineApiLogs.Request::idempotencyKey).filter(k -> k != null)
                .forEach(k -> made.computeIfAbsent(k, x -> new TreeSet<>()));
        machines.stream().filter(m -> m.event().equals("created") && m.idempotencyKey() != null)
                .forEach(m -> made.computeIfAbsent(m.idempotencyKey(), x -> new TreeSet<>()).add(m.machine()));
        List<String> violations = new ArrayList<>();
        made.forEach((key, ids) -> {
            if (ids.size() > 1) {
                violations.add("Idempotency-Key " + key + " created " + ids.size() + " machines: " + ids);
            }
        });
        return violations;
    }

    /**
     * A machine as a listing of the machine API showed it: its surge partner ({@code nightshift.dev/surge-for}) and roll
     * hash from its record, null when it has none.
     */
    record ListedMachine(String machine, String surgeFor, String rollHash) {
    }

    /**
     * No surge machine made twice: at most one machine ever listed per surge partner and target roll hash. A create sent
     * again after its answer was lost, or by a new agent after a crash, must find the first machine (its idempotency key),
     * never make a second one for the same partner.
     */
    List<String> surgeMachinesMadeTwice(java.util.Collection<ListedMachine> listed) {
        Map<String, Set<String>> byPartner = new TreeMap<>();
        listed.stream().filter(m -> m.surgeFor() != null).forEach(m -> byPartner.computeIfAbsent(m.surgeFor() + " at roll hash "
                + m.rollHash(), k -> new TreeSet<>()).add(m.machine()));
        List<String> violations = new ArrayList<>();
        byPartner.forEach((partner, machines) -> {
            if (machines.size() > 1) {
                violations.add("surge partner " + partner + " got " + machines.size() + " machines: " + machines);
            }
        });
        return violations;
    }

    /** Each replaced machine has exactly one replacement, and each replacement replaces a machine that was replaced. */
    List<String> replacementsNotOne(List<MachineApiLogs.MachineEvent> machines) {
        Map<String, List<String>> replacements = new TreeMap<>();
        Set<String> replaced = new TreeSet<>();
        for (MachineApiLogs.MachineEvent m : machines) {
            if (m.event().equals("replaced")) {
                replaced.add(m.machine());
                replacements.computeIfAbsent(m.machine(), x -> new ArrayList<>());
            } else if (m.event().equals("created") && m.replaces() != null) {
                replacements.computeIfAbsent(m.replaces(), x -> new ArrayList<>()).add(m.machine());
            }
        }
        List<String> violations = new ArrayList<>();
        replacements.forEach((old, news) -> {
            if (!replaced.contains(old)) {
                violations.add("machines " + news + " replace " + old + ", which was never replaced");
            } else if (news.size() != 1) {
                violations.add("machine " + old + " was replaced by " + news.size() + " machines: " + news);
            }
        });
        return violations;
    }

    /**
     * Never more than count + maxSurge machines of a pool that are not being deleted, replaying
     * the machine log in order: seeded and created machines count until deleting, replaced (from the
     * creation of their replacement, the same operation) or gone;
     * a failed machine still counts (it takes the pool's room until deleted).
     */
    List<String> machinesBeyondSurge(List<MachineApiLogs.MachineEvent> machines) {
        Map<String, Set<String>> live = new HashMap<>();
        List<String> violations = new ArrayList<>();
        for (MachineApiLogs.MachineEvent m : machines) {
            Set<String> pool = live.computeIfAbsent(m.pool(), p -> new TreeSet<>());
            switch (m.event()) {
                case "seeded" -> pool.add(m.machine());
                case "created" -> {
                    pool.add(m.machine());
                    // A replace is one operation under the cloud's lock: its log says "created" (the new
                    // machine) a line before "replaced" (the old one), but the old one is deleting already.
                    if (m.replaces() != null) {
                        pool.remove(m.replaces());
                    }
                }
                case "deleting", "replaced", "gone" -> pool.remove(m.machine());
                default -> {
                    // registered, updated, failed, patched: the machine still counts as it did
                }
            }
            PoolLimits limits = pools.get(m.pool());
            if (limits != null && pool.size() > limits.count() + limits.maxSurge()) {
                violations.add("pool " + m.pool() + " had " + pool.size() + " machines not being deleted (limit "
                        + (limits.count() + limits.maxSurge()) + ") after machine-log line " + m.sequence() + " (" + m.event() + " "
                        + m.machine() + "): " + pool);
            }
        }
        return violations;
    }

    /**
     * Never more than count + maxSurge Machine objects of the pool's MachineDeployment at once, replaying the watched
     * Machine events in order: a Machine counts from its creation until it is gone (one being deleted still takes its
     * place, as Cluster API's own rollouts count it). The first excess is named, with the Machines then.
     */
    List<String> machineObjectsBeyondSurge(String deployment, String pool, List<ClusterApiWatch.MachineEvent> events) {
        PoolLimits limits = pools.get(pool);
        Set<String> present = new TreeSet<>();
        for (ClusterApiWatch.MachineEvent e : events) {
            if (!deployment.equals(e.deployment())) {
                continue;
            }
            if (e.type() == NodeEvent.Type.DELETED) {
                present.remove(e.machine());
            } else {
                present.add(e.machine());
            }
            if (limits != null && present.size() > limits.count() + limits.maxSurge()) {
                return List.of(deployment + " had " + present.size() + " Machines (at most " + (limits.count() + limits.maxSurge())
                        + ") after watched event " + e.line() + ": " + present);
            }
        }
        return List.of();
    }

    /**
     * Never fewer than count − maxUnavailable available nodes (Ready and not cordoned) in a pool,
     * replaying the watched node events; judged once the pool first had count available nodes (the
     * watch's first list arrives node by node). A node belongs to the pool its
     * {@code nightshift.dev/pool} label names, or else to its machine's pool in the machine log.
     */
    List<String> availableBelowLimit(List<NodeEvent> events, List<MachineApiLogs.MachineEvent> machines) {
        Map<String, String> poolOfNode = new HashMap<>();
        machines.stream().filter(m -> m.nodeName() != null).forEach(m -> poolOfNode.putIfAbsent(m.nodeName(), m.pool()));
        Map<String, NodeEvent> current = new HashMap<>();
        Set<String> whole = new TreeSet<>();
        Map<String, String> reported = new TreeMap<>();
        for (NodeEvent e : events) {
            if (e.type() == NodeEvent.Type.DELETED) {
                current.remove(e.node());
            } else {
                current.put(e.node(), e);
            }
            for (PoolLimits limits : pools.values()) {
                List<String> available = current.values().stream()
                        .filter(n -> limits.pool().equals(Optional.ofNullable(n.pool()).orElse(poolOfNode.get(n.node()))))
                        .filter(n -> n.ready() && !n.unschedulable()).map(NodeEvent::node).sorted().toList();
                if (available.size() >= limits.count()) {
                    whole.add(limits.pool());
                }
                int least = limits.count() - limits.maxUnavailable();
                if (whole.contains(limits.pool()) && available.size() < least && !reported.containsKey(limits.pool())) {
                    reported.put(limits.pool(), "pool " + limits.pool() + " had " + available.size() + " available nodes (at least "
                            + least + " required) after watched event " + e.sequence() + " (" + e.type() + " " + e.node() + "): "
                            + available);
                }
            }
        }
        return List.copyOf(reported.values());
    }
}
