package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.agent.run.Agent;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
import io.fabric8.kubernetes.api.model.ConfigMap;
import picocli.CommandLine;

/**
 * {@code nightshift pause POOL} and {@code resume POOL} against the embedded API: the positional form writes what
 * {@code --pool} writes, on the pool's record; two different pools write nothing.
 */
class PoolCommandsIT {

    @TempDir
    Path tmp;

    private int run(EmbeddedKubernetes kube, String... args) {
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(new StringWriter()));
        cli.setErr(new PrintWriter(new StringWriter()));
        String[] all = java.util.stream.Stream.concat(java.util.Arrays.stream(args),
                java.util.stream.Stream.of("--kubeconfig", kube.writeKubeconfig(tmp.resolve("kubeconfig")).toString())).toArray(String[]::new);
        return cli.execute(all);
    }

    private static Map<String, String> annotations(EmbeddedKubernetes kube, String pool) {
        ConfigMap record = kube.client().configMaps().inNamespace(Agent.NAMESPACE).withName(PoolStatusRecords.name(pool)).get();
        return record == null ? Map.of() : record.getMetadata().getAnnotations();
    }

    @Test
    void pauseAndResumeTakeThePoolAsTheirArgument() {
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            assertThat(run(kube, "pause", "web")).isZero();
            assertThat(annotations(kube, "web")).containsEntry(PoolStatusRecords.PAUSED, "true");

            Instant before = Instant.now();
            assertThat(run(kube, "resume", "web")).isZero();
            assertThat(annotations(kube, "web")).containsEntry(PoolStatusRecords.PAUSED, "false");
            // The halt-lifting time: a halt recorded before it no longer holds the pool.
            assertThat(Instant.parse(annotations(kube, "web").get(PoolStatusRecords.RESUMED_AT))).isAfterOrEqualTo(before.minusSeconds(1));
        }
    }

    @Test
    void theOptionStillWorksAndTwoDifferentPoolsWriteNothing() {
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            assertThat(run(kube, "pause", "--pool", "web")).isZero();
            assertThat(annotations(kube, "web")).containsEntry(PoolStatusRecords.PAUSED, "true");
            assertThat(run(kube, "resume", "web", "--pool", "web")).as("the same pool twice").isZero();
            assertThat(annotations(kube, "web")).containsEntry(PoolStatusRecords.PAUSED, "false");
            kube.clearRequests();

            assertThat(run(kube, "resume", "web", "--pool", "db")).isEqualTo(2);

            assertThat(kube.requests()).as("nothing asked of the cluster").isEmpty();
            assertThat(annotations(kube, "db")).isEmpty();
        }
    }
}
