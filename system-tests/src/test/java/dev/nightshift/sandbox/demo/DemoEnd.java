package dev.nightshift.sandbox.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.spec.hash.HashScheme;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.ResolvedPool;
import io.fabric8.kubernetes.api.model.Node;

/**
 * How a {@code demo --exit-when-done} run that exited 0 must have left its cluster, judged from what the cluster saw
 * (the nodes and the request log, not the agent's bookkeeping): every pool at the bumped spec, no node left cordoned or
 * tainted, no node drained twice. Shared by the tests that run the demo in-process, so that one run of a story is
 * checked once rather than run again for each check.
 */
public final class DemoEnd {

    private DemoEnd() {
    }

    /** {@code output} is what the demo printed; {@code dir} the directory it was given ({@code specs/} under it). */
    public static void assertEveryPoolRolled(Demo demo, Path dir, String output, EmbeddedWorld.Machines machines) throws Exception {
        assertThat(output).contains("every pool runs gardenlinux 1632.0.0").contains("/status").contains("web view         http://127.0.0.1:");
        List<Node> nodes = demo.cluster().orElseThrow().client().nodes().withLabel(NodeMarks.POOL).list().getItems();
        var specs = new SpecLoader().load(dir.resolve("specs")).specs();
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
