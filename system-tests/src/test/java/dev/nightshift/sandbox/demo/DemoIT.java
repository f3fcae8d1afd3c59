package dev.nightshift.sandbox.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.spec.hash.HashScheme;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.ResolvedPool;
import io.fabric8.kubernetes.api.model.Node;

/**
 * {@code nightshift demo --exit-when-done} in-process: every pool ends at the bumped spec, and what
 * the cluster saw (its request log, not the agent's bookkeeping) shows no node drained twice.
 */
class DemoIT {

    @TempDir
    Path tmp;

    /** With the simulated cloud, and with the machine API called over HTTP by the agent's {@code http} provider. */
    @ParameterizedTest
    @EnumSource(value = EmbeddedWorld.Machines.class, names = {"SIMULATED", "HTTP"})
    void theDemoRollsEveryPoolToTheBumpedImageAndExitsZero(EmbeddedWorld.Machines machines) throws Exception {
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        try (Demo demo = new Demo(new Demo.Options(0, true, Duration.ofSeconds(240), Optional.of(tmp), machines),
                new PrintStream(screen, true, StandardCharsets.UTF_8))) {

            int code = demo.run();

            String output = screen.toString(StandardCharsets.UTF_8);
            assertThat(code).as(output).isZero();
            assertThat(output).contains("every pool runs gardenlinux 1632.0.0").contains("/status").contains("web view         http://127.0.0.1:");
            List<Node> nodes = demo.cluster().orElseThrow().client().nodes().withLabel(NodeMarks.POOL).list().getItems();
            var specs = new SpecLoader().load(tmp.resolve("specs")).specs();
            Map<String, String> wanted = new HashMap<>();
            for (ResolvedPool p : specs.resolvedPools("demo")) {
                wanted.put(p.name(), HashScheme.ROLL.compute(p).value());
            }
            assertThat(nodes).hasSize(9).allSatisfy(n -> assertThat(n.getMetadata().getAnnotations().get(NodeMarks.ROLL_HASH))
                    .isEqualTo(wanted.get(n.getMetadata().getLabels().get(NodeMarks.POOL))));
            assertThat(nodes).allSatisfy(n -> assertThat(n.getSpec().getUnschedulable()).isNotEqualTo(Boolean.TRUE));
            assertThat(nodes).allSatisfy(n -> assertThat(n.getSpec().getTaints()).extracting(t -> t.getKey())
                    .doesNotHaveDuplicates().doesNotContain(NodeMarks.UPDATE_TAINT));
            List<RecordedRequest> requests = demo.cluster().orElseThrow().requests();
            Map<String, Long> cordons = new HashMap<>();
            for (RecordedRequest r : requests) {
                if (r.method().equals("PATCH") && r.body().contains("\"unschedulable\":true")) {
                    cordons.merge(r.resourcePath(), 1L, Long::sum);
                }
            }
            assertThat(cordons).as("each node is cordoned (drained) at most once").allSatisfy((node, count) -> assertThat(count).isOne());
            if (machines == EmbeddedWorld.Machines.HTTP) {
                // The bastion never became a node: its machine's record, in the machine API, carries the hash.
                var api = demo.world().orElseThrow().machineApi().cloud();
                assertThat(api.list("bastion")).as("the bastion's machines in the machine API").singleElement()
                        .satisfies(m -> assertThat(m.annotations().get(NodeMarks.ROLL_HASH)).isEqualTo(wanted.get("bastion")));
                assertThat(api.list("cpu-worker")).as("cpu-worker's machines in the machine API").hasSize(3).allSatisfy(m ->
                        assertThat(m.annotations().get(NodeMarks.ROLL_HASH)).isEqualTo(wanted.get("cpu-worker")));
            }
        }
    }
}
