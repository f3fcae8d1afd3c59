package dev.nightshift.agent.provider;

/**
 * A provider whose own health checks would replace a rebooting machine: told when a node is being updated in place or
 * its kubelet restarted, it holds them off meanwhile (Cluster API: {@code cluster.x-k8s.io/skip-remediation}).
 */
public interface RemediationHolds {

    /** {@code node} of {@code pool} is being updated ({@code updating}), or no longer is. */
    void nodeUpdating(String pool, String node, boolean updating);
}
