package dev.nightshift.spec.hash;

/** How a node's stamped hash relates to the desired spec. */
public enum StampMatch {
    /** Stamped with the current version and equal to the desired hash. */
    CURRENT,
    /** Stamped with an older version and equal to that version's hash of the desired spec: re-stamp, never roll. */
    RESTAMP,
    /** Anything else: the node does not run the desired spec. */
    OUTDATED
}
