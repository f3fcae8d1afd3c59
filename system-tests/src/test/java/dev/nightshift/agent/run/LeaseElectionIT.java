package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.fence.Fence;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;

/**
 * One replica's election on its own, against fabric8's mock API server: what it tells its listener
 * and what it leaves in the Lease. The whole agent's election is {@link LeaderElectionIT}.
 */
@EnableKubernetesMockClient(crud = true)
class LeaseElectionIT {

    private static final String NAMESPACE = "nightshift-system";
    private static final String LEASE = "nightshift-leader";
    private static final Duration SHORT_LEASE = Duration.ofSeconds(2);

    KubernetesClient client;

    private LeaseElection election;
    private LeaseElection other;

    /** What the election told, in order. */
    private final List<String> heard = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        for (LeaseElection e : new LeaseElection[] {election, other}) {
            if (e != null) {
                e.close();
            }
        }
    }

    private LeaseElection join(String identity, Duration lease) {
        election = join(identity, lease, heard);
        return election;
    }

    /** What the replica that joined last may write: its fence. */
    private Fence fence;

    private LeaseElection join(String identity, Duration lease, List<String> heard) {
        AgentConfig.LeaderElection settings = new AgentConfig.LeaderElection(true, LEASE, lease, identity);
        fence = Fence.lease(java.time.Clock.systemUTC(), settings.renewDeadline());
        LeaseElection joined = new LeaseElection(settings, NAMESPACE,
                client.getConfiguration(), List.of(), new LeaseElection.Listener() {
                    @Override
                    public void leading() {
                        heard.add("leading");
                    }

                    @Override
                    public void tookOver() {
                        heard.add("tookOver");
                    }

                    @Override
                    public void standingBy() {
                        heard.add("standingBy");
                    }

                    @Override
                    public void leaderChanged(String leader) {
                        heard.add("leader " + leader);
                    }
                }, fence, java.time.Clock.systemUTC());
        joined.start();
        return joined;
    }

    private Lease heldBy(String identity) {
        return client.leases().inNamespace(NAMESPACE).resource(new LeaseBuilder()
                .withNewMetadata().withName(LEASE).withNamespace(NAMESPACE).endMetadata()
                .withNewSpec().withHolderIdentity(identity).withLeaseDurationSeconds(3600)
                .withAcquireTime(ZonedDateTime.now()).withRenewTime(ZonedDateTime.now()).endSpec().build())
                .createOr(op -> op.update());
    }

    private String holder() {
        Lease lease = client.leases().inNamespace(NAMESPACE).withName(LEASE).get();
        return lease == null ? null : lease.getSpec().getHolderIdentity();
    }

    @Test
    void aFreeLeaseIsTakenAndTheLeaderIsToldToLeadThenToTakeOver() {
        join("replica-a", SHORT_LEASE);

        await().atMost(Duration.ofSeconds(20)).until(() -> heard.contains("tookOver"));
        assertThat(heard).containsSubsequence("leading", "tookOver").contains("leader replica-a").doesNotContain("standingBy");
        assertThat(holder()).isEqualTo("replica-a");
    }

    @Test
    void aLeaderLeavingReleasesItsLeaseSoThatAnotherReplicaTakesItWithinSeconds() {
        Duration lease = Duration.ofSeconds(60);
        join("replica-a", lease);
        await().atMost(Duration.ofSeconds(20)).until(() -> heard.contains("tookOver"));
        List<String> heardByB = new CopyOnWriteArrayList<>();
        other = join("replica-b", lease, heardByB);
        await().atMost(Duration.ofSeconds(20)).until(() -> heardByB.contains("leader replica-a"));

        election.leave();

        // Left to expire, the lease would hold replica-b off for a minute.
        await().atMost(Duration.ofSeconds(10)).until(() -> heardByB.contains("leading"));
        assertThat(holder()).isEqualTo("replica-b");
    }

    @Test
    void aReplicaStandingByHearsTheLeaderAndDoesNotLead() {
        heldBy("someone-else");

        join("replica-a", SHORT_LEASE);

        await().atMost(Duration.ofSeconds(20)).until(() -> heard.contains("leader someone-else"));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> !heard.contains("leading"));
        assertThat(holder()).isEqualTo("someone-else");
    }

    @Test
    void aLeaderThatLosesItsLeaseStandsByAndJoinsAgain() {
        join("replica-a", SHORT_LEASE);
        await().atMost(Duration.ofSeconds(20)).until(() -> heard.contains("tookOver"));
        assertThat(fence.held()).as("the leader may write").isTrue();

        // Another replica took the lease (as after this one could not renew it in time).
        heldBy("someone-else");
        await().atMost(Duration.ofSeconds(20)).until(() -> heard.contains("standingBy"));
        assertThat(fence.held()).as("a replica that lost its lease writes nothing").isFalse();
        heard.clear();
        client.leases().inNamespace(NAMESPACE).withName(LEASE).delete();

        await().atMost(Duration.ofSeconds(20)).until(() -> heard.contains("leading"));
        assertThat(holder()).isEqualTo("replica-a");
    }

    @Test
    void aClientFencedByALostLeaseSendsNoWriteFirstAttemptOrRetryAndStillReads() {
        Fence lost = Fence.lease(java.time.Clock.systemUTC(), Duration.ofSeconds(10));
        try (io.fabric8.kubernetes.client.KubernetesClient fenced = new io.fabric8.kubernetes.client.KubernetesClientBuilder()
                .withConfig(client.getConfiguration())
                .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("nightshift-fence",
                        new dev.nightshift.agent.fence.FenceInterceptor(lost))).build()) {

            assertThatThrownBy(() -> fenced.configMaps().inNamespace(NAMESPACE).resource(new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                    .withNewMetadata().withName("written-while-fenced").endMetadata().build()).create())
                    .hasStackTraceContaining("not sent: this replica's lease was not renewed");
            assertThat(fenced.configMaps().inNamespace(NAMESPACE).withName("written-while-fenced").get()).isNull();
        }
    }

    @Test
    void noElectionIsJoinedAfterClose() {
        heldBy("someone-else");
        join("replica-a", SHORT_LEASE);
        await().atMost(Duration.ofSeconds(20)).until(() -> heard.contains("leader someone-else"));

        election.leave();
        client.leases().inNamespace(NAMESPACE).withName(LEASE).delete();

        // Ten retry periods and more: a replica still in the election would have taken the free lease.
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> holder() == null);
        assertThat(heard).doesNotContain("leading");
    }
}
