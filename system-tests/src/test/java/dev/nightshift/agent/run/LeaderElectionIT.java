package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.nightshift.cli.JavaCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * Two replicas and a Lease: only the leader acts; the other is ready but idle, and takes over when
 * the leader goes. What acted is read from the embedded API's request log.
 */
class LeaderElectionIT {

    /** Three unstamped nodes to adopt, with no rollout settings: only who acts is of interest. */
    private static final ScenarioSpecs.Pool WEB = ScenarioSpecs.web();

    @TempDir
    Path tmp;

    private AgentHarness harness;
    private Agent other;

    @BeforeEach
    void start() throws Exception {
        harness = new AgentHarness(tmp, "e2e", "web", 3);
        harness.push("initial", ScenarioSpecs.CLUSTER, WEB);
    }

    @AfterEach
    void stop() {
        if (other != null) {
            other.close();
        }
        harness.close();
    }

    /** Short: a leader cut off from the API steps down quickly. */
    private static final Duration SHORT_LEASE = Duration.ofSeconds(2);
    /**
     * Long enough that a standby taking over within {@link #TAKEOVER} proves the lease was released,
     * not left to expire.
     */
    private static final Duration LONG_LEASE = Duration.ofSeconds(20);
    private static final Duration TAKEOVER = Duration.ofSeconds(5);
    private static final Path JAR = Path.of(System.getProperty("nightshift.jar", "../cli/target/nightshift.jar"));

    private Agent replica(String identity) throws Exception {
        return replica(identity, harness.kube.client(), SHORT_LEASE);
    }

    private Agent replica(String identity, Duration lease) throws Exception {
        return replica(identity, harness.kube.client(), lease);
    }

    private Agent replica(String identity, KubernetesClient client) throws Exception {
        return replica(identity, client, SHORT_LEASE);
    }

    private Agent replica(String identity, KubernetesClient client, Duration lease) throws Exception {
        AgentConfig config = TestAgentConfig.of(harness.daemon.url("specs.git"), "e2e", tmp.resolve("cache-" + identity))
                .with(new AgentConfig.LeaderElection(true, "nightshift-leader", lease, identity));
        Agent agent = new Agent(config, client, harness.provider, Clock.systemUTC(), r -> { });
        agent.start();
        return agent;
    }

    private static HttpResponse<String> get(Agent agent, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agent.httpPort() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aReplicaStandingByIsReadyButIdleAndTakesOverWhenTheLeaseIsFree() throws Exception {
        // Someone else holds the lease for an hour.
        Lease held = harness.kube.client().leases().inNamespace(Agent.NAMESPACE).resource(new LeaseBuilder()
                .withNewMetadata().withName("nightshift-leader").withNamespace(Agent.NAMESPACE).endMetadata()
                .withNewSpec().withHolderIdentity("someone-else").withLeaseDurationSeconds(3600)
                .withAcquireTime(ZonedDateTime.now()).withRenewTime(ZonedDateTime.now()).endSpec().build()).create();
        assertThat(held).isNotNull();
        harness.kube.clearRequests();
        harness.agent = replica("replica-a");

        await().atMost(Duration.ofSeconds(30)).until(() -> get(harness.agent, "/readyz").statusCode() == 200);
        assertThat(get(harness.agent, "/readyz").body()).contains("standing by").contains("someone-else leads");
        assertThat(harness.agent.status()).contains("\"leading\" : false");
        assertThat(get(harness.agent, "/metrics").body()).contains("nightshift_leader 0.0");
        // Unstamped nodes wait for adoption, and still nothing is written while another replica leads:
        // no node, no status record, no event, no lease.
        await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(6))
                .until(() -> harness.kube.requests().stream().noneMatch(RecordedRequest::isWrite));

        harness.kube.client().leases().inNamespace(Agent.NAMESPACE).withName("nightshift-leader").delete();

        await().atMost(Duration.ofSeconds(30)).until(harness.agent::leading);
        harness.awaitAdopted("web", 3);
        assertThat(get(harness.agent, "/readyz").body()).contains("leading");
        assertThat(harness.kube.client().leases().inNamespace(Agent.NAMESPACE).withName("nightshift-leader").get().getSpec()
                .getHolderIdentity()).isEqualTo("replica-a");
    }

    @Test
    void aLeaderClosedReleasesItsLeaseAndTheStandbyTakesOverWithinSecondsAndActs() throws Exception {
        harness.agent = replica("replica-a", LONG_LEASE);
        await().atMost(Duration.ofSeconds(30)).until(harness.agent::leading);
        harness.awaitAdopted("web", 3);
        other = replica("replica-b", LONG_LEASE);
        await().atMost(Duration.ofSeconds(30)).until(() -> get(other, "/readyz").statusCode() == 200);
        assertThat(other.leading()).isFalse();
        assertThat(get(other, "/metrics").body()).contains("nightshift_leader 0.0");

        Instant stopping = Instant.now();
        harness.stopAgent();
        Instant tookOver = await().atMost(LONG_LEASE.plusSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> other.leading() ? Instant.now() : null, java.util.Objects::nonNull);

        assertThat(Duration.between(stopping, tookOver)).as("from the leader's close to the standby leading; a lease"
                + " left to expire takes up to %s", LONG_LEASE).isLessThan(TAKEOVER);
        // The new leader acts: a label change pushed now is propagated by it.
        harness.push("label the pool", WEB.with("labels", "{team: web}"));
        other.pollNow();
        await().atMost(Duration.ofSeconds(60)).until(() -> harness.nodes("web").stream()
                .allMatch(n -> "web".equals(n.getMetadata().getLabels().get("team"))));
        assertThat(get(other, "/metrics").body()).contains("nightshift_leader 1.0");
        assertThat(other.status()).contains("\"leader\" : \"replica-b\"");
    }

    /** {@code nightshift run --leader-elect} from the jar, as a pod runs it, stopped as Kubernetes stops a pod. */
    @Test
    void aLeaderProcessStoppedBySigtermReleasesItsLeaseAndTheStandbyTakesOverWithinSeconds() throws Exception {
        Path kubeconfig = harness.kube.writeKubeconfig(tmp.resolve("kubeconfig"));
        Path config = Files.writeString(tmp.resolve("agent.yaml"), "leaderElection: {enabled: true, leaseDuration: 20s}\n");
        Path screen = tmp.resolve("agent.out");
        List<String> command = JavaCommand.jar(JAR);
        command.addAll(List.of("run", "--config", config.toString(), "--kubeconfig", kubeconfig.toString(),
                "--repo", harness.daemon.url("specs.git"), "--cluster", "e2e", "--poll-interval", "1s", "--http-port", "0",
                "--cache-dir", tmp.resolve("cache-process").toString(), "--leader-elect", "--provider", "simulated"));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(screen.toFile());
        builder.environment().put("POD_NAME", "process-a");
        Process leader = builder.start();
        try {
            await("the process leads").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .failFast("the process exited: " + screen, () -> !leader.isAlive())
                    .until(() -> "process-a".equals(holder()));
            harness.awaitAdopted("web", 3);
            other = replica("replica-b", LONG_LEASE);
            await().atMost(Duration.ofSeconds(30)).until(() -> get(other, "/readyz").statusCode() == 200);
            assertThat(other.leading()).isFalse();

            Instant stopping = Instant.now();
            leader.destroy();
            Instant tookOver = await().atMost(LONG_LEASE.plusSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .until(() -> other.leading() ? Instant.now() : null, java.util.Objects::nonNull);

            assertThat(Duration.between(stopping, tookOver)).as("from SIGTERM to the standby leading; a lease left to"
                    + " expire takes up to %s; agent: %s", LONG_LEASE, Files.readString(screen)).isLessThan(TAKEOVER);
            assertThat(leader.waitFor(30, TimeUnit.SECONDS)).as("the process exits on SIGTERM").isTrue();
            assertThat(holder()).isEqualTo("replica-b");
        } finally {
            if (leader.isAlive()) {
                leader.destroyForcibly();
            }
        }
    }

    private String holder() {
        Lease lease = harness.kube.client().leases().inNamespace(Agent.NAMESPACE).withName("nightshift-leader").get();
        return lease == null ? null : lease.getSpec().getHolderIdentity();
    }

    @Test
    void aLeaderThatCannotRenewStandsByAndLeadsAgainWhenTheApiIsBack() throws Exception {
        try (SeveringProxy proxy = new SeveringProxy(harness.kube.port());
             KubernetesClient throughProxy = new KubernetesClientBuilder().withConfig(new ConfigBuilder(harness.kube.config())
                     .withMasterUrl("http://127.0.0.1:" + proxy.port()).build()).build()) {
            harness.agent = replica("replica-a", throughProxy);
            await().atMost(Duration.ofSeconds(30)).until(harness.agent::leading);
            harness.awaitAdopted("web", 3);
            harness.awaitPoolRecord("web");

            proxy.refuse(true);
            // The lease lasts 2 s and must be renewed within 1.3 s: the leader steps down.
            await().atMost(Duration.ofSeconds(30)).until(() -> !harness.agent.leading());
            proxy.refuse(false);

            await().atMost(Duration.ofSeconds(60)).until(harness.agent::leading);
            assertThat(harness.kube.client().leases().inNamespace(Agent.NAMESPACE).withName("nightshift-leader").get().getSpec()
                    .getHolderIdentity()).isEqualTo("replica-a");
            // And it acts again: a label pushed now is propagated.
            harness.push("label the pool", WEB.with("labels", "{team: web}"));
            harness.agent.pollNow();
            await().atMost(Duration.ofSeconds(60)).until(() -> harness.nodes("web").stream()
                    .allMatch(n -> "web".equals(n.getMetadata().getLabels().get("team"))));
            harness.stopAgent();
            harness.agent = null;
        }
    }
}
