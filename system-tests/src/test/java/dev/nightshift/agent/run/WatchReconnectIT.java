package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.kube.NodeMarks;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * Every connection between the agent and the API server is cut: the watches reconnect by
 * themselves, and the agent goes on seeing the cluster — a node that joins afterwards is adopted.
 */
class WatchReconnectIT {

    @TempDir
    Path tmp;

    private AgentHarness h;
    private SeveringProxy proxy;
    private KubernetesClient throughProxy;

    @AfterEach
    void stop() throws Exception {
        if (h != null) {
            h.close();
        }
        if (throughProxy != null) {
            throughProxy.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void afterEveryConnectionIsCutTheAgentStillSeesTheCluster() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 3);
        h.push("initial", ScenarioSpecs.CLUSTER, ScenarioSpecs.web());
        proxy = new SeveringProxy(h.kube.port());
        throughProxy = new KubernetesClientBuilder().withConfig(new ConfigBuilder(h.kube.config())
                .withMasterUrl("http://127.0.0.1:" + proxy.port()).build()).build();
        AgentConfig config = TestAgentConfig.of(h.daemon.url("specs.git"), "e2e", tmp.resolve("cache"));
        h.agent = new Agent(config, throughProxy, h.provider, Clock.systemUTC(), r -> { });
        h.agent.start();
        h.awaitAdopted("web", 3);
        h.awaitPoolRecord("web");
        h.kube.clearRequests();
        assertThat(proxy.sever()).as("the watches' connections were open").isGreaterThanOrEqualTo(3);
        await("the informers list again and watch anew").atMost(Duration.ofSeconds(60))
                .until(() -> h.kube.requests().stream().anyMatch(r -> r.method().equals("GET") && r.resourcePath().equals("/api/v1/nodes")
                        && r.query().contains("watch=true")));
        // A machine joins after the informers listed again: only the watch that came back can show it.
        h.provider.seed("web", "web-4", Optional.empty(), Optional.empty());

        await().atMost(Duration.ofSeconds(60)).until(() -> h.nodes("web").stream()
                .anyMatch(n -> n.getMetadata().getName().equals("web-4") && !annotation(n, NodeMarks.ROLL_HASH).isEmpty()));
    }
}
