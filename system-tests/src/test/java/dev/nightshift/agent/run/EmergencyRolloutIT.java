package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.kube.NodeMarks;

/**
 * A security patch cannot wait for next month's window: a pool annotated in Git with
 * {@code nightshift.dev/rollout-outside-window: "true"} rolls at once, and {@code /status} says so
 * while the annotation is set. Without it, the same change waits for the window.
 */
class EmergencyRolloutIT {

    /** The only window opens in 2099: closed for as long as this test runs. */
    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
              maintenance:
                windows: [{schedule: "0 0 0 1 1 ? 2099", duration: 1h, timeZone: UTC}]
            """;

    private static String pool(String version, boolean emergency) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata:
                  name: web
                  cluster: e2e
                %s
                spec:
                  minimum: 3
                  maximum: 6
                  maxSurge: 1
                  maxUnavailable: 0
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(emergency ? "  annotations: {nightshift.dev/rollout-outside-window: \"true\"}" : "", version);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    private JsonNode status() throws Exception {
        return JSON.readTree(h.agent.status());
    }

    private JsonNode poolStatus(String pool) throws Exception {
        for (JsonNode p : status().path("pools")) {
            if (pool.equals(p.path("pool").asText())) {
                return p;
            }
        }
        return JSON.missingNode();
    }

    private boolean notified() throws Exception {
        for (JsonNode n : status().path("notices")) {
            if (n.asText().contains("nightshift.dev/rollout-outside-window")) {
                return true;
            }
        }
        return false;
    }

    private long machinesCreated() {
        return h.kube.requests().stream().filter(r -> "POST".equals(r.method()) && r.resourcePath().equals("/api/v1/nodes") && r.succeeded()).count();
    }

    @Test
    void anAnnotatedPoolRollsOutsideTheWindowAndStatusSaysSoWhileItIsSet() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 3);
        h.work.write("cluster.yaml", CLUSTER);
        h.work.write("pools/web.yaml", pool("1631.0.0", false));
        h.work.commitAndPush("initial");
        h.startAgent("e2e");
        h.awaitAdopted("web", 3);
        String oldHash = AgentHarness.annotation(h.nodes("web").get(0), NodeMarks.ROLL_HASH);

        // The same bump without the annotation waits for the window.
        h.work.write("pools/web.yaml", pool("1632.0.0", false));
        String waiting = h.work.commitAndPush("image bump");
        h.agent.pollNow();
        await().atMost(Duration.ofSeconds(60)).until(() -> status().path("revision").asText().equals(waiting)
                && poolStatus("web").path("phase").asText().equals("WAITING_FOR_WINDOW"));
        long before = machinesCreated();
        assertThat(notified()).isFalse();
        assertThat(h.nodes("web")).allSatisfy(n -> assertThat(AgentHarness.annotation(n, NodeMarks.ROLL_HASH)).isEqualTo(oldHash));

        h.work.write("pools/web.yaml", pool("1632.0.0", true));
        h.work.commitAndPush("security patch: roll now");
        h.agent.pollNow();

        await().atMost(Duration.ofSeconds(60)).until(this::notified);
        await().atMost(Duration.ofSeconds(120)).until(() -> h.nodes("web").size() == 3 && h.nodes("web").stream()
                .noneMatch(n -> AgentHarness.annotation(n, NodeMarks.ROLL_HASH).equals(oldHash)));
        assertThat(machinesCreated() - before).as("one replacement per node").isEqualTo(3);

        h.work.write("pools/web.yaml", pool("1632.0.0", false));
        h.work.commitAndPush("emergency over");
        h.agent.pollNow();
        await().atMost(Duration.ofSeconds(60)).until(() -> !notified());
    }
}
