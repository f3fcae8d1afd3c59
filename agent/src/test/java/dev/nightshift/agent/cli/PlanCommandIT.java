package dev.nightshift.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.kube.embedded.EmbeddedKubernetes;
import dev.nightshift.spec.hash.StampedHash;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import picocli.CommandLine;

/** {@code nightshift plan} against the embedded API: a table, and nothing written. */
class PlanCommandIT {

    @TempDir
    Path tmp;

    @Test
    void showsWhatWouldHappenPerPoolAndWritesNothing() {
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            StampedHash old = new StampedHash(1, "0".repeat(32));
            for (int i = 1; i <= 3; i++) {
                kube.client().nodes().resource(new NodeBuilder().withNewMetadata().withName("cpu-worker-" + i)
                        .addToLabels(NodeMarks.POOL, "cpu-worker").addToAnnotations(NodeMarks.ROLL_HASH, old.value())
                        .addToAnnotations(NodeMarks.KUBELET_HASH, old.value()).endMetadata()
                        .withNewStatus().addNewCondition().withType("Ready").withStatus("True")
                        .withLastTransitionTime("2026-01-01T00:00:00Z").endCondition().endStatus().build()).create();
            }
            kube.clearRequests();
            StringWriter out = new StringWriter();
            CommandLine cli = Main.commandLine();
            cli.setOut(new PrintWriter(out));

            int code = cli.execute("plan", "--spec", "../examples/multi", "--kubeconfig",
                    kube.writeKubeconfig(tmp.resolve("kubeconfig")).toString());

            assertThat(code).isZero();
            assertThat(out.toString()).contains("POOL", "STRATEGY", "ACTION", "NEXT WINDOW")
                    .containsPattern("cpu-worker\\s+AutoRollingUpdate\\s+\\S+\\s+0/3/0");
            assertThat(kube.requests()).noneMatch(r -> r.isWrite());
        }
    }
}
