package dev.nightshift.spec.model;

/** What a pool does when a wave's health checks fail or {@code maxFailedMachines} is reached. */
public enum OnFailure {
    /** Start nothing new, finish what is in flight, phase {@code HALTED} until resumed or retargeted. */
    Halt,
    /** Go back to the last revision under which the pool was current and healthy, refusing the failed one. */
    Rollback
}
