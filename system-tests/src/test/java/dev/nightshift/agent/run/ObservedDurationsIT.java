package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.rollHash;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.PoolStatusRecords;
import io.fabric8.kubernetes.api.model.ConfigMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The agent times the pool's machine creations and drains as it rolls it and keeps them in the
 * pool's status record, and {@code /status} estimates the rollout's end while nodes are outdated.
 */
class ObservedDurationsIT {

    /** Three nodes replaced one at a time: three creations and three drains to time. */
    private static final ScenarioSpecs.Pool WEB = ScenarioSpecs.web().surgingOneAtATime();

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    @BeforeEach
    void start() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 3);
        h.startAndAdopt(ScenarioSpecs.CLUSTER_IN_HOURLY_WINDOWS, WEB, 3);
    }

    private Map<String, String> record() {
        ConfigMap cm = h.kube.client().configMaps().inNamespace(Agent.NAMESPACE).withName(PoolStatusRecords.name("web")).get();
        return cm == null || cm.getData() == null ? Map.of() : cm.getData();
    }

    private JsonNode webStatus() throws Exception {
        for (JsonNode p : new ObjectMapper().readTree(h.agent.status()).path("pools")) {
            if (p.path("pool").asText().equals("web")) {
                return p;
            }
        }
        return new ObjectMapper().createObjectNode();
    }

    @Test
    void theRollsCreationsAndDrainsAreKeptInThePoolsRecordAndStatusGivesAnEtaMeanwhile() throws Exception {
        String before = rollHash(h.nodes("web").get(0));

        h.push("bump", WEB.withImage("1632.0.0"));

        // While nodes are outdated, /status estimates when they are done.
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> webStatus().path("eta").path("workSeconds").asLong() > 0);
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() ->
                assertThat(h.nodes("web")).hasSize(3).extracting(AgentHarness::rollHash).doesNotContain(before));
        // One surge machine per old node, each timed from its creation to Ready; one drain per old node.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(record().getOrDefault("createSeconds", "")).matches("\\d+(,\\d+){2}");
            assertThat(record().getOrDefault("drainSeconds", "")).matches("\\d+(,\\d+){2}");
        });
        // The cloud registers machines in 0.8 s and drains have nothing to evict: seconds, not minutes.
        for (String s : (record().get("createSeconds") + "," + record().get("drainSeconds")).split(",")) {
            assertThat(Long.parseLong(s)).isLessThan(30);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> webStatus().path("outdated").asInt() == 0);
        assertThat(webStatus().path("eta").isNull()).as("no outdated node, no eta").isTrue();
    }
}
