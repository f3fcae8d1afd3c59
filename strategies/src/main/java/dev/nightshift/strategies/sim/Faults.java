package dev.nightshift.strategies.sim;

/**
 * What can go wrong in a simulation, each as a probability drawn from the seeded generator.
 *
 * @param createJitter      extra creation time, up to this share of the creation time
 * @param createFailure     a new machine never registers
 * @param neverReady        a new machine registers but never becomes Ready
 * @param pdbBlocked        a drained node has a pod whose budget refuses every eviction
 * @param inPlaceFailure    an in-place update fails
 * @param crash             the agent crashes part-way through executing a plan
 * @param unhealthy         an initial node falls ill (DiskPressure) at a random time and stays so
 *                          until it is updated in place or replaced
 * @param failHealth        a wave of a pool with rollout health checks fails them (drawn once per wave);
 *                          otherwise its checks pass
 */
public record Faults(double createJitter, double createFailure, double neverReady, double pdbBlocked,
                     double inPlaceFailure, double crash, double unhealthy, double failHealth) {

    public static final Faults NONE = new Faults(0, 0, 0, 0, 0, 0, 0, 0);

    /** Every wave's checks pass. */
    public Faults(double createJitter, double createFailure, double neverReady, double pdbBlocked,
                  double inPlaceFailure, double crash, double unhealthy) {
        this(createJitter, createFailure, neverReady, pdbBlocked, inPlaceFailure, crash, unhealthy, 0);
    }

    /** No node falls ill. */
    public Faults(double createJitter, double createFailure, double neverReady, double pdbBlocked,
                  double inPlaceFailure, double crash) {
        this(createJitter, createFailure, neverReady, pdbBlocked, inPlaceFailure, crash, 0);
    }

    public static Faults crashes(double probability) {
        return new Faults(0, 0, 0, 0, 0, probability);
    }
}
