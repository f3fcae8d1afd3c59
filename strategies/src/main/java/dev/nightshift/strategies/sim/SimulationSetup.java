package dev.nightshift.strategies.sim;

import java.time.Duration;

import dev.nightshift.strategies.model.DesiredCluster;

/**
 * One simulated update of one pool.
 *
 * @param nodes         outdated nodes at the start, all Ready at t = 0
 * @param create        from CREATE (or an in-place update's start) until the node is Ready
 * @param drain         to drain one node
 * @param kubeletRestart until a restarted kubelet reports its new configuration
 * @param horizon       give up (and report) when the update has not finished by then
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
        Duration horizon) {

    public static SimulationSetup of(DesiredCluster desired, String pool, int nodes, Duration create, Duration drain) {
        return new SimulationSetup(desired, pool, nodes, create, drain, Duration.ofSeconds(10), 1, Faults.NONE,
                Duration.ofDays(30));
    }

    public SimulationSetup withFaults(Faults f, long s) {
        return new SimulationSetup(desired, pool, nodes, create, drain, kubeletRestart, s, f, horizon);
    }
}
