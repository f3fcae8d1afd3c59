package dev.nightshift.strategies.sim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Test helper: replays a simulator timeline on its own, from the event semantics stated in the
 * issue, without any planner or simulator code, and measures what the planner must never exceed.
 *
 * <ul>
 *   <li>The initial nodes {@code <pool>-1..N} exist and are Ready since t = 0. With minReadySeconds m &gt; 0
 *       they are unavailable until t = m by definition, so the unavailable limit is checked from t = m on
 *       (a node disrupted before then is still counted once the others become available).</li>
 *   <li>CREATE adds a machine, not Ready until its READY; UPDATE_IN_PLACE makes a node not Ready
 *       until its next READY; CORDON / DRAIN make it unavailable until UNCORDON or DELETE.</li>
 *   <li>count: every machine once, except a surge machine whose partner still exists.</li>
 *   <li>available: Ready for at least minReadySeconds and not cordoned, draining or updating in place.</li>
 *   <li>Limits are resolved against count at each instant: surge percentages round up,
 *       unavailable ones down, and 0/0 becomes maxUnavailable 1.</li>
 *   <li>UNHEALTHY: the node fell ill by itself (a fault, not the planner): it is unavailable from then
 *       on, until a READY (after an in-place update) or its DELETE. Its unavailability, and that of the
 *       machine CREATEd in the same instant right after its DELETE (its replacement) or a surge machine
 *       that stood in for it and is not Ready yet, until the slot is available again, are not the planner's doing: they are left out of the unavailable limit. REPAIR is
 *       only ever done to an unhealthy node, and at most max(1, maxUnavailable) repairs are in flight
 *       (from REPAIR to the machine's DELETE or UNCORDON), whatever the strategy.</li>
 * </ul>
 *
 * Events at the same t are simultaneous: the state is measured once per distinct t, after all of
 * them, and once more at t = minReadySeconds. Between events unavailability can only fall (nodes
 * pass minReadySeconds) and the number of machines is constant, so these measurements find every peak.
 *
 * <p>Also counted: DRAIN events per node, CREATE events per machine and per surge partner; and
 * whether every outdated node ends current (each initial node DELETEd, or READY after its
 * UPDATE_IN_PLACE; every machine left Ready and in service).
 */
final class TimelineReplay {

    /** maxSurge or maxUnavailable as written: an absolute count or a percentage. */
    record Limit(int value, boolean percent) {

        static Limit of(int value) {
            return new Limit(value, false);
        }

        static Limit percent(int value) {
            return new Limit(value, true);
        }

        int resolve(int count, boolean roundUp) {
            if (!percent) {
                return value;
            }
            long scaled = (long) count * value;
            return (int) (roundUp ? (scaled + 99) / 100 : scaled / 100);
        }

        @Override
        public String toString() {
            return percent ? value + "%" : Integer.toString(value);
        }
    }

    /** What a replay checks against. */
    record Rules(String pool, int initialNodes, Limit maxSurge, Limit maxUnavailable, int minReadySeconds,
                 boolean exemptFromLimits, boolean initialNodesLongReady) {

        /** The start: the initial nodes became Ready at t = 0. */
        Rules(String pool, int initialNodes, Limit maxSurge, Limit maxUnavailable, int minReadySeconds,
              boolean exemptFromLimits) {
            this(pool, initialNodes, maxSurge, maxUnavailable, minReadySeconds, exemptFromLimits, false);
        }

        /** The same rules for a pool whose initial nodes have been Ready for longer than minReadySeconds. */
        Rules longReady() {
            return new Rules(pool, initialNodes, maxSurge, maxUnavailable, minReadySeconds, exemptFromLimits, true);
        }

        /** Surge and unavailable resolved against a count, with the Deployment rule for 0/0. */
        int[] resolve(int count) {
            int s = maxSurge.resolve(count, true);
            int u = maxUnavailable.resolve(count, false);
            if (s == 0 && u == 0) {
                u = 1;
            }
            return new int[] {s, u};
        }
    }

    /** The state after every event at one instant. */
    record Snapshot(double t, int count, int machines, int available, int unavailable, int surgeLimit,
                    int unavailableLimit, int unavailableByFaults) {
    }

    record Result(
            List<Snapshot> snapshots,
            int peakMachines,
            int peakUnavailable,
            List<String> violations,
            Map<String, Integer> drainsPerNode,
            Map<String, Integer> createsPerNode,
            Map<String, Integer> surgeCreatesPerPartner,
            int creates,
            List<String> anomalies,
            List<String> notCurrentAtEnd,
            double lastEventAt) {

        List<String> nodesDrainedMoreThanOnce() {
            return drainsPerNode.entrySet().stream().filter(e -> e.getValue() > 1)
                    .map(e -> e.getKey() + " x" + e.getValue()).toList();
        }

        /** Every node ends current: each initial node was deleted or updated in place, every machine left is Ready and in service. */
        boolean everyNodeEndsCurrent() {
            return notCurrentAtEnd.isEmpty();
        }
    }

    private static final class Machine {
        final String name;
        final boolean initial;
        final Optional<String> surgeFor;
        Long readySinceMillis;
        boolean cordoned;
        boolean draining;
        boolean inPlace;
        boolean unhealthy;
        /** Fell ill, or replaces a machine that did: its slot is down because of a fault until it is available. */
        boolean faultSlot;

        Machine(String name, boolean initial, Optional<String> surgeFor, Long readySinceMillis) {
            this.name = name;
            this.initial = initial;
            this.surgeFor = surgeFor;
            this.readySinceMillis = readySinceMillis;
        }

        boolean available(long nowMillis, long minReadyMillis) {
            return readySinceMillis != null && readySinceMillis + minReadyMillis <= nowMillis
                    && !cordoned && !draining && !inPlace && !unhealthy;
        }

        /** Unavailable because of a fault, not of the planner. */
        boolean exempt() {
            return unhealthy || faultSlot;
        }
    }

    private TimelineReplay() {
    }

    static String initialNode(String pool, int i) {
        return pool + "-" + i;
    }

    static Result replay(List<TimelineEvent> timeline, Rules rules) {
        Map<String, Machine> machines = new TreeMap<>();
        for (int i = 1; i <= rules.initialNodes(); i++) {
            String n = initialNode(rules.pool(), i);
            machines.put(n, new Machine(n, true, Optional.empty(), rules.initialNodesLongReady() ? -rules.minReadySeconds() * 1000L : 0L));
        }
        List<Snapshot> snapshots = new ArrayList<>();
        List<String> violations = new ArrayList<>();
        List<String> anomalies = new ArrayList<>();
        Map<String, Integer> drains = new TreeMap<>();
        Map<String, Integer> creates = new TreeMap<>();
        Map<String, Integer> surgeCreates = new TreeMap<>();
        TreeSet<String> deletedInitial = new TreeSet<>();
        TreeSet<String> updatedInitial = new TreeSet<>();
        TreeSet<String> unhealthyDeleted = new TreeSet<>();
        // From REPAIR until the machine is deleted or released.
        TreeSet<String> repairing = new TreeSet<>();
        int totalCreates = 0;
        long minReadyMillis = rules.minReadySeconds() * 1000L;
        int peakMachines = machines.size();
        // Like the limit, the peak of unavailability is taken from t = minReadySeconds on.
        int peakUnavailable = 0;

        for (int k = 1; k < timeline.size(); k++) {
            if (timeline.get(k).t() < timeline.get(k - 1).t()) {
                anomalies.add("timeline not ordered by t: " + timeline.get(k) + " after " + timeline.get(k - 1));
            }
        }
        double lastT = timeline.stream().mapToDouble(TimelineEvent::t).max().orElse(0);
        // Measured at every event time and once more when the initial nodes pass minReadySeconds.
        TreeSet<Double> times = new TreeSet<>();
        timeline.forEach(e -> times.add(e.t()));
        if (minReadyMillis > 0 && !rules.initialNodesLongReady()) {
            times.add(minReadyMillis / 1000.0);
        }
        List<TimelineEvent> ordered = timeline.stream()
                .sorted(Comparator.comparingDouble(TimelineEvent::t)).toList();
        int i = 0;
        for (double t : times) {
            long nowMillis = Math.round(t * 1000);
            int j = i;
            while (j < ordered.size() && ordered.get(j).t() == t) {
                TimelineEvent e = ordered.get(j);
                Machine m = machines.get(e.node());
                switch (e.step()) {
                    case "CREATE" -> {
                        if (m != null) {
                            anomalies.add("t=" + t + ": CREATE of " + e.node() + " which exists");
                        }
                        Machine created = new Machine(e.node(), false, e.surgeFor(), null);
                        TimelineEvent previous = j > 0 ? ordered.get(j - 1) : null;
                        created.faultSlot = e.surgeFor().isEmpty() && previous != null && previous.t() == t
                                && previous.step().equals("DELETE") && unhealthyDeleted.contains(previous.node());
                        machines.put(e.node(), created);
                        creates.merge(e.node(), 1, Integer::sum);
                        e.surgeFor().ifPresent(p -> surgeCreates.merge(p, 1, Integer::sum));
                        totalCreates++;
                    }
                    case "DELETE" -> {
                        if (m == null) {
                            anomalies.add("t=" + t + ": DELETE of " + e.node() + " which does not exist");
                        } else {
                            machines.remove(e.node());
                            repairing.remove(m.name);
                            if (m.unhealthy) {
                                unhealthyDeleted.add(m.name);
                                // A surge machine that stood in for it now holds its slot.
                                machines.values().stream().filter(o -> o.surgeFor.equals(Optional.of(m.name)))
                                        .forEach(o -> o.faultSlot = o.readySinceMillis == null);
                            }
                            if (m.initial) {
                                deletedInitial.add(m.name);
                            }
                        }
                    }
                    default -> {
                        if (m == null) {
                            anomalies.add("t=" + t + ": " + e.step() + " of " + e.node() + " which does not exist");
                        } else {
                            apply(e, m, nowMillis, drains, anomalies, updatedInitial);
                            if (e.step().equals("REPAIR")) {
                                repairing.add(m.name);
                            } else if (e.step().equals("UNCORDON")) {
                                repairing.remove(m.name);
                            }
                        }
                    }
                }
                j++;
            }
            i = j;
            Snapshot s = measure(t, machines, rules, minReadyMillis);
            snapshots.add(s);
            // The initial nodes are Ready since t = 0: until minReadySeconds have passed every one of them
            // is unavailable by definition, whatever the planner does; that is the start, not a violation.
            boolean initialWindow = !rules.initialNodesLongReady() && nowMillis < minReadyMillis;
            peakMachines = Math.max(peakMachines, s.machines());
            if (!initialWindow) {
                peakUnavailable = Math.max(peakUnavailable, s.unavailable());
            }
            // Repairs keep their own limit in every strategy: at most max(1, maxUnavailable) at once.
            if (repairing.size() > Math.max(1, s.unavailableLimit())) {
                violations.add("t=" + t + ": " + repairing.size() + " repairs in flight " + repairing + ", more than max(1, maxUnavailable "
                        + s.unavailableLimit() + ")");
            }
            if (!rules.exemptFromLimits()) {
                if (s.machines() > s.count() + s.surgeLimit()) {
                    violations.add("t=" + t + ": " + s.machines() + " machines exist, more than count " + s.count()
                            + " + maxSurge " + s.surgeLimit());
                }
                if (s.unavailable() - s.unavailableByFaults() > s.unavailableLimit() && !initialWindow) {
                    violations.add("t=" + t + ": " + s.unavailable() + " unavailable (count " + s.count() + ", available "
                            + s.available() + ", " + s.unavailableByFaults() + " by faults), more than maxUnavailable "
                            + s.unavailableLimit());
                }
            }
        }

        List<String> notCurrent = new ArrayList<>();
        for (int k = 1; k <= rules.initialNodes(); k++) {
            String n = initialNode(rules.pool(), k);
            if (!deletedInitial.contains(n) && !updatedInitial.contains(n)) {
                notCurrent.add(n + " was neither deleted nor updated in place");
            }
        }
        for (Machine m : machines.values()) {
            if (m.readySinceMillis == null || m.cordoned || m.draining || m.inPlace) {
                notCurrent.add(m.name + " ends " + (m.readySinceMillis == null ? "not Ready" : "out of service")
                        + (m.cordoned ? ", cordoned" : "") + (m.draining ? ", draining" : "") + (m.inPlace ? ", updating in place" : ""));
            }
        }
        return new Result(Collections.unmodifiableList(snapshots), peakMachines, peakUnavailable,
                Collections.unmodifiableList(violations), drains, creates, surgeCreates, totalCreates,
                Collections.unmodifiableList(anomalies), notCurrent, lastT);
    }

    private static void apply(TimelineEvent e, Machine m, long nowMillis, Map<String, Integer> drains,
                              List<String> anomalies, TreeSet<String> updatedInitial) {
        switch (e.step()) {
            case "READY" -> {
                m.readySinceMillis = nowMillis;
                m.unhealthy = false;
                if (m.inPlace) {
                    m.inPlace = false;
                    if (m.initial) {
                        updatedInitial.add(m.name);
                    }
                }
            }
            case "CORDON" -> m.cordoned = true;
            case "UNCORDON" -> {
                // Lifts the cordon and releases a drain; an in-place update still waits for its READY.
                m.cordoned = false;
                m.draining = false;
            }
            case "DRAIN" -> {
                m.draining = true;
                drains.merge(m.name, 1, Integer::sum);
            }
            case "UPDATE_IN_PLACE" -> {
                m.inPlace = true;
                m.readySinceMillis = null;
            }
            case "UNHEALTHY" -> {
                m.unhealthy = true;
                m.faultSlot = true;
            }
            case "REPAIR" -> {
                if (!m.unhealthy) {
                    anomalies.add("t=" + e.t() + ": REPAIR of " + e.node() + ", which is not unhealthy");
                }
            }
            case "TAINT", "UNTAINT", "RESTART_KUBELET", "PROPAGATE", "LABEL_CANDIDATE" -> {
                // No effect on count or availability.
            }
            default -> anomalies.add("t=" + e.t() + ": unknown step " + e.step() + " on " + e.node());
        }
    }

    private static Snapshot measure(double t, Map<String, Machine> machines, Rules rules, long minReadyMillis) {
        long nowMillis = Math.round(t * 1000);
        int count = 0;
        int available = 0;
        int byFaults = 0;
        for (Machine m : machines.values()) {
            boolean standsIn = m.surgeFor.isPresent() && machines.containsKey(m.surgeFor.get());
            if (!standsIn) {
                count++;
            }
            if (m.available(nowMillis, minReadyMillis)) {
                available++;
                m.faultSlot = false;
            } else if (!standsIn && m.exempt()) {
                byFaults++;
            }
        }
        int[] limits = rules.resolve(count);
        return new Snapshot(t, count, machines.size(), available, count - available, limits[0], limits[1], byFaults);
    }
}
