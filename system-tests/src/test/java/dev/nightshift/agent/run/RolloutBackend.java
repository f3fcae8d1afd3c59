package dev.nightshift.agent.run;

/** Where an end-to-end test's pool gets its machines from: the same scenarios run against each. */
enum RolloutBackend {
    /** The simulated cloud: the agent asks it for machines, which register as nodes labelled with their pool. */
    SIMULATED,
    /**
     * The {@code cluster-api} provider against the embedded Cluster API: the pool is an OnDelete MachineDeployment
     * reconciled by the controller double, whose Nodes come unlabelled and which the agent labels.
     */
    CLUSTER_API,
    /**
     * The {@code http} provider over real HTTP against the sandbox's machine API ({@code MachineApiServer} and its
     * simulated cloud): machines register as nodes without the pool label or hashes, which the agent writes.
     */
    HTTP
}
