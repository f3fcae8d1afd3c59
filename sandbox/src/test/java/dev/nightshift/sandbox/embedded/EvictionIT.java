package dev.nightshift.sandbox.embedded;

import static dev.nightshift.sandbox.embedded.Fixtures.NS;
import static dev.nightshift.sandbox.embedded.Fixtures.evictionBody;
import static dev.nightshift.sandbox.embedded.Fixtures.evictionPath;
import static dev.nightshift.sandbox.embedded.Fixtures.maxUnavailable;
import static dev.nightshift.sandbox.embedded.Fixtures.minAvailable;
import static dev.nightshift.sandbox.embedded.Fixtures.pod;
import static dev.nightshift.sandbox.embedded.Fixtures.post;
import static dev.nightshift.sandbox.embedded.Fixtures.readyPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpResponse;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.LabelSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/** The eviction subresource: budgets enforced as the API server does, and throttling on demand. */
class EvictionIT {

    private static final Map<String, String> WEB = Map.of("app", "web");

    private final EmbeddedKubernetes cluster = EmbeddedKubernetes.start();
    private final KubernetesClient client = cluster.client();
    private final KubernetesClient evictor = Fixtures.noRetryClient(cluster);
    private final KubernetesSerialization json = new KubernetesSerialization();

    @AfterEach
    void stop() {
        evictor.close();
        cluster.close();
    }

    private void pods(String... names) {
        for (String name : names) {
            client.pods().inNamespace(NS).resource(readyPod(name, WEB)).create();
        }
    }

    private void budget(PodDisruptionBudget pdb) {
        client.policy().v1().podDisruptionBudget().inNamespace(NS).resource(pdb).create();
    }

    private boolean exists(String pod) {
        return client.pods().inNamespace(NS).withName(pod).get() != null;
    }

    private HttpResponse<String> evict(String pod) throws Exception {
        return post(cluster, evictionPath(pod), evictionBody(pod));
    }

    @Test
    void anEvictionThePdbPermitsDeletesThePodAndAnswers201() throws Exception {
        pods("web-1", "web-2");
        budget(minAvailable("web-pdb", 1, WEB));

        HttpResponse<String> response = evict("web-1");

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(json.unmarshal(response.body(), Status.class).getStatus()).isEqualTo("Success");
        assertThat(exists("web-1")).isFalse();
        assertThat(exists("web-2")).isTrue();
    }

    @Test
    void anEvictionThatWouldViolateThePdbAnswers429WithADisruptionBudgetCauseNamingIt() throws Exception {
        pods("web-1", "web-2");
        budget(minAvailable("web-pdb", 2, WEB));

        HttpResponse<String> response = evict("web-1");

        assertThat(response.statusCode()).isEqualTo(429);
        Status status = json.unmarshal(response.body(), Status.class);
        assertThat(status.getReason()).isEqualTo("TooManyRequests");
        assertThat(status.getMessage()).isEqualTo("Cannot evict pod as it would violate the pod's disruption budget.");
        assertThat(status.getDetails().getCauses()).singleElement().satisfies(cause -> {
            assertThat(cause.getReason()).isEqualTo("DisruptionBudget");
            assertThat(cause.getMessage()).isEqualTo("The disruption budget web-pdb needs 2 healthy pods and has 2 currently");
        });
        assertThat(exists("web-1")).isTrue();
    }

    @Test
    void theFabric8ClientEvictsWhenThePdbPermits() {
        pods("web-1", "web-2", "web-3");
        budget(maxUnavailable("web-pdb", 1, WEB));

        assertThat(evictor.pods().inNamespace(NS).withName("web-2").evict()).isTrue();
        assertThat(exists("web-2")).isFalse();
    }

    @Test
    void theFabric8ClientGetsFalseWhenThePdbBlocks() {
        pods("web-1", "web-2", "web-3");
        budget(maxUnavailable("web-pdb", 0, WEB));

        assertThat(evictor.pods().inNamespace(NS).withName("web-2").evict()).isFalse();
        assertThat(exists("web-2")).isTrue();
    }

    @Test
    void maxUnavailableCountsAgainstTheReplicasOfThePodsController() {
        client.apps().replicaSets().inNamespace(NS).resource(new ReplicaSetBuilder()
                .withNewMetadata().withName("web-7d9f").withNamespace(NS).endMetadata()
                .withNewSpec().withReplicas(3).withNewSelector().withMatchLabels(WEB).endSelector().endSpec().build()).create();
        for (String name : new String[] {"web-1", "web-2", "web-3"}) {
            client.pods().inNamespace(NS).resource(readyPod(name, WEB).edit().editMetadata()
                    .addNewOwnerReference().withApiVersion("apps/v1").withKind("ReplicaSet").withName("web-7d9f")
                    .withUid("rs-uid").withController(true).endOwnerReference().endMetadata().build()).create();
        }
        budget(maxUnavailable("web-pdb", 1, WEB));

        assertThat(evictor.pods().inNamespace(NS).withName("web-1").evict()).isTrue();
        // 3 expected (the ReplicaSet's replicas), 2 desired, 2 healthy until a replacement is Ready.
        assertThat(evictor.pods().inNamespace(NS).withName("web-2").evict()).isFalse();
        assertThat(exists("web-2")).isTrue();
    }

    @Test
    void withoutControllersEachRemainingPodIsExpected() {
        pods("web-1", "web-2");
        budget(maxUnavailable("web-pdb", 1, WEB));

        assertThat(evictor.pods().inNamespace(NS).withName("web-1").evict()).isTrue();
        // 1 expected (the pod left), 0 desired: nothing replaces evicted pods here, so the last one may go too.
        assertThat(evictor.pods().inNamespace(NS).withName("web-2").evict()).isTrue();
    }

    @Test
    void aBudgetWithNeitherMinAvailableNorMaxUnavailableBlocksEveryEviction() throws Exception {
        pods("web-1", "web-2");
        budget(new PodDisruptionBudgetBuilder().withNewMetadata().withName("web-pdb").withNamespace(NS).endMetadata()
                .withNewSpec().withNewSelector().withMatchLabels(WEB).endSelector().endSpec().build());

        assertThat(evict("web-1").statusCode()).isEqualTo(429);
    }

    @Test
    void aPodMatchedByNoPdbIsEvicted() throws Exception {
        pods("web-1");
        client.pods().inNamespace(NS).resource(readyPod("db-1", Map.of("app", "db"))).create();
        budget(minAvailable("web-pdb", 1, WEB));

        assertThat(evict("db-1").statusCode()).isEqualTo(201);
        assertThat(exists("db-1")).isFalse();
    }

    @Test
    void aPercentageMinAvailableRoundsUpAgainstTheMatchingPods() throws Exception {
        pods("web-1", "web-2", "web-3");
        budget(minAvailable("web-pdb", "50%", WEB)); // ceil(1.5) = 2 of 3 must stay: one may go

        assertThat(evict("web-1").statusCode()).isEqualTo(201);
        // Now ceil(50% of 2) = 1 must stay and 2 are healthy: one more may go.
        assertThat(evict("web-2").statusCode()).isEqualTo(201);
        assertThat(evict("web-3").statusCode()).isEqualTo(429);
        assertThat(exists("web-3")).isTrue();
    }

    @Test
    void aPodThatIsNotReadyDoesNotCountAsHealthy() throws Exception {
        pods("web-1");
        client.pods().inNamespace(NS).resource(pod("web-2", WEB, "Running", "False")).create();
        budget(minAvailable("web-pdb", 1, WEB));

        HttpResponse<String> response = evict("web-1");

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.body()).contains("needs 1 healthy pods and has 1 currently");
    }

    @Test
    void aRunningPodWithoutConditionsCountsAsHealthy() throws Exception {
        client.pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata().withName("web-1").withLabels(WEB)
                .endMetadata().withNewStatus().withPhase("Running").endStatus().build()).create();
        budget(minAvailable("web-pdb", 1, WEB));

        HttpResponse<String> response = evict("web-1");

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.body()).contains("needs 1 healthy pods and has 1 currently");
    }

    @Test
    void anUnhealthyPodMayGoWhileTheBudgetIsMet() throws Exception {
        pods("web-1");
        client.pods().inNamespace(NS).resource(pod("web-2", WEB, "Running", "False")).create();
        budget(minAvailable("web-pdb", 1, WEB));

        assertThat(evict("web-2").statusCode()).isEqualTo(201);
        assertThat(exists("web-2")).isFalse();
    }

    @Test
    void aPendingPodIsEvictedWhateverTheBudget() throws Exception {
        client.pods().inNamespace(NS).resource(pod("web-1", WEB, "Pending", "False")).create();
        budget(minAvailable("web-pdb", 5, WEB));

        assertThat(evict("web-1").statusCode()).isEqualTo(201);
    }

    @Test
    void matchExpressionsSelectThePodsOfABudget() throws Exception {
        pods("web-1");
        budget(new PodDisruptionBudgetBuilder().withNewMetadata().withName("web-pdb").withNamespace(NS).endMetadata()
                .withNewSpec().withNewMinAvailable(1).withNewSelector()
                .withMatchExpressions(new LabelSelectorRequirementBuilder().withKey("app").withOperator("In")
                        .withValues("web", "api").build())
                .endSelector().endSpec().build());

        assertThat(evict("web-1").statusCode()).isEqualTo(429);
    }

    @Test
    void aPodUnderTwoBudgetsCannotBeEvicted() throws Exception {
        pods("web-1", "web-2");
        budget(minAvailable("web-pdb", 1, WEB));
        budget(maxUnavailable("all-pdb", 1, Map.of()));

        HttpResponse<String> response = evict("web-1");

        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(response.body()).contains("more than one PodDisruptionBudget");
        assertThat(exists("web-1")).isTrue();
    }

    @Test
    void evictingAMissingPodAnswers404() throws Exception {
        assertThat(evict("ghost").statusCode()).isEqualTo(404);
        assertThatThrownBy(() -> evictor.pods().inNamespace(NS).withName("ghost").evict())
                .isInstanceOf(KubernetesClientException.class)
                .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(404));
    }

    @Test
    void forcedThrottlingAnswersAPlain429WithoutADisruptionBudgetCause() throws Exception {
        pods("web-1");
        cluster.throttleEvictions(1);

        HttpResponse<String> response = evict("web-1");

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.headers().firstValue("Retry-After")).contains("1");
        Status status = json.unmarshal(response.body(), Status.class);
        assertThat(status.getDetails()).isNull();
        assertThat(response.body()).doesNotContain("DisruptionBudget");
        assertThat(exists("web-1")).isTrue();
    }

    @Test
    void throttlingEndsAfterTheRequestedNumberOfEvictions() {
        pods("web-1");
        cluster.throttleEvictions(2);

        assertThat(evictor.pods().inNamespace(NS).withName("web-1").evict()).isFalse();
        assertThat(evictor.pods().inNamespace(NS).withName("web-1").evict()).isFalse();
        assertThat(evictor.pods().inNamespace(NS).withName("web-1").evict()).isTrue();
        assertThat(exists("web-1")).isFalse();
    }

    @Test
    void aDryRunEvictionLeavesThePod() throws Exception {
        pods("web-1");

        HttpResponse<String> response = post(cluster, evictionPath("web-1"), """
                {"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"web-1"},"deleteOptions":{"dryRun":["All"]}}""");

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(exists("web-1")).isTrue();
    }
}
