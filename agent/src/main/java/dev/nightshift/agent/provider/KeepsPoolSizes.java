package dev.nightshift.agent.provider;

/**
 * A provider whose backend keeps each pool at its size on its own: Cluster API's MachineSets create a Machine for one
 * that a MachineHealthCheck (or anyone) deleted. Nightshift then never adds machines to a pool short of its
 * {@code minimum}: the backend's own replacement is already coming, and a second one would leave the pool too large.
 * A provider without this capability (the machine API, the simulator) creates machines only when Nightshift asks, so
 * Nightshift refills a pool that lost machines behind its back (a spot interruption, a cloud's health check that
 * terminates without replacing).
 */
public interface KeepsPoolSizes {
}
