package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
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
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import io.fabric8.kubernetes.api.model.Node;

/**
 * The whole agent: a real git binary pushes to a git daemon on loopback, the agent polls it and
 * rolls the pool in the embedded cluster. Assertions about what happened come from the cluster's
 * own request log.
 */
class AgentEndToEndIT {

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

    @Test
    void aPushedImageBumpIsRolledOutWithinTheLimits() throws Exception {
        awaitStamped();
        String before = hash(nodes().get(0));
        List<Node> start = nodes();
        kube.clearRequests();

        work.write("pools/web.yaml", pool("1632.0.0"));
        work.commitAndPush("bump");

        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
            assertThat(nodes()).hasSize(3).extracting(AgentEndToEndIT::hash).doesNotContain(before).hasSize(3);
            assertThat(nodes()).extracting(AgentEndToEndIT::hash).containsOnly(hash(nodes().get(0)));
        });
        List<RecordedRequest> log = kube.requests();
        long created = log.stream().filter(r -> r.method().equals("POST") && r.resourcePath().equals("/api/v1/nodes")).count();
        long deleted = log.stream().filter(r -> r.method().equals("DELETE") && r.resourcePath().startsWith("/api/v1/nodes/")).count();
        assertThat(created).as("one new node per old node, no extra machine").isEqualTo(3);
        assertThat(deleted).isEqualTo(3);
        ClusterTimeline.Moment fullest = ClusterTimeline.replay(start, log).mostNodes("web");
        assertThat(fullest.pool("web")).as("never more than count + maxSurge nodes; the fullest moment: %s", fullest).hasSize(4);
        assertThat(agent.status()).contains("\"specValid\" : true");
    }

    @Test
    void aBrokenCommitTouchesNothingAndTheNextGoodOneIsApplied() throws Exception {
        awaitStamped();
        String stamped = hash(nodes().get(0));
        kube.clearRequests();

        work.write("pools/web.yaml", pool("1632.0.0").replace("maxSurge: 1", "maxSurge: lots"));
        String broken = work.commitAndPush("broken");
        await().atMost(Duration.ofSeconds(30)).until(() -> agent.status().contains(broken) && !agent.specErrors().isEmpty());

        assertThat(agent.specErrors()).singleElement().satisfies(e -> assertThat(e.toString())
                .isEqualTo("pools/web.yaml:7:13: spec.maxSurge: must be an int >= 0 or a percentage from 0% to 100%, got \"lots\""));
        assertThat(kube.requests()).as("no write to any node after the broken commit")
                .noneMatch(r -> r.isWrite() && r.resourcePath().startsWith("/api/v1/nodes"));
        assertThat(nodes()).extracting(AgentEndToEndIT::hash).containsOnly(stamped);
        assertThat(agent.status()).contains("\"specValid\" : false").contains("spec.maxSurge");
        assertThat(kube.client().v1().events().inNamespace(Agent.NAMESPACE).list().getItems())
                .anySatisfy(e -> assertThat(e.getMessage()).contains(broken).contains("pools/web.yaml:7:13: spec.maxSurge"));

        work.write("pools/web.yaml", pool("1632.0.0"));
        work.commitAndPush("fixed");

        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(nodes()).hasSize(3)
                .extracting(AgentEndToEndIT::hash).doesNotContain(stamped));
        assertThat(agent.specErrors()).isEmpty();
    }

    @Test
    void pauseHoldsARolloutAndResumeReleasesIt() throws Exception {
        awaitStamped();
        String stamped = hash(nodes().get(0));
        Path kubeconfig = kube.writeKubeconfig(tmp.resolve("kubeconfig"));
        assertThat(dev.nightshift.cli.Main.commandLine().execute("pause", "--pool", "web", "--kubeconfig", kubeconfig.toString()))
                .isZero();
        await().atMost(Duration.ofSeconds(30)).until(() -> agent.status().contains("\"PAUSED\"")
                || agent.status().contains("\"phase\" : \"CURRENT\""));
        kube.clearRequests();

        work.write("pools/web.yaml", pool("1632.0.0"));
        String bump = work.commitAndPush("bump while paused");
        await().atMost(Duration.ofSeconds(30)).until(() -> agent.status().contains(bump) && agent.status().contains("\"PAUSED\""));

        assertThat(kube.requests()).as("nothing disrupted while paused").noneMatch(r -> r.isWrite()
                && (r.resourcePath().equals("/api/v1/nodes") || r.method().equals("DELETE") || r.body().contains("unschedulable")));
        assertThat(nodes()).extracting(AgentEndToEndIT::hash).containsOnly(stamped);

        assertThat(dev.nightshift.cli.Main.commandLine().execute("resume", "--pool", "web", "--kubeconfig", kubeconfig.toString()))
                .isZero();
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(nodes()).hasSize(3)
                .extracting(AgentEndToEndIT::hash).doesNotContain(stamped));
    }
}
