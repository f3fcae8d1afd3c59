package dev.nightshift.strategies.sim;

import java.time.Duration;
import java.time.Instant;

import dev.nightshift.strategies.model.DesiredCluster;

/**
 * One simulated update of one pool.
 *
 * @param nodes         outdated nodes at the start, all Ready at the start
 * @param create        from CREATE until the node is Ready
 * @param drain         to drain one node
 * @param kubeletRestart until a restarted kubelet reports its new configuration
 * @param horizon       give up (and report) when the update has not finished by then
 * @param inPlace       from an in-place update's start until the node is Ready at the new spec
 * @param start         the instant the simulation starts at; the timeline counts seconds from it
 * @param windows       when disruptive work may start ({@link MaintenanceWindows#ALWAYS_OPEN}: always)
 * @param outdated      what the nodes need at the start: a new roll hash (replacement or in-place
 *                      update, by the pool's strategy) or only a new kubelet hash (a kubelet restart)
 */
public record SimulationSetup(
        DesiredCluster desired,
        String pool,
        int nodes,
        Duration create,
        Duration drain,
        Duration kubeletRestart,
        long seed,
        Faults faults,
        Duration horizon,
        Duration inPlace,
        Instant start,
        MaintenanceWindows windows,
        Outdated outdated) {

    /** What makes the initial nodes outdated. */
    public enum Outdated {
        /** Both hashes are old: the pool's strategy replaces the nodes or updates them in place. */
        ROLL,
        /** The roll hash is current and the kubelet hash old: kubelets are restarted. */
        KUBELET
    }

    /**
     * Always open, from {@link Simulator#START}, an in-place update taking as long as a creation,
     * every node outdated by its roll hash: how every simulation ran before windows existed.
     */
    public SimulationSetup(DesiredCluster desired, String pool, int nodes, Duration create, Duration drain,
                           Duration kubeletRestart, long seed, Faults faults, Duration horizon) {
        this(desired, pool, nodes, create, drain, kubeletRestart, seed, faults, horizon, create, Simulator.START,
                MaintenanceWindows.ALWAYS_OPEN, Outdated.ROLL);
    }

    public static SimulationSetup of(DesiredCluster desired, String pool, int nodes, Duration create, Duration drain) {
        return new SimulationSetup(desired, pool, nodes, create, drain, Duration.ofSeconds(10), 1, Faults.NONE,
                Duration.ofDays(30));
    }

    public SimulationSetup withFaults(Faults f, long s) {
        return new SimulationSetup(desired, pool, nodes, create, drain, kubeletRestart, s, f, horizon, inPlace, start, windows,
                outdated);
    }

    /** Starting at {@code at}, disruptive work starting only when {@code w} allows it. */
    public SimulationSetup withWindows(Instant at, MaintenanceWindows w) {
        return new SimulationSetup(desired, pool, nodes, create, drain, kubeletRestart, seed, faults, horizon, inPlace, at, w,
                outdated);
    }

    /** With an in-place update and a kubelet restart taking these times. */
    public SimulationSetup withNodeUpdates(Duration inPlaceUpdate, Duration restart) {
        return new SimulationSetup(desired, pool, nodes, create, drain, restart, seed, faults, horizon, inPlaceUpdate, start,
                windows, outdated);
    }

    public SimulationSetup withOutdated(Outdated o) {
        return new SimulationSetup(desired, pool, nodes, create, drain, kubeletRestart, seed, faults, horizon, inPlace, start,
                windows, o);
    }

    public SimulationSetup withHorizon(Duration h) {
        return new SimulationSetup(desired, pool, nodes, create, drain, kubeletRestart, seed, faults, h, inPlace, start, windows,
                outdated);
    }
}
