package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.NodeMarks;

/** What the agent must not do: act in a dry run, or roll nodes past the API server's version. */
class GuardsIT {

    private static final String SPEC = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
            ---
            apiVersion: nightshift.dev/v1alpha1
            kind: WorkerPool
            metadata: {name: web, cluster: e2e}
            spec:
              minimum: 2
              maximum: 4
              interval: 0s
              machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
            """;

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    @Test
    void aDryRunPlansAndReportsButWritesNothing() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 2);
        h.work.write("all.yaml", SPEC.formatted("1631.0.0"));
        h.work.commitAndPush("initial");
        h.kube.clearRequests();

        h.startAgent("e2e", true);

        await().atMost(Duration.ofSeconds(30)).until(() -> h.agent.status().contains("\"adopted\" : [ \"web-1\", \"web-2\" ]"));
        assertThat(h.kube.requests()).as("a dry run changes nothing").noneMatch(r -> r.isWrite()
                && r.resourcePath().startsWith("/api/v1/nodes"));
        assertThat(h.nodes("web")).allSatisfy(n -> assertThat(annotation(n, NodeMarks.ROLL_HASH)).isEmpty());
    }

    @Test
    void nodesAreNeverRolledToAMinorNewerThanTheApiServer() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 2, "v1.30.2");
        h.work.write("all.yaml", SPEC.formatted("1631.0.0"));
        h.work.commitAndPush("initial");
        h.kube.clearRequests();

        h.startAgent("e2e");

        await().atMost(Duration.ofSeconds(30)).until(() -> h.agent.status().contains("newer than the API server's 1.30"));
        assertThat(h.agent.status()).contains("web: Kubernetes 1.31.4 is newer than the API server's 1.30");
        assertThat(h.kube.requests()).noneMatch(r -> r.isWrite() && r.resourcePath().startsWith("/api/v1/nodes"));
    }
}
