package dev.nightshift.spec.model;

/** What a drain does when a PodDisruptionBudget keeps refusing an eviction. */
public enum OnEvictionBlocked {
    /** Gardener's behaviour: delete the pod after maxEvictRetries, the machine after drainTimeout. */
    ForceDelete,
    /** Never bypass a budget: keep retrying and report the blocking pod and budget. */
    Wait
}
