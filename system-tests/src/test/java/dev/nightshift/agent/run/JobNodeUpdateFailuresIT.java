package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.random.RandomGeneratorFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.config.AgentConfig;
import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.nodeupdate.JobContract;
import dev.nightshift.agent.nodeupdate.UpdateOperation;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.sandbox.jobs.Behaviour;
import dev.nightshift.sandbox.jobs.JobControllers;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;

/**
 * The Job updater's failure paths end to end, with the simulated provider and the Job controller double's injected
 * faults: a Job that completes without the node showing the update, a Job that fails, and the agent killed while a Job
 * runs. Outcomes are read from the request log, the nodes, {@code /status}, {@code /metrics} and the Events.
 */
class JobNodeUpdateFailuresIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NAMESPACE = JobNodeUpdatesIT.NAMESPACE;
    private static final Duration HEALTH_TIMEOUT = Duration.ofSeconds(5);
    private static final String PATCH = JobNodeUpdatesIT.CLUSTER.formatted("1.31.5");

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;
    private final ScheduledExecutorService jobExecutor = Executors.newSingleThreadScheduledExecutor();
    private JobControllers jobs;
    private String kubeletHash;

    @AfterEach
    void stopJobs() {
        if (jobs != null) {
            jobs.close();
        }
        jobExecutor.shutdownNow();
    }

    /** Three nodes adopted at Kubernetes 1.31.4, a healthTimeout of 5 s, the double running the Jobs as {@code behaviour}. */
    private void startWith(Behaviour behaviour) throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", 3);
        h.kube.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build()).create();
        jobs = new JobControllers(h.kube.client(), NAMESPACE, jobExecutor, Clock.systemUTC(),
                RandomGeneratorFactory.of("L64X128MixRandom").create(7), behaviour);
        jobs.start();
        h.work.write("cluster.yaml", JobNodeUpdatesIT.CLUSTER.formatted(AgentHarness.KUBERNETES_VERSION));
        h.work.write("pools/web.yaml", JobNodeUpdatesIT.pool("AutoRollingUpdate", "1631.0.0",
                "  machineControllerManager: {healthTimeout: " + HEALTH_TIMEOUT.toSeconds() + "s}\n"));
        h.work.commitAndPush("initial");
        startAgent();
        h.awaitAdopted("web", 3);
        kubeletHash = annotation(h.nodes("web").get(0), NodeMarks.KUBELET_HASH);
        h.kube.clearRequests();
    }

    private void startAgent() throws Exception {
        h.startAgent("e2e", config -> config.with(AgentConfig.NodeUpdates.job(JobNodeUpdatesIT.JOBS)));
    }

    private void pushPatch() throws Exception {
        h.work.write("cluster.yaml", PATCH);
        h.work.commitAndPush("patch release");
        h.agent.pollNow();
    }

    private List<String> nodeNames() {
        return h.nodes("web").stream().map(n -> n.getMetadata().getName()).sorted().toList();
    }

    private Node node(String name) {
        return h.kube.client().nodes().withName(name).get();
    }

    /** The first node marked failed, once there is one. */
    private String awaitFailedNode() {
        return await("a node marked failed").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .failFast("an updater pod left Unschedulable", () -> seen().assertNoPodLeftUnschedulable())
                .until(() -> h.nodes("web").stream().filter(n -> !annotation(n, NodeMarks.IN_PLACE_FAILED).isEmpty())
                        .map(n -> n.getMetadata().getName()).findFirst().orElse(null), n -> n != null);
    }

    private UpdaterJobsSeen seen() {
        return new UpdaterJobsSeen(NAMESPACE, h.kube.requests());
    }

    /** After a failure: the agent reconciles a few more times, and no other Job is created. */
    private void assertThePoolStopped(String failed) throws Exception {
        h.idleThroughReconciles(failed, 3);
        UpdaterJobsSeen seen = seen();
        assertThat(seen.nodes()).as("one Job, on the failed node; the pool stops there").containsExactly(failed);
        seen.runs().forEach(run -> JobContract.meetsTheContract(run.job(), run.node(), "web", UpdateOperation.RESTART_KUBELET));
        seen.assertNoPodLeftUnschedulable();
        assertThat(h.nodes("web")).as("no node stamped with the patch's kubelet hash")
                .allSatisfy(n -> assertThat(annotation(n, NodeMarks.KUBELET_HASH)).isEqualTo(kubeletHash));
    }

    @Test
    void aJobThatCompletesWithoutTheNewKubeletVersionIsNotDoneAndFailsTheNodeAfterHealthTimeout() throws Exception {
        startWith(Behaviour.fast());
        nodeNames().forEach(jobs::completeWithoutEffectOn);

        pushPatch();

        String failed = awaitFailedNode();
        assertThat(annotation(node(failed), NodeMarks.IN_PLACE_FAILED_REASON))
                .contains("completed at").contains("did not show the update within healthTimeout (5s)").contains("not 1.31.5");
        List<RecordedRequest> log = h.kube.requests();
        UpdaterJobsSeen.Run run = seen().runOn(failed).orElseThrow();
        assertThat(run.finished()).as("the Job completed").isPositive();
        RecordedRequest completed = log.stream().filter(r -> r.sequence() == run.finished()).findFirst().orElseThrow();
        RecordedRequest marked = log.stream().filter(r -> r.userAgent().equals(AgentHarness.AGENT) && r.method().equals("PATCH")
                && r.resourcePath().equals("/api/v1/nodes/" + failed) && r.body().contains(NodeMarks.IN_PLACE_FAILED + "\":\"true"))
                .findFirst().orElseThrow();
        // The Job's completionTime has whole seconds: the agent may count from up to a second before the write.
        assertThat(Duration.between(completed.time(), marked.time())).as("failed only after healthTimeout")
                .isGreaterThanOrEqualTo(HEALTH_TIMEOUT.minusSeconds(1));
        assertThePoolStopped(failed);
    }

    @Test
    void aFailedJobMarksTheNodeFailedWithItsTerminationMessageInStatusMetricsAndAnEventAndStopsThePool() throws Exception {
        startWith(Behaviour.fast());
        String message = "apt-get: package kubelet=1.31.5-1.1 not found";
        nodeNames().forEach(n -> jobs.failOn(n, message));

        pushPatch();

        String failed = awaitFailedNode();
        String reason = annotation(node(failed), NodeMarks.IN_PLACE_FAILED_REASON);
        assertThat(reason).contains("failed (BackoffLimitExceeded)").endsWith(message);
        await("the failure in /status").atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(webStatus().path("failedUpdates"))
                .singleElement().satisfies(f -> {
                    assertThat(f.path("node").asText()).isEqualTo(failed);
                    assertThat(f.path("reason").asText()).contains(message);
                }));
        await("the failed node in the metrics").atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(
                new Scrape(h.http("/metrics")).valueOrZero("nightshift_pool_nodes", Map.of("pool", "web", "state", "failed"))).isOne());
        List<Event> events = h.kube.client().v1().events().inAnyNamespace().list().getItems().stream()
                .filter(e -> "NodeUpdateFailed".equals(e.getReason()) && failed.equals(e.getInvolvedObject().getName())).toList();
        assertThat(events).singleElement().satisfies(e -> assertThat(e.getMessage()).contains(message));
        assertThat(h.kube.client().pods().inNamespace(NAMESPACE).list().getItems()).as("the Job's pods: backoffLimit 2")
                .hasSize(3).allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Failed"));
        assertThePoolStopped(failed);
    }

    private JsonNode webStatus() throws Exception {
        for (JsonNode pool : JSON.readTree(h.http("/status")).path("pools")) {
            if (pool.path("pool").asText().equals("web")) {
                return pool;
            }
        }
        return JSON.createObjectNode();
    }

    @Test
    void anAgentKilledWhileAJobRunsCreatesNoSecondJobForAnyNodeOnRestart() throws Exception {
        // Each updater runs 3 s: long enough for the agent to be stopped and started again meanwhile.
        Behaviour fast = Behaviour.fast();
        startWith(new Behaviour(fast.podStartDelay(), Duration.ofSeconds(3), fast.rebootTime(), fast.kubeletRestartBlip(),
                fast.podBackoff(), fast.resync(), 1, 1, 0, 0, 0));

        pushPatch();
        await("the first Job").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> !seen().runs().isEmpty());
        h.stopAgent();
        startAgent();
        Instant restarted = Instant.now();

        await("every kubelet at 1.31.5").atMost(Duration.ofSeconds(90))
                .failFast("an updater pod left Unschedulable", () -> seen().assertNoPodLeftUnschedulable())
                .untilAsserted(() -> assertThat(h.nodes("web")).hasSize(3)
                .allSatisfy(n -> {
                    assertThat(annotation(n, NodeMarks.KUBELET_HASH)).isNotEqualTo(kubeletHash);
                    assertThat(n.getStatus().getNodeInfo().getKubeletVersion()).isEqualTo("v1.31.5");
                }));
        UpdaterJobsSeen seen = seen();
        List<RecordedRequest> log = h.kube.requests();
        UpdaterJobsSeen.Run first = seen.runs().get(0);
        assertThat(log.stream().filter(r -> r.sequence() == first.finished()).findFirst().orElseThrow().time())
                .as("the first Job still ran when the new agent started").isAfter(restarted);
        assertThat(log).as("every Job creation the agents asked for").filteredOn(r -> r.method().equals("POST")
                && r.resourcePath().equals("/apis/batch/v1/namespaces/" + NAMESPACE + "/jobs")).hasSize(3);
        assertThat(seen.nodes()).as("one Job per node").containsExactlyInAnyOrderElementsOf(nodeNames());
        assertThat(seen.mostAtOnce("web")).isOne();
        seen.runs().forEach(run -> JobContract.meetsTheContract(run.job(), run.node(), "web", UpdateOperation.RESTART_KUBELET));
        seen.assertNoPodLeftUnschedulable();
    }
}
