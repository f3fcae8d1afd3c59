package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;

/**
 * Limits above 1 against the real agent: an image bump rolls a pool of 8 or 10 nodes with several
 * surge machines and several nodes unavailable at once, and the request log, replayed request by
 * request, shows the limits held at every instant, the canary went alone and no node was drained twice.
 */
class WideLimitsIT {

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
            """;

    private static String pool(int count, String maxSurge, String maxUnavailable, String version) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: e2e}
                spec:
                  minimum: %d
                  maximum: %d
                  maxSurge: %s
                  maxUnavailable: %s
                  interval: 0s
                  machineControllerManager: {maxEvictRetries: 2}
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(count, count + 5, maxSurge, maxUnavailable, version);
    }

    /** Machines register 0.3 s after they are asked for, well within a drain. */
    private static final SimulatedMachineProvider.Behaviour QUICK_CLOUD = new SimulatedMachineProvider.Behaviour(
            Duration.ofMillis(300), Duration.ofMillis(300), Duration.ofMillis(300), 0, 0);

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    /**
     * {@code surge} and {@code unavailable} are the limits resolved by hand, as docs/concepts/planner.md says the
     * planner resolves them: of 10 nodes, 25% is 2.5, so 3 surge machines (up) and 2 unavailable (down).
     */
    @ParameterizedTest(name = "{0} nodes, maxSurge {1}, maxUnavailable {2}")
    @CsvSource({"10, 25%, 25%, 3, 2", "8, 3, 2, 3, 2"})
    void anImageBumpRollsAWidePoolWithinItsLimitsAtEveryInstant(int count, String maxSurge, String maxUnavailable,
            int surge, int unavailable) throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", count, QUICK_CLOUD);
        // A pod on every node under a budget that refuses every eviction: each drain is refused once,
        // asks again after the eviction backoff (2 s) and then deletes the pod (maxEvictRetries 2).
        // Drains so outlast a machine's registration, and the surge machines stand beside their
        // old partners: the fullest moment reaches count + maxSurge.
        Map<String, String> nodeOfPod = IntStream.rangeClosed(1, count).boxed()
                .collect(Collectors.toMap(i -> "app-" + i, i -> "web-" + i));
        nodeOfPod.forEach((pod, node) -> h.kube.client().pods().inNamespace("shop").resource(new PodBuilder().withNewMetadata()
                .withName(pod).withNamespace("shop").addToLabels("app", "shop").endMetadata().withNewSpec().withNodeName(node)
                .addNewContainer().withName("app").withImage("app").endContainer().endSpec().withNewStatus().withPhase("Running")
                .endStatus().build()).create());
        h.kube.client().policy().v1().podDisruptionBudget().inNamespace("shop").resource(new PodDisruptionBudgetBuilder()
                .withNewMetadata().withName("shop").withNamespace("shop").endMetadata().withNewSpec()
                .withMinAvailable(new IntOrString(count)).withNewSelector().addToMatchLabels("app", "shop").endSelector().endSpec()
                .build()).create();
        h.work.write("cluster.yaml", CLUSTER);
        h.work.write("pools/web.yaml", pool(count, maxSurge, maxUnavailable, "1631.0.0"));
        h.work.commitAndPush("initial");
        h.startAgent("e2e");
        h.awaitAdopted("web", count);
        Set<String> old = new TreeSet<>(nodeOfPod.values());
        String oldHash = annotation(h.nodes("web").get(0), NodeMarks.ROLL_HASH);
        List<RecordedRequest> beforePush = h.kube.requests();
        long pushedAfter = beforePush.get(beforePush.size() - 1).sequence();

        h.work.write("pools/web.yaml", pool(count, maxSurge, maxUnavailable, "1632.0.0"));
        h.work.commitAndPush("image bump");
        h.agent.pollNow();

        await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> {
            assertThat(h.nodes("web")).hasSize(count).allSatisfy(n -> {
                assertThat(annotation(n, NodeMarks.ROLL_HASH)).isNotEqualTo(oldHash);
                assertThat(n.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE);
            });
            assertThat(h.provider.machines("web")).as("machines in the cloud").hasSize(count);
        });
        // Replayed from the cluster's first request (the seeded nodes' creation); judged from the push on.
        ClusterTimeline timeline = ClusterTimeline.replay(List.of(), h.kube.requests()).after(pushedAfter);

        ClusterTimeline.Moment most = timeline.mostNodes("web");
        assertThat(most.pool("web")).as("never more than count + maxSurge = %d nodes; the fullest moment: %s", count + surge, most)
                .hasSizeLessThanOrEqualTo(count + surge);
        ClusterTimeline.Moment fewest = timeline.fewestReadyAndSchedulable("web");
        assertThat(fewest.readyAndSchedulableCount("web"))
                .as("never fewer than count − maxUnavailable = %d nodes Ready and schedulable; the emptiest moment: %s",
                        count - unavailable, fewest)
                .isGreaterThanOrEqualTo(count - unavailable);
        // Both limits are used to the full, so a limit resolved too low (25% of 10 rounded down to 2
        // surge machines, say) fails as well as one resolved too high.
        assertThat(most.pool("web")).as("the surge limit reached").hasSize(count + surge);
        assertThat(fewest.readyAndSchedulableCount("web")).as("the unavailability limit reached").isEqualTo(count - unavailable);

        assertCanaryWentAlone(timeline, old);

        assertThat(timeline.cordons()).as("each old node cordoned once, in its one drain, and no new node cordoned")
                .isEqualTo(old.stream().collect(Collectors.toMap(Function.identity(), n -> 1)));
        nodeOfPod.forEach((pod, node) -> {
            List<ClusterTimeline.Moment> asked = timeline.moments().stream().filter(m -> evictsOrDeletes(m.request(), pod)).toList();
            assertThat(asked).as("%s evicted (refused), then deleted", pod).hasSizeGreaterThanOrEqualTo(2).allSatisfy(m ->
                    assertThat(m.unschedulable(node)).as("%s while its node %s was in its one drain", m, node).isTrue());
        });
    }

    private static boolean evictsOrDeletes(RecordedRequest r, String pod) {
        return SeenRequests.isEvictionOf(r, "shop", pod)
                || (r.method().equals("DELETE") && r.resourcePath().equals("/api/v1/namespaces/shop/pods/" + pod));
    }

    /**
     * Until the first replacement is Ready and schedulable, one old node at most is in flight: either
     * disrupted (cordoned, not Ready, or gone) or standing by for a surge machine the cloud was asked for.
     */
    private void assertCanaryWentAlone(ClusterTimeline timeline, Set<String> old) {
        ClusterTimeline.Moment canary = timeline.first(m -> m.pool("web").stream()
                .anyMatch(n -> !old.contains(n) && m.readyAndSchedulable(n))).orElseThrow();
        Set<String> inFlight = new TreeSet<>();
        timeline.moments().stream().takeWhile(m -> m != canary).forEach(m -> old.stream()
                .filter(n -> !m.readyAndSchedulable(n)).forEach(inFlight::add));
        h.machineRequests.requests().stream().filter(r -> r.time().isBefore(canary.request().time()))
                .forEach(r -> inFlight.add(r.surgeFor().orElse("a machine for no old node")));
        assertThat(inFlight).as("old nodes in flight before the first replacement (%s) was Ready", canary).hasSize(1);
    }
}
