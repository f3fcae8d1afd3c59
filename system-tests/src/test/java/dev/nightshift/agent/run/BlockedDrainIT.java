package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.strategies.EvictionBackoff;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;

/** A PodDisruptionBudget that refuses every eviction, in both onEvictionBlocked modes. */
class BlockedDrainIT {

    private static final int MAX_EVICT_RETRIES = 2;

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
            """;

    private static String pool(String version, String onBlocked) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: db, cluster: e2e}
                spec:
                  minimum: 1
                  maximum: 2
                  maxSurge: 0
                  maxUnavailable: 1
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                  machineControllerManager: {maxEvictRetries: %d, onEvictionBlocked: %s}
                """.formatted(version, MAX_EVICT_RETRIES, onBlocked);
    }

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    /** One node with a pod whose budget allows no disruption; then an image bump. */
    private void blockedRollout(String onBlocked) throws Exception {
        h = new AgentHarness(tmp, "e2e", "db", 1);
        h.kube.client().pods().inNamespace("shop").resource(new PodBuilder().withNewMetadata().withName("db-0").withNamespace("shop")
                .addToLabels("app", "db").endMetadata().withNewSpec().withNodeName("db-1").addNewContainer().withName("db")
                .withImage("db").endContainer().endSpec().withNewStatus().withPhase("Running").endStatus().build()).create();
        h.kube.client().policy().v1().podDisruptionBudget().inNamespace("shop").resource(new PodDisruptionBudgetBuilder()
                .withNewMetadata().withName("db-pdb").withNamespace("shop").endMetadata().withNewSpec()
                .withMaxUnavailable(new IntOrString(0)).withNewSelector().addToMatchLabels("app", "db").endSelector().endSpec()
                .build()).create();
        h.work.write("cluster.yaml", CLUSTER);
        h.work.write("pools/db.yaml", pool("1631.0.0", onBlocked));
        h.work.commitAndPush("initial");
        h.startAgent("e2e");
        h.awaitAdopted("db", 1);
        h.work.write("pools/db.yaml", pool("1632.0.0", onBlocked));
        h.work.commitAndPush("bump");
    }

    private List<Event> nodeEvents() {
        return h.kube.client().v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> "Node".equals(e.getInvolvedObject().getKind())).toList();
    }

    @Test
    void withWaitTheBudgetIsNeverBypassedAndThePodAndBudgetAreNamed() throws Exception {
        blockedRollout("Wait");

        await().atMost(Duration.ofSeconds(45)).untilAsserted(() -> {
            assertThat(h.agent.status()).contains("\"pod\" : \"db-0\"").contains("\"podDisruptionBudget\" : \"db-pdb\"");
            assertThat(refusedEvictions()).as("evictions of db-0 the budget refused, as the cluster answered them")
                    .hasSizeGreaterThan(MAX_EVICT_RETRIES);
        });
        assertThat(h.kube.requests()).as("no eviction of db-0 went through and nothing deleted it")
                .noneMatch(r -> SeenRequests.isEvictionOf(r, "shop", "db-0") && r.succeeded())
                .noneMatch(r -> r.method().equals("DELETE") && r.resourcePath().equals("/api/v1/namespaces/shop/pods/db-0"));
        assertThat(h.kube.client().pods().inNamespace("shop").withName("db-0").get()).as("never deleted past its budget").isNotNull();
        assertThat(h.nodes("db")).extracting(n -> n.getMetadata().getName()).containsExactly("db-1");
        assertThat(nodeEvents()).anySatisfy(e -> {
            assertThat(e.getInvolvedObject().getName()).isEqualTo("db-1");
            assertThat(e.getReason()).isEqualTo("EvictionBlocked");
            assertThat(e.getMessage()).contains("shop/db-0").contains("db-pdb");
        });
    }

    @Test
    void withForceDeleteThePodIsDeletedAfterMaxEvictRetriesAndTheNodeIsReplaced() throws Exception {
        blockedRollout("ForceDelete");

        await().atMost(Duration.ofSeconds(90)).untilAsserted(() ->
                assertThat(h.nodes("db")).hasSize(1).extracting(n -> n.getMetadata().getName()).doesNotContain("db-1"));
        RecordedRequest deletion = podDeletion().orElseThrow(() -> new AssertionError("db-0 was never deleted: " + h.kube.requests()));
        assertThat(deletion.userAgent()).as("deleted by the agent").isEqualTo(AgentHarness.AGENT);
        List<RecordedRequest> refusedFirst = refusedEvictions().stream().filter(r -> r.sequence() < deletion.sequence()).toList();
        assertThat(refusedFirst).as("refused with 429 before the pod was deleted outright").hasSizeGreaterThanOrEqualTo(MAX_EVICT_RETRIES);
        List<Duration> gaps = SeenRequests.gaps(refusedFirst);
        for (int i = 0; i < MAX_EVICT_RETRIES - 1; i++) {
            assertThat(gaps.get(i)).as("spaced by the backoff, not spent in one burst: %s", refusedFirst)
                    .isGreaterThanOrEqualTo(EvictionBackoff.after(i + 1));
        }
        assertThat(nodeEvents()).anySatisfy(e -> assertThat(e.getMessage()).contains("db-pdb"));
    }

    @Test
    void refusedEvictionsAreAskedAgainOnlyAfterABackoffThatDoubles() throws Exception {
        blockedRollout("Wait");

        List<RecordedRequest> refused = await().atMost(Duration.ofSeconds(45)).until(this::refusedEvictions, r -> r.size() >= 4);
        List<Duration> gaps = SeenRequests.gaps(refused);
        for (int i = 0; i < 3; i++) {
            assertThat(gaps.get(i)).as("the wait after refusal %d: %s", i + 1, refused)
                    .isGreaterThanOrEqualTo(EvictionBackoff.after(i + 1));
        }
    }

    /** Evictions of db-0 the cluster refused with 429, in order. */
    private List<RecordedRequest> refusedEvictions() {
        return h.kube.requests().stream().filter(r -> SeenRequests.isEvictionOf(r, "shop", "db-0") && r.status() == 429).toList();
    }

    private Optional<RecordedRequest> podDeletion() {
        return h.kube.requests().stream()
                .filter(r -> r.method().equals("DELETE") && r.resourcePath().equals("/api/v1/namespaces/shop/pods/db-0")).findFirst();
    }
}
