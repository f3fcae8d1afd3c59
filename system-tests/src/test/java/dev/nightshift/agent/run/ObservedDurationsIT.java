package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.git.GitDaemon;
import dev.nightshift.agent.git.GitWork;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The agent times the pool's machine creations and drains as it rolls it and keeps them in the
 * pool's status record, and {@code /status} estimates the rollout's end while nodes are outdated.
 */
class ObservedDurationsIT {

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
              maintenance:
                windows: [{schedule: "0 0 * * * ?", duration: 1h, timeZone: UTC}]
            """;

    private static String pool(String version) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: e2e}
                spec:
                  minimum: 3
                  maximum: 6
                  maxSurge: 1
                  maxUnavailable: 0
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(version);
    }

    @TempDir
    Path tmp;

    private GitDaemon daemon;
    private GitWork work;
    private EmbeddedKubernetes kube;
    private ScheduledExecutorService cloud;
    private Agent agent;

    @BeforeEach
    void start() throws Exception {
        Path served = Files.createDirectories(tmp.resolve("served"));
        daemon = new GitDaemon(served);
        work = GitWork.create(served, "specs.git", daemon.url("specs.git"), tmp.resolve("work"));
        work.write("cluster.yaml", CLUSTER);
        work.write("pools/web.yaml", pool("1631.0.0"));
        work.commitAndPush("initial");
        kube = EmbeddedKubernetes.start();
        cloud = Executors.newScheduledThreadPool(2);
        SimulatedMachineProvider provider = new SimulatedMachineProvider(kube.client(), cloud, Clock.systemUTC(), new Random(3),
                pool -> false, new SimulatedMachineProvider.Behaviour(Duration.ofMillis(800), Duration.ofMillis(800),
                Duration.ofMillis(300), 0, 0));
        for (int i = 1; i <= 3; i++) {
            provider.seed("web", "web-" + i, Optional.empty(), Optional.empty());
        }
        AgentConfig config = TestAgentConfig.of(daemon.url("specs.git"), "e2e", tmp.resolve("cache"));
        agent = new Agent(config, kube.client(), provider, Clock.systemUTC(), r -> { });
        agent.start();
    }

    @AfterEach
    void stop() {
        agent.close();
        cloud.shutdownNow();
        kube.close();
        daemon.close();
    }

    private List<Node> nodes() {
        return kube.client().nodes().withLabel(NodeMarks.POOL, "web").list().getItems();
    }

    private static String hash(Node n) {
        return n.getMetadata().getAnnotations() == null ? "" : n.getMetadata().getAnnotations().getOrDefault(NodeMarks.ROLL_HASH, "");
    }

    /** Stamped and labelled: adoption's last write has landed, so later writes are the test's doing. */
    private void awaitStamped() {
        await().atMost(Duration.ofSeconds(60)).until(() -> nodes().size() == 3 && nodes().stream().noneMatch(n -> hash(n).isEmpty()
                || n.getMetadata().getAnnotations().getOrDefault(NodeMarks.MANAGED_LABELS, "").isEmpty()));
    }

    private Map<String, String> record() {
        ConfigMap cm = kube.client().configMaps().inNamespace(Agent.NAMESPACE).withName(PoolStatusRecords.name("web")).get();
        return cm == null || cm.getData() == null ? Map.of() : cm.getData();
    }

    private JsonNode webStatus() throws Exception {
        for (JsonNode p : new ObjectMapper().readTree(agent.status()).path("pools")) {
            if (p.path("pool").asText().equals("web")) {
                return p;
            }
        }
        return new ObjectMapper().createObjectNode();
    }

    @Test
    void theRollsCreationsAndDrainsAreKeptInThePoolsRecordAndStatusGivesAnEtaMeanwhile() throws Exception {
        awaitStamped();
        String before = hash(nodes().get(0));

        work.write("pools/web.yaml", pool("1632.0.0"));
        work.commitAndPush("bump");

        // While nodes are outdated, /status estimates when they are done.
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> webStatus().path("eta").path("workSeconds").asLong() > 0);
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() ->
                assertThat(nodes()).hasSize(3).extracting(ObservedDurationsIT::hash).doesNotContain(before));
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
