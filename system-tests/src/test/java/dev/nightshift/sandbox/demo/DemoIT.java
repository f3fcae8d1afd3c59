package dev.nightshift.sandbox.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import io.fabric8.kubernetes.api.model.Node;

/**
 * {@code nightshift demo --exit-when-done} in-process: every pool ends at the bumped spec, and what
 * the cluster saw (its request log, not the agent's bookkeeping) shows no node drained twice.
 */
class DemoIT {

    @TempDir
    Path tmp;

    /**
     * With the machine API called over HTTP by the agent's {@code http} provider. The simulated cloud's run of the same
     * story is checked the same way ({@link DemoEnd}) by {@code PrometheusIT}, which scrapes it meanwhile.
     */
    @org.junit.jupiter.api.Test
    void theDemoRollsEveryPoolToTheBumpedImageAndExitsZero() throws Exception {
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        try (Demo demo = new Demo(new Demo.Options(0, true, Duration.ofSeconds(240), Optional.of(tmp), EmbeddedWorld.Machines.HTTP),
                new PrintStream(screen, true, StandardCharsets.UTF_8))) {

            int code = demo.run();

            String output = screen.toString(StandardCharsets.UTF_8);
            assertThat(code).as(output).isZero();
            DemoEnd.assertEveryPoolRolled(demo, tmp, output, EmbeddedWorld.Machines.HTTP);
        }
    }

    /**
     * The endless part's first chapter, judged from what the cluster saw: a bad image's canary breaks the web
     * Deployment, the real agent's workloadsAvailable check halts cpu-worker with that one node touched, and the
     * revert the story pushes brings every cpu-worker node back to the image before it.
     */
    @org.junit.jupiter.api.Test
    void theEndlessPartsBadImageIsHaltedWithOnlyTheCanaryTouchedAndTheRevertRollsThePoolBack() throws Exception {
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        try (Demo demo = new Demo(new Demo.Options(0, false, Duration.ofSeconds(120), Optional.of(tmp)),
                new PrintStream(screen, true, StandardCharsets.UTF_8))) {
            Thread story = new Thread(() -> {
                try {
                    demo.run();
                } catch (Exception e) {
                    // Interrupted when the test has seen what it needs.
                }
            }, "demo-story");
            story.setDaemon(true);
            story.start();
            try {
                java.util.function.Function<String, Boolean> shown = text -> screen.toString(StandardCharsets.UTF_8).contains(text);
                org.awaitility.Awaitility.await("the bad image pushed").atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(100))
                        .until(() -> shown.apply(": cpu-worker to gardenlinux 1634.0.0") || shown.apply("FAILED"));
                var kube = demo.cluster().orElseThrow();
                int pushed = kube.requests().size();
                Map<String, String> before = rollHashes(kube.client().nodes().withLabel(NodeMarks.POOL, "cpu-worker").list().getItems());
                assertThat(Set.copyOf(before.values())).as("cpu-worker before the chapter; demo: %s", screen).hasSize(1);
                String good = before.values().iterator().next();

                org.awaitility.Awaitility.await("the revert pushed").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                        .until(() -> shown.apply(": git revert ") || shown.apply("FAILED"));
                String output = screen.toString(StandardCharsets.UTF_8);
                assertThat(output).doesNotContain("FAILED").contains("cpu-worker HALTED: web-back (shop/Deployment/web 4/6 available after");
                List<RecordedRequest> whileHalted = kube.requests().subList(pushed, kube.requests().size());
                assertThat(whileHalted.stream().filter(r -> r.method().equals("PATCH") && r.body().contains("\"unschedulable\":true"))
                        .map(RecordedRequest::resourcePath)).as("nodes cordoned from the bad push to the revert").singleElement()
                        .satisfies(node -> assertThat(node).contains("/nodes/cpu-worker-"));
                assertThat(whileHalted.stream().filter(r -> r.method().equals("POST") && r.resourcePath().endsWith("/nodes")
                        && r.body().contains("cpu-worker"))).as("cpu-worker nodes created: the canary alone").hasSize(1);
                Map<String, String> halted = rollHashes(kube.client().nodes().withLabel(NodeMarks.POOL, "cpu-worker").list().getItems());
                assertThat(halted.values().stream().filter(h -> !h.equals(good))).as("nodes at the bad image while halted: %s", halted)
                        .hasSize(1);

                org.awaitility.Awaitility.await("the revert rolled").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                        .until(() -> shown.apply("cpu-worker runs gardenlinux 1632.0.0 on every node again") || shown.apply("FAILED"));
                assertThat(screen.toString(StandardCharsets.UTF_8)).doesNotContain("FAILED");
                Map<String, String> after = rollHashes(kube.client().nodes().withLabel(NodeMarks.POOL, "cpu-worker").list().getItems());
                assertThat(after).as("cpu-worker after the revert").hasSize(3).allSatisfy((node, hash) -> assertThat(hash).isEqualTo(good));
                assertThat(after.keySet()).as("the bad canary is gone").doesNotContainAnyElementsOf(halted.entrySet().stream()
                        .filter(e -> !e.getValue().equals(good)).map(Map.Entry::getKey).toList());
            } finally {
                story.interrupt();
            }
        }
    }

    private static Map<String, String> rollHashes(List<Node> nodes) {
        Map<String, String> hashes = new java.util.TreeMap<>();
        nodes.forEach(n -> hashes.put(n.getMetadata().getName(), n.getMetadata().getAnnotations().get(NodeMarks.ROLL_HASH)));
        return hashes;
    }
}
