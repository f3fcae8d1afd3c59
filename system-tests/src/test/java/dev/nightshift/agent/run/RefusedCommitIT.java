package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * A commit refused for a change {@code diff} rejects stays refused when the agent that refused it
 * is gone: the pool records hold what each pool accepted, and every agent judges the head against
 * them, a restarted one and a standby taking over alike. What was touched is read from the request log.
 */
class RefusedCommitIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SPEC = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "%s"}
            ---
            apiVersion: nightshift.dev/v1alpha1
            kind: WorkerPool
            metadata: {name: web, cluster: e2e}
            spec:
              minimum: 3
              maximum: 6
              machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
            %s""";
    private static final String DOWNGRADE = "Kubernetes cannot be downgraded";

    /** A node or pod changed, a machine added or removed, a pod evicted: anything but the test's own touches. */
    private static final Predicate<RecordedRequest> TOUCHES = r -> r.isWrite()
            && (r.resourcePath().startsWith("/api/v1/nodes") || r.resourcePath().contains("/pods"))
            && !r.body().contains("example.com~1touched");

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;
    @AutoClose
    private KubernetesClient replicaClient;
    private final List<Agent> replicas = new ArrayList<>();

    @Test
    void aRefusedCommitStaysRefusedAfterARestartAndALeaderFailoverAndNothingIsTouched() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 3);
        h.work.write("all.yaml", SPEC.formatted("1.31.4", ""));
        String initial = h.work.commitAndPush("initial");
        h.startAgent("e2e");
        h.awaitAdopted("web", 3);
        await().atMost(Duration.ofSeconds(30)).until(() -> initial.equals(acceptedCommitInRecord()));
        h.kube.clearRequests();

        // A downgrade, and with it a label: the whole commit is kept out.
        h.work.write("all.yaml", SPEC.formatted("1.30.0", "  labels: {team: web}\n"));
        h.work.commitAndPush("downgrade");
        h.agent.pollNow();
        await().atMost(Duration.ofSeconds(30)).until(() -> refusesTheDowngrade(h.agent));

        h.stopAgent();
        h.startAgent("e2e");
        await("the restarted agent refuses it too").atMost(Duration.ofSeconds(30)).until(() -> refusesTheDowngrade(h.agent));
        assertThat(status(h.agent).path("revision").asText()).isEqualTo(initial);
        h.idleThroughReconciles("web-1", 2);
        assertThat(h.kube.requests()).as("after a restart").noneMatch(TOUCHES);

        h.stopAgent();
        h.agent = null;
        replicaClient = new KubernetesClientBuilder().withConfig(new ConfigBuilder(h.kube.config())
                .withUserAgent(AgentHarness.AGENT).build()).build();
        Agent first = replica("replica-a");
        await().atMost(Duration.ofSeconds(30)).until(first::leading);
        await().atMost(Duration.ofSeconds(30)).until(() -> refusesTheDowngrade(first));
        Agent second = replica("replica-b");
        await().atMost(Duration.ofSeconds(30)).until(() -> second.latestCommit().isPresent());
        first.close();
        await("the standby leads").atMost(Duration.ofSeconds(30)).until(second::leading);
        await("the new leader refuses it too").atMost(Duration.ofSeconds(30)).until(() -> refusesTheDowngrade(second));
        assertThat(status(second).path("revision").asText()).isEqualTo(initial);
        h.agent = second;
        h.idleThroughReconciles("web-1", 2);

        assertThat(h.kube.requests()).as("after a restart and a failover").noneMatch(TOUCHES);
        assertThat(h.nodes("web")).hasSize(3).noneMatch(n -> n.getMetadata().getLabels().containsKey("team"));
        assertThat(acceptedCommitInRecord()).isEqualTo(initial);
    }

    private Agent replica(String identity) throws Exception {
        AgentConfig config = TestAgentConfig.of(h.daemon.url("specs.git"), "e2e", tmp.resolve("cache-" + identity))
                .with(new AgentConfig.LeaderElection(true, "nightshift-leader", Duration.ofSeconds(2), identity));
        Agent agent = new Agent(config, replicaClient, h.provider, Clock.systemUTC(), r -> { });
        replicas.add(agent);
        agent.start();
        return agent;
    }

    @org.junit.jupiter.api.AfterEach
    void closeReplicas() {
        replicas.forEach(Agent::close);
    }

    private String acceptedCommitInRecord() {
        ConfigMap record = h.kube.client().configMaps().inNamespace(Agent.NAMESPACE).withName(PoolStatusRecords.name("web")).get();
        return record == null ? null : PoolStatusRecords.accepted(record).map(PoolStatusRecords.Accepted::commit).orElse(null);
    }

    private static JsonNode status(Agent agent) throws Exception {
        return JSON.readTree(agent.status());
    }

    private static boolean refusesTheDowngrade(Agent agent) throws Exception {
        for (JsonNode refusal : status(agent).path("rejectedChanges")) {
            if (refusal.asText().contains(DOWNGRADE)) {
                return true;
            }
        }
        return false;
    }
}
