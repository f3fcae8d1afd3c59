package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.spec.hash.HashScheme;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.ResolvedPool;

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

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    /** Pool {@code web} comes unstamped (adoption); pool {@code api} comes stamped at the first commit (a rollout when bumped). */
    private static final String TWO_POOLS = SPEC + """
            ---
            apiVersion: nightshift.dev/v1alpha1
            kind: WorkerPool
            metadata: {name: api, cluster: e2e}
            spec:
              minimum: 2
              maximum: 4
              interval: 0s
              machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
            """;

    @Test
    void aDryRunPlansAndReportsAdoptionARolloutAndAnInvalidCommitButWritesNothing() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 2);
        String first = TWO_POOLS.formatted("1631.0.0", "1631.0.0");
        ResolvedPool api = new SpecLoader().load(Map.of("all.yaml", first.getBytes(StandardCharsets.UTF_8))).specs()
                .resolvedPools("e2e").stream().filter(p -> p.name().equals("api")).findFirst().orElseThrow();
        for (int i = 1; i <= 2; i++) {
            h.provider.seed("api", "api-" + i, Optional.of(HashScheme.ROLL.compute(api)), Optional.of(HashScheme.KUBELET.compute(api)));
        }
        h.work.write("all.yaml", first);
        h.work.commitAndPush("initial");
        h.kube.clearRequests();

        h.startAgent("e2e", true);

        // Adoption: planned and reported, not done.
        await().atMost(Duration.ofSeconds(30)).until(() -> pool(h.agent.status(), "web").path("adopted").size() == 2);
        // A rollout: the bump is taken and api's nodes reported outdated, none replaced.
        h.work.write("all.yaml", TWO_POOLS.formatted("1631.0.0", "1632.0.0"));
        String bump = h.work.commitAndPush("bump api");
        h.agent.pollNow();
        await().atMost(Duration.ofSeconds(30)).until(() -> bump.equals(JSON.readTree(h.agent.status()).path("revision").asText())
                && pool(h.agent.status(), "api").path("outdated").asInt() == 2);
        // An invalid commit: reported, and no Event written for it.
        h.work.write("all.yaml", TWO_POOLS.formatted("1631.0.0", "1632.0.0").replace("maximum: 4", "maximum: four"));
        String invalid = h.work.commitAndPush("break it");
        h.agent.pollNow();
        // The poll that loaded the invalid commit has returned (and with it any write it made) once it is counted.
        await().atMost(Duration.ofSeconds(30)).until(() -> invalid.equals(h.agent.latestCommit().orElse(""))
                && new Scrape(h.http("/metrics")).valueOrZero("nightshift_git_polls_total", Map.of("result", "invalid_spec")) >= 1);
        h.idleThroughReconciles("web-1", 2);

        assertThat(JSON.readTree(h.agent.status()).path("specValid").asBoolean()).isFalse();
        assertThat(h.kube.requests()).as("a dry run writes nothing: no node, machine, status record or event")
                .filteredOn(r -> r.userAgent().equals(AgentHarness.AGENT)).noneMatch(RecordedRequest::isWrite);
        assertThat(h.kube.requests()).as("nor asks the cloud for a machine").noneMatch(r -> r.isWrite() && !r.resourcePath().contains("/nodes/web-1"));
        assertThat(h.nodes("web")).allSatisfy(n -> assertThat(annotation(n, NodeMarks.ROLL_HASH)).isEmpty());
        assertThat(h.nodes("api")).hasSize(2).allSatisfy(n -> assertThat(annotation(n, NodeMarks.ROLL_HASH))
                .isEqualTo(HashScheme.ROLL.compute(api).value()));
    }

    private static JsonNode pool(String status, String name) throws IOException {
        for (JsonNode p : JSON.readTree(status).path("pools")) {
            if (p.path("pool").asText().equals(name)) {
                return p;
            }
        }
        return JSON.createObjectNode();
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
