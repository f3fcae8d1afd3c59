package dev.nightshift.agent.reconcile;

import java.util.Map;

import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.PoolStatus;

/** The record stage: each pool's status record ({@link PoolRecordWriter}; a fake in the pass's tests). */
interface PoolRecords {

    /**
     * Writes each pool's record where it changed.
     *
     * @param statuses  each planned pool's status after this pass's steps
     * @param durations each pool's observed durations
     */
    void write(Map<String, PoolStatus> statuses, ObservedCluster observed, ObservedDurations durations);

    /** As above, leaving alone the records of {@code unmanaged} pools: whoever manages them writes them. */
    default void write(Map<String, PoolStatus> statuses, ObservedCluster observed, ObservedDurations durations,
                       java.util.Set<String> unmanaged) {
        write(statuses, observed, durations);
    }
}
