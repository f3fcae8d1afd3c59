package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.rollHash;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.Node;

/**
 * The whole agent: a real git binary pushes to a git daemon on loopback, the agent polls it and
 * rolls the pool in the embedded cluster. Assertions about what happened come from the cluster's
 * own request log.
 */
class AgentEndToEndIT {

    /** Three nodes replaced one at a time, each new one Ready before an old one goes. */
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

    @Test
    void aPushedImageBumpIsRolledOutWithinTheLimits() throws Exception {
        String before = rollHash(h.nodes("web").get(0));
        List<Node> start = h.nodes("web");
        h.kube.clearRequests();

        h.push("bump", WEB.withImage("1632.0.0"));

        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
            assertThat(h.nodes("web")).hasSize(3).extracting(AgentHarness::rollHash).doesNotContain(before).hasSize(3);
            assertThat(h.nodes("web")).extracting(AgentHarness::rollHash).containsOnly(rollHash(h.nodes("web").get(0)));
        });
        List<RecordedRequest> log = h.kube.requests();
        long created = log.stream().filter(r -> r.method().equals("POST") && r.resourcePath().equals("/api/v1/nodes")).count();
        long deleted = log.stream().filter(r -> r.method().equals("DELETE") && r.resourcePath().startsWith("/api/v1/nodes/")).count();
        assertThat(created).as("one new node per old node, no extra machine").isEqualTo(3);
        assertThat(deleted).isEqualTo(3);
        ClusterTimeline.Moment fullest = ClusterTimeline.replay(start, log).mostNodes("web");
        assertThat(fullest.pool("web")).as("never more than count + maxSurge nodes; the fullest moment: %s", fullest).hasSize(4);
        assertThat(h.agent.status()).contains("\"specValid\" : true");
    }

    @Test
    void aBrokenCommitTouchesNothingAndTheNextGoodOneIsApplied() throws Exception {
        String stamped = rollHash(h.nodes("web").get(0));
        h.kube.clearRequests();

        String broken = h.push("broken", WEB.withImage("1632.0.0").with("maxSurge", "lots"));
        await().atMost(Duration.ofSeconds(30)).until(() -> h.agent.status().contains(broken) && !h.agent.specErrors().isEmpty());

        assertThat(h.agent.specErrors()).singleElement().satisfies(e -> assertThat(e.toString())
                .isEqualTo("pools/web.yaml:7:13: spec.maxSurge: must be an int >= 0 or a percentage from 0% to 100%, got \"lots\""));
        assertThat(h.kube.requests()).as("no write to any node after the broken commit")
                .noneMatch(r -> r.isWrite() && r.resourcePath().startsWith("/api/v1/nodes"));
        assertThat(h.nodes("web")).extracting(AgentHarness::rollHash).containsOnly(stamped);
        assertThat(h.agent.status()).contains("\"specValid\" : false").contains("spec.maxSurge");
        // Events are written on the recorder's own thread: a moment after the status may say so.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(h.kube.client().v1().events().inNamespace(Agent.NAMESPACE)
                .list().getItems()).anySatisfy(e -> assertThat(e.getMessage()).contains(broken).contains("pools/web.yaml:7:13: spec.maxSurge")));

        h.push("fixed", WEB.withImage("1632.0.0"));

        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(h.nodes("web")).hasSize(3)
                .extracting(AgentHarness::rollHash).doesNotContain(stamped));
        assertThat(h.agent.specErrors()).isEmpty();
    }

    @Test
    void pauseHoldsARolloutAndResumeReleasesIt() throws Exception {
        String stamped = rollHash(h.nodes("web").get(0));
        Path kubeconfig = h.kube.writeKubeconfig(tmp.resolve("kubeconfig"));
        assertThat(dev.nightshift.cli.Main.commandLine().execute("pause", "--pool", "web", "--kubeconfig", kubeconfig.toString()))
                .isZero();
        await().atMost(Duration.ofSeconds(30)).until(() -> h.agent.status().contains("\"PAUSED\"")
                || h.agent.status().contains("\"phase\" : \"CURRENT\""));
        h.kube.clearRequests();

        String bump = h.push("bump while paused", WEB.withImage("1632.0.0"));
        await().atMost(Duration.ofSeconds(30)).until(() -> h.agent.status().contains(bump) && h.agent.status().contains("\"PAUSED\""));

        assertThat(h.kube.requests()).as("nothing disrupted while paused").noneMatch(r -> r.isWrite()
                && (r.resourcePath().equals("/api/v1/nodes") || r.method().equals("DELETE") || r.body().contains("unschedulable")));
        assertThat(h.nodes("web")).extracting(AgentHarness::rollHash).containsOnly(stamped);

        assertThat(dev.nightshift.cli.Main.commandLine().execute("resume", "--pool", "web", "--kubeconfig", kubeconfig.toString()))
                .isZero();
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(h.nodes("web")).hasSize(3)
                .extracting(AgentHarness::rollHash).doesNotContain(stamped));
    }
}
