package dev.nightshift.agent.eta;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.nightshift.strategies.fleet.FleetSchedule;
import dev.nightshift.strategies.fleet.FleetWait;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;

/**
 * When each pool's turn comes in an estimate: the planner's own fleet schedule ({@link FleetSchedule}: roles in order,
 * {@code rollout.after}, {@code rollout.concurrency.pools} turns per role, a pool rolling keeping its turn, a paused or
 * failed pool holding its dependants and later roles) asked again each time a pool of the estimate finishes, each
 * pool rolling from its start as its own simulation says ({@link Rollout}). A pool frees its turn, and counts as done
 * for the pools after it, when its simulated rollout is over (its last machine up).
 */
final class FleetTurns {

    /** What the estimate knows of a pool before it starts. */
    enum State {
        /** Nothing to do: current. */
        DONE,
        /** Work the agent does not carry out by itself (report-only, a person's selection, node updates off): holds nobody. */
        FREE,
        /** Paused: keeps what turn it has and holds the pools after it and later roles. */
        HELD,
        /** Work, and a turn now: starts at once. */
        TURN,
        /** Work, waiting for its turn. */
        WAITING
    }

    /** A pool's simulated rollout from {@code start}: when it is over; empty when it does not finish. */
    @FunctionalInterface
    interface Rollout {
        Optional<Instant> from(String pool, Instant start, PoolEta.Start how);
    }

    /**
     * What the schedule made of the pools with work.
     *
     * @param started     each pool that started, in rollout order, and how
     * @param neverStarts each pool that never starts, and the wait that holds it
     * @param unfinished  pools whose rollout never finishes (they keep their turn)
     */
    record Outcome(Map<String, PoolEta.Start> started, Map<String, FleetWait> neverStarts, List<String> unfinished) {
    }

    private FleetTurns() {
    }

    /**
     * @param states each pool's state; a pool of {@code desired} not in it is done
     * @param phases the phase each held or free pool is in, for the sentences of the pools waiting for it
     */
    static Outcome run(DesiredCluster desired, Map<String, State> states, Map<String, String> phases, Instant start, Rollout rollout) {
        List<DesiredPool> pools = desired.pools();
        Map<String, State> state = new HashMap<>();
        pools.forEach(p -> state.put(p.name(), states.getOrDefault(p.name(), State.DONE)));
        Map<String, Optional<Instant>> running = new LinkedHashMap<>();
        Map<String, PoolEta.Start> started = new LinkedHashMap<>();
        Map<String, FleetWait> waits = new HashMap<>();
        List<String> finished = new ArrayList<>();
        Instant now = start;
        while (true) {
            List<String> finishedNow = new ArrayList<>();
            for (DesiredPool p : pools) {
                Optional<Instant> end = running.get(p.name());
                if (end != null && end.isPresent() && !end.get().isAfter(now)) {
                    running.remove(p.name());
                    state.put(p.name(), State.DONE);
                    finished.add(p.name());
                    finishedNow.add(p.name());
                }
            }
            List<FleetSchedule.Candidate> candidates = new ArrayList<>(pools.size());
            for (DesiredPool p : pools) {
                candidates.add(new FleetSchedule.Candidate(p.name(), p.spec().pool().role(), p.spec().pool().after(),
                        running.containsKey(p.name()) || state.get(p.name()) == State.TURN));
            }
            FleetSchedule schedule = FleetSchedule.inOrder(desired.cluster().concurrency().pools(), candidates);
            for (DesiredPool p : pools) {
                String name = p.name();
                FleetSchedule.Turn turn = schedule.turn(name);
                State s = state.get(name);
                if (running.containsKey(name)) {
                    // Rolling: it keeps its turn, whatever came after it started.
                    schedule.settle(name, turn, FleetSchedule.Outcome.ACTIVE, "UPDATING");
                } else if (s == State.DONE) {
                    schedule.settle(name, turn, FleetSchedule.Outcome.DONE, "CURRENT");
                } else if (s == State.FREE) {
                    schedule.settle(name, turn, FleetSchedule.Outcome.FREE, phases.getOrDefault(name, "REPORT_ONLY"));
                } else if (s == State.HELD) {
                    schedule.settle(name, turn, FleetSchedule.Outcome.HELD, phases.getOrDefault(name, "PAUSED"));
                } else if (s == State.TURN || turn.granted()) {
                    PoolEta.Start how = s == State.TURN || now.equals(start) ? new PoolEta.Start(now, Optional.empty())
                            : new PoolEta.Start(now, Optional.of(new PoolEta.Wait(waits.get(name).reason(),
                                    releasedBy(waits.get(name), finishedNow), finished.size())));
                    running.put(name, rollout.from(name, now, how));
                    started.put(name, how);
                    state.put(name, State.TURN);
                    waits.remove(name);
                    schedule.settle(name, turn, FleetSchedule.Outcome.ACTIVE, "UPDATING");
                } else {
                    waits.put(name, turn.waiting().orElseThrow());
                    schedule.settle(name, turn, FleetSchedule.Outcome.WAITING, "WAITING_FOR_TURN");
                }
            }
            Optional<Instant> next = running.values().stream().flatMap(Optional::stream).min(Instant::compareTo);
            if (next.isEmpty()) {
                break;
            }
            now = next.get();
        }
        List<String> unfinished = running.keySet().stream().toList();
        Map<String, FleetWait> neverStarts = new LinkedHashMap<>();
        for (DesiredPool p : pools) {
            if (waits.containsKey(p.name())) {
                neverStarts.put(p.name(), waits.get(p.name()));
            }
        }
        return new Outcome(started, neverStarts, unfinished);
    }

    /** The pool whose finish let a waiting pool start: the one it waited for, else the first that finished then. */
    private static String releasedBy(FleetWait wait, List<String> finishedNow) {
        if (wait != null && wait.pool().isPresent() && finishedNow.contains(wait.pool().get())) {
            return wait.pool().get();
        }
        return finishedNow.isEmpty() ? "" : finishedNow.get(0);
    }
}
