package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.sandbox.embedded.RecordedRequest;

/**
 * What a reconcile with nothing to do reads from the Kubernetes API, with the {@code http} provider and its node
 * updater: nothing. Before each plan the updater settles the outcomes of node updates on the nodes; it used to read
 * every node of every pool from the API to find out that none waits for one (5,000 GETs a reconcile at 5,000 nodes, as
 * the scale benchmark showed). Now it reads only nodes the agent's cache shows with an update or restart started.
 */
class IdleReadsIT {

    private static final String POOL = "web";
    private static final int NODES = 6;

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    @Test
    void aReconcileWithNothingToDoReadsNoNodeFromTheApi() throws Exception {
        h = new AgentHarness(tmp, "e2e", POOL, NODES, RolloutBackend.HTTP, Duration.ofMillis(200));
        h.work.write("cluster.yaml", """
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: e2e}
                spec:
                  kubernetes: {version: "1.31.4"}
                """);
        h.work.write("pools/web.yaml", """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: e2e}
                spec:
                  minimum: %d
                  maximum: %d
                  maxSurge: 1
                  maxUnavailable: 0
                  machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                """.formatted(NODES, NODES + 1));
        h.work.commitAndPush("initial");
        h.startAgent("e2e");
        h.awaitAdopted(POOL, NODES);
        h.awaitPoolRecord(POOL);
        // The adoption's last reconciles may still be under way: one more, then the log is what idle reconciles do.
        h.idleThroughReconciles("web-1", 1);
        h.kube.clearRequests();

        h.idleThroughReconciles("web-2", 3);

        List<RecordedRequest> reads = h.kube.requests().stream().filter(r -> r.userAgent().equals(AgentHarness.AGENT))
                .filter(r -> r.method().equals("GET") && r.resourcePath().startsWith("/api/v1/nodes")).toList();
        assertThat(reads).as("the agent's reads of nodes in three reconciles with nothing to do").isEmpty();
    }
}
