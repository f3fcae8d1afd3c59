package dev.nightshift.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.agent.kube.embedded.EmbeddedKubernetes;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.strategies.model.DesiredPool;
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

    /** Nodes named as a cloud names them, in pools one of whose names begins the other's. */
    private static final String SPEC_CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: real}
            spec:
              kubernetes: {version: "1.31.4"}
              maintenance:
                windows: [{schedule: "0 0 * * * ?", duration: 1h, timeZone: UTC}]
              machineImages:
              - name: gardenlinux
                versions:
                - {version: 1631.0.0}
            """;

    private static String pool(String name) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: %s, cluster: real}
                spec:
                  minimum: 2
                  maximum: 4
                  maxSurge: 1
                  maxUnavailable: 0
                  machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                """.formatted(name);
    }

    @Test
    void stepsGoToThePoolOfTheirNodeAsLabelledWhateverTheNodesAreNamed() throws Exception {
        Path specs = spec();
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            node(kube, "ip-10-0-1-5.eu-west-1.compute.internal", "web", OUTDATED);
            node(kube, "ip-10-0-1-6.eu-west-1.compute.internal", "web", OUTDATED);
            node(kube, "ip-10-0-2-7.eu-west-1.compute.internal", "web-canary", current(specs, "web-canary"));
            node(kube, "ip-10-0-2-8.eu-west-1.compute.internal", "web-canary", current(specs, "web-canary"));

            Map<String, String> rows = plan(kube, specs);

            assertThat(rows.get("web")).as("web's row").contains("next: ").contains("ip-10-0-1-5.eu-west-1.compute.internal");
            assertThat(rows.get("web-canary")).as("web-canary's row").doesNotContain("ip-10-0-1-");
        }
    }

    @Test
    void aPoolDoesNotClaimTheNodesOfAPoolWhoseNameItsOwnBegins() throws Exception {
        Path specs = spec();
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            node(kube, "web-1", "web", current(specs, "web"));
            node(kube, "web-2", "web", current(specs, "web"));
            node(kube, "web-canary-1", "web-canary", OUTDATED);
            node(kube, "web-canary-2", "web-canary", OUTDATED);

            Map<String, String> rows = plan(kube, specs);

            assertThat(rows.get("web")).as("web's row, all current").doesNotContain("web-canary-");
            assertThat(rows.get("web-canary")).as("web-canary's row").contains("next: ").contains("web-canary-1");
        }
    }

    private static final StampedHash OUTDATED = new StampedHash(1, "0".repeat(32));

    private Path spec() throws java.io.IOException {
        Path dir = tmp.resolve("spec");
        java.nio.file.Files.createDirectories(dir.resolve("pools"));
        java.nio.file.Files.writeString(dir.resolve("cluster.yaml"), SPEC_CLUSTER);
        java.nio.file.Files.writeString(dir.resolve("pools/web.yaml"), pool("web"));
        java.nio.file.Files.writeString(dir.resolve("pools/web-canary.yaml"), pool("web-canary"));
        return dir;
    }

    /** The roll hash (and kubelet hash, the same version) the pool's nodes run when current. */
    private static DesiredPool current(Path specs, String pool) {
        return new SpecLoader().load(specs).specs().resolvedPools("real").stream().map(DesiredPool::of)
                .filter(p -> p.name().equals(pool)).findFirst().orElseThrow();
    }

    private static void node(EmbeddedKubernetes kube, String name, String pool, DesiredPool current) {
        node(kube, name, pool, current.rollHash(), current.kubeletHash());
    }

    private static void node(EmbeddedKubernetes kube, String name, String pool, StampedHash outdated) {
        node(kube, name, pool, outdated, outdated);
    }

    private static void node(EmbeddedKubernetes kube, String name, String pool, StampedHash roll, StampedHash kubelet) {
        kube.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(name)
                .addToLabels(NodeMarks.POOL, pool).addToLabels("kubernetes.io/hostname", name)
                .addToAnnotations(NodeMarks.ROLL_HASH, roll.value()).addToAnnotations(NodeMarks.ROLL_HASH_VERSION, Integer.toString(roll.version()))
                .addToAnnotations(NodeMarks.KUBELET_HASH, kubelet.value())
                .addToAnnotations(NodeMarks.KUBELET_HASH_VERSION, Integer.toString(kubelet.version())).endMetadata()
                .withNewStatus().addNewCondition().withType("Ready").withStatus("True")
                .withLastTransitionTime("2026-01-01T00:00:00Z").endCondition().endStatus().build()).create();
    }

    /** {@code plan}'s table, each row by its pool. */
    private Map<String, String> plan(EmbeddedKubernetes kube, Path specs) {
        StringWriter out = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        int code = cli.execute("plan", "--spec", specs.toString(), "--kubeconfig", kube.writeKubeconfig(tmp.resolve("kubeconfig")).toString());
        assertThat(code).as("plan's exit code; it printed: %s", out).isZero();
        Map<String, String> rows = new java.util.HashMap<>();
        out.toString().lines().skip(1).forEach(line -> rows.put(line.split("\\s+")[0], line));
        return rows;
    }
}
