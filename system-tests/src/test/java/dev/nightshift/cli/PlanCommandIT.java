package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.EmbeddedKubernetes;
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

    @Test
    void withAControlPlaneNodeNotReadyPlanShowsNoDisruptionAsTheAgentWouldDoNone() throws Exception {
        Path specs = spec();
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            node(kube, "web-1", "web", OUTDATED);
            node(kube, "web-2", "web", OUTDATED);
            node(kube, "web-canary-1", "web-canary", current(specs, "web-canary"));
            node(kube, "web-canary-2", "web-canary", current(specs, "web-canary"));
            // The pool validated once, as an agent records it: nothing else holds it back.
            kube.client().configMaps().inNamespace(dev.nightshift.agent.run.Agent.NAMESPACE).resource(
                    dev.nightshift.agent.kube.PoolStatusRecords.create(dev.nightshift.agent.run.Agent.NAMESPACE, "web",
                            dev.nightshift.agent.kube.PoolStatusRecords.data(
                                    dev.nightshift.strategies.model.PoolStatus.NEW.withValidationStreak(1)))).create();
            Map<String, String> healthy = plan(kube, specs);
            assertThat(healthy.get("web")).as("with the control plane Ready, web starts").contains(" UPDATING ");

            kube.client().nodes().resource(new NodeBuilder().withNewMetadata().withName("control-plane-1")
                    .addToLabels("node-role.kubernetes.io/control-plane", "").endMetadata()
                    .withNewStatus().addNewCondition().withType("Ready").withStatus("False")
                    .withLastTransitionTime("2026-01-01T00:00:00Z").endCondition().endStatus().build()).create();
            Map<String, String> rows = plan(kube, specs);

            assertThat(rows.get("web")).as("web's row with a control-plane node NotReady").doesNotContain(" UPDATING ")
                    .contains("WAITING_FOR_VALIDATION");
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

    /**
     * The pool's record as an agent left it: web accepted (and was fully current at) image 1631.0.0;
     * the spec given to plan asks for 1632.0.0.
     */
    private Path bumpedSpecWithRecord(EmbeddedKubernetes kube) throws java.io.IOException {
        Path specs = spec();
        dev.nightshift.spec.model.SpecSet accepted = new SpecLoader().load(specs).specs();
        String cluster = dev.nightshift.spec.load.CanonicalYaml.cluster(accepted.cluster("real").orElseThrow());
        String web = dev.nightshift.spec.load.CanonicalYaml.pool(accepted.pools().stream().filter(p -> p.name().equals("web"))
                .findFirst().orElseThrow());
        Map<String, String> data = new java.util.LinkedHashMap<>(dev.nightshift.agent.kube.PoolStatusRecords.data(
                dev.nightshift.strategies.model.PoolStatus.NEW));
        data.putAll(Map.of("acceptedCommit", "a".repeat(40), "acceptedCluster", cluster, "acceptedPool", web,
                "fullyCurrentCommit", "a".repeat(40), "fullyCurrentCluster", cluster, "fullyCurrentPool", web));
        kube.client().configMaps().inNamespace(dev.nightshift.agent.run.Agent.NAMESPACE).resource(
                dev.nightshift.agent.kube.PoolStatusRecords.create(dev.nightshift.agent.run.Agent.NAMESPACE, "web", data)).create();
        node(kube, "ip-10-0-1-5.eu-west-1.compute.internal", "web", current(specs, "web"));
        node(kube, "ip-10-0-1-6.eu-west-1.compute.internal", "web", current(specs, "web"));
        java.nio.file.Files.writeString(specs.resolve("pools/web.yaml"), pool("web").replace("1631.0.0", "1632.0.0"));
        java.nio.file.Files.writeString(specs.resolve("cluster.yaml"), SPEC_CLUSTER.replace("- {version: 1631.0.0}",
                "- {version: 1631.0.0}\n    - {version: 1632.0.0}"));
        return specs;
    }

    private String run(EmbeddedKubernetes kube, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of(args));
        all.addAll(java.util.List.of("--kubeconfig", kube.writeKubeconfig(tmp.resolve("kubeconfig")).toString()));
        int code = cli.execute(all.toArray(String[]::new));
        assertThat(code).as("plan's exit code; it printed: %s %s", out, err).isZero();
        return out.toString();
    }

    @Test
    void underEachPoolTheTargetsReasonsTheNextStepsByNodeAndWhatBlocksThem() throws Exception {
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            Path specs = bumpedSpecWithRecord(kube);
            kube.clearRequests();

            String text = run(kube, "plan", "--spec", specs.toString());

            assertThat(text).contains("NODES (cur/out/upd/fail)").containsPattern("web\\s+AutoRollingUpdate\\s+\\S+\\s+0/2/0/0")
                    .contains("    why:      ROLL (this spec): spec.machine.image.version 1631.0.0 → 1632.0.0")
                    .containsPattern("    next:     ip-10-0-1-5.eu-west-1.compute.internal: \\S+");
            assertThat(kube.requests()).noneMatch(r -> r.isWrite());
        }
    }

    @Test
    void outputJsonGivesTheSameAsData() throws Exception {
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            Path specs = bumpedSpecWithRecord(kube);

            com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(run(kube, "plan", "--spec", specs.toString(), "--output", "json"));

            com.fasterxml.jackson.databind.JsonNode web = java.util.stream.StreamSupport.stream(json.path("pools").spliterator(), false)
                    .filter(p -> p.path("pool").asText().equals("web")).findFirst().orElseThrow();
            assertThat(web.path("strategy").asText()).isEqualTo("AutoRollingUpdate");
            assertThat(web.path("nodes").path("outdated").asInt()).isEqualTo(2);
            assertThat(web.path("nodes").path("failed").asInt()).isZero();
            assertThat(web.path("target").path("action").asText()).isEqualTo("ROLL");
            assertThat(web.path("target").path("revision").isNull()).as("introduced by the spec given, not yet a commit").isTrue();
            assertThat(web.path("target").path("reasons").get(0).path("path").asText()).isEqualTo("spec.machine.image.version");
            assertThat(web.path("target").path("reasons").get(0).path("new").asText()).isEqualTo("1632.0.0");
            assertThat(web.path("nextSteps").findValuesAsText("node")).contains("ip-10-0-1-5.eu-west-1.compute.internal");
            assertThat(web.path("nextSteps")).allSatisfy(n -> assertThat(n.path("steps")).isNotEmpty());
            assertThat(web.has("blockedBy")).isTrue();
            com.fasterxml.jackson.databind.JsonNode canary = java.util.stream.StreamSupport.stream(json.path("pools").spliterator(), false)
                    .filter(p -> p.path("pool").asText().equals("web-canary")).findFirst().orElseThrow();
            assertThat(canary.path("target").isNull()).as("no record, nothing accepted yet").isTrue();
        }
    }

    @Test
    void aPoolWithOutdatedNodesShowsItsEtaFromTheDurationsItsRecordKeeps() throws Exception {
        Path specs = spec();
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            node(kube, "web-1", "web", OUTDATED);
            node(kube, "web-2", "web", OUTDATED);
            node(kube, "web-canary-1", "web-canary", current(specs, "web-canary"));
            node(kube, "web-canary-2", "web-canary", current(specs, "web-canary"));
            // The agent observed one creation of 60 s and one drain of 30 s in web.
            Map<String, String> data = new java.util.LinkedHashMap<>(dev.nightshift.agent.kube.PoolStatusRecords.data(
                    dev.nightshift.strategies.model.PoolStatus.NEW));
            data.putAll(Map.of("createSeconds", "60", "drainSeconds", "30"));
            kube.client().configMaps().inNamespace(dev.nightshift.agent.run.Agent.NAMESPACE).resource(
                    dev.nightshift.agent.kube.PoolStatusRecords.create(dev.nightshift.agent.run.Agent.NAMESPACE, "web", data)).create();
            kube.clearRequests();

            com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(run(kube, "plan", "--spec", specs.toString(), "--output", "json"));
            String text = run(kube, "plan", "--spec", specs.toString());

            java.util.Map<String, com.fasterxml.jackson.databind.JsonNode> pools = new java.util.HashMap<>();
            json.path("pools").forEach(p -> pools.put(p.path("pool").asText(), p));
            com.fasterxml.jackson.databind.JsonNode web = pools.get("web");
            // maxSurge 1, maxUnavailable 0: a surge machine (60 s), then the old node drained (30 s) and
            // deleted; the second starts the default interval (15 s) after: 90 + 15 + 90 = 195 s.
            assertThat(web.path("eta").path("workSeconds").asLong()).isEqualTo(195);
            assertThat(web.path("eta").path("completesAt").isTextual()).isTrue();
            assertThat(web.path("eta").path("assumptions").toString()).contains("machine creation 1m (median of 1 observed)",
                    "drain 30s (median of 1 observed)");
            assertThat(pools.get("web-canary").path("eta").isNull()).as("web-canary is current").isTrue();
            assertThat(text).contains("    eta:      2 nodes replaced, ~3m of work");
            assertThat(kube.requests()).as("plan writes nothing").noneMatch(r -> r.isWrite());
        }
    }

    @Test
    void aPoolThatRollsInWavesSaysSoUnderItsRowAndInTheJson() throws Exception {
        Path specs = spec();
        java.nio.file.Files.writeString(specs.resolve("pools/web.yaml"), pool("web") + """
                  rollout:
                    waves: [1, "50%", "100%"]
                    soak: 10m
                    healthChecks:
                    - name: evicted-workloads-back
                      workloadsAvailable: {within: 5m}
                    maxFailedMachines: 3
                """);
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            node(kube, "web-1", "web", OUTDATED);
            node(kube, "web-2", "web", OUTDATED);
            node(kube, "web-canary-1", "web-canary", OUTDATED);
            node(kube, "web-canary-2", "web-canary", OUTDATED);

            String text = run(kube, "plan", "--spec", specs.toString());
            com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(run(kube, "plan", "--spec", specs.toString(), "--output", "json"));

            String waves = "3 waves, 2 soaks of 10m; checks: evicted-workloads-back; at most 3 failed machines in a row; on failure: Halt";
            assertThat(text).contains("    waves:    " + waves
                    + " (this plan takes the checks as passing: it queries no Prometheus; the agent judges them)\n");
            assertThat(text.lines().filter(l -> l.startsWith("    waves:"))).as("web-canary rolls as the canary").hasSize(1);
            assertThat(text.indexOf("    waves:")).as("under web's row").isGreaterThan(text.indexOf("\nweb "))
                    .isLessThan(text.indexOf("\nweb-canary "));
            java.util.Map<String, com.fasterxml.jackson.databind.JsonNode> pools = new java.util.HashMap<>();
            json.path("pools").forEach(p -> pools.put(p.path("pool").asText(), p));
            assertThat(pools.get("web").path("waves").asText()).isEqualTo(waves);
            assertThat(pools.get("web-canary").path("waves").isNull()).isTrue();
        }
    }

    /**
     * A validated pool with a health check and outdated nodes: plan shows its canary starting, the check taken as
     * passing (plan queries no Prometheus), where judging it unknown would show the pool waiting on a check never asked.
     */
    @Test
    void aPoolWithChecksIsPlannedAsIfTheyPassAndSaysSo() throws Exception {
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            Path specs = bumpedSpecWithRecord(kube);
            java.nio.file.Files.writeString(specs.resolve("pools/web.yaml"), pool("web").replace("1631.0.0", "1632.0.0") + """
                      rollout:
                        waves: [1, "100%"]
                        soak: 10m
                        healthChecks:
                        - name: error-rate
                          prometheus: {query: 'vector(0)', max: 0.01}
                    """);
            kube.client().configMaps().inNamespace(dev.nightshift.agent.run.Agent.NAMESPACE).withName(
                    dev.nightshift.agent.kube.PoolStatusRecords.name("web")).edit(cm -> {
                        cm.getData().putAll(dev.nightshift.agent.kube.PoolStatusRecords.data(
                                dev.nightshift.strategies.model.PoolStatus.NEW.withValidationStreak(5)));
                        return cm;
                    });
            kube.clearRequests();

            com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(run(kube, "plan", "--spec", specs.toString(), "--output", "json"));

            com.fasterxml.jackson.databind.JsonNode web = java.util.stream.StreamSupport.stream(json.path("pools").spliterator(), false)
                    .filter(p -> p.path("pool").asText().equals("web")).findFirst().orElseThrow();
            assertThat(web.path("nextSteps").findValuesAsText("steps").toString() + web.path("nextSteps"))
                    .as("the canary's first disruption is planned").containsAnyOf("CreateMachine", "Cordon", "Drain");
            assertThat(web.path("blockedBy").toString()).doesNotContain("unknown");
            assertThat(kube.requests()).noneMatch(r -> r.isWrite());
        }
    }

    /** A spec directory with cluster {@code real} (images 1631.0.0 and 1632.0.0), web at {@code version} with {@code rollout}, and web-canary. */
    private Path specAt(String dirName, String version, String rollout) throws java.io.IOException {
        Path dir = tmp.resolve(dirName);
        java.nio.file.Files.createDirectories(dir.resolve("pools"));
        java.nio.file.Files.writeString(dir.resolve("cluster.yaml"), SPEC_CLUSTER.replace("- {version: 1631.0.0}",
                "- {version: 1631.0.0}\n    - {version: 1632.0.0}"));
        java.nio.file.Files.writeString(dir.resolve("pools/web.yaml"), pool("web").replace("1631.0.0", version) + rollout);
        java.nio.file.Files.writeString(dir.resolve("pools/web-canary.yaml"), pool("web-canary"));
        return dir;
    }

    private static dev.nightshift.spec.model.ResolvedPool resolved(Path specs, String pool) {
        return current(specs, pool).spec();
    }

    /** The canonical texts of a pool's spec at a commit, as the agent keeps what a pool accepted. */
    private static dev.nightshift.agent.kube.PoolStatusRecords.Accepted acceptedAt(String commit, dev.nightshift.spec.model.ResolvedPool p) {
        return new dev.nightshift.agent.kube.PoolStatusRecords.Accepted(commit, dev.nightshift.spec.load.CanonicalYaml.cluster(p.cluster()),
                dev.nightshift.spec.load.CanonicalYaml.pool(p.pool()));
    }

    /** Steps that move a node: (label propagation and the update taint are not a rollout's progress). */
    private static final java.util.regex.Pattern DISRUPTION = java.util.regex.Pattern.compile(
            "Cordon|Drain|CreateMachine|DeleteMachine|UpdateInPlace|RestartKubelet|ForceDeletePod");

    private static final dev.nightshift.strategies.model.RolloutProgress.Halt ERROR_RATE = new dev.nightshift.strategies.model.RolloutProgress.Halt(
            "error-rate", "0.07", "<= 0.01", 1, java.time.Instant.parse("2026-11-27T12:00:03Z"));

    private static java.util.Map<String, com.fasterxml.jackson.databind.JsonNode> poolsOf(String json) throws java.io.IOException {
        java.util.Map<String, com.fasterxml.jackson.databind.JsonNode> pools = new java.util.HashMap<>();
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(json).path("pools").forEach(p -> pools.put(p.path("pool").asText(), p));
        return pools;
    }

    @Test
    void aPoolRolledBackAndOfferedItsRefusedRevisionAgainIsShownHeldWithNothingPlannedAsTheAgentHoldsIt() throws Exception {
        String good = "a1b2c3d4".repeat(5);
        String bad = "f9e8d7c6".repeat(5);
        Path before = specAt("good", "1631.0.0", "  rollout: {onFailure: Rollback}\n");
        Path offered = specAt("bad", "1632.0.0", "  rollout: {onFailure: Rollback}\n");
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            // Rolled back: both nodes at 1631.0.0 again; the record as the agent's record writer leaves it (the rolled-back
            // spec accepted, the failed revision refused with the halt's words).
            node(kube, "web-1", "web", current(before, "web"));
            node(kube, "web-2", "web", current(before, "web"));
            node(kube, "web-canary-1", "web-canary", current(offered, "web-canary"));
            node(kube, "web-canary-2", "web-canary", current(offered, "web-canary"));
            Map<String, String> data = dev.nightshift.agent.kube.PoolStatusRecords.data(
                    dev.nightshift.strategies.model.PoolStatus.NEW.withValidationStreak(1), java.util.Optional.of(acceptedAt(good,
                            resolved(before, "web"))), dev.nightshift.agent.kube.PoolStatusRecords.Why.NONE);
            dev.nightshift.spec.model.ResolvedPool refused = resolved(offered, "web");
            data.put(dev.nightshift.agent.kube.PoolStatusRecords.REFUSED, new dev.nightshift.agent.kube.PoolStatusRecords.Refused(bad,
                    dev.nightshift.spec.load.CanonicalYaml.cluster(refused.cluster()), dev.nightshift.spec.load.CanonicalYaml.pool(refused.pool()),
                    dev.nightshift.agent.report.RolloutProgressJson.describe(ERROR_RATE)).json());
            kube.client().configMaps().inNamespace(dev.nightshift.agent.run.Agent.NAMESPACE).resource(
                    dev.nightshift.agent.kube.PoolStatusRecords.create(dev.nightshift.agent.run.Agent.NAMESPACE, "web", data)).create();
            kube.clearRequests();

            String text = run(kube, "plan", "--spec", offered.toString());
            java.util.Map<String, com.fasterxml.jackson.databind.JsonNode> pools = poolsOf(run(kube, "plan", "--spec", offered.toString(),
                    "--output", "json"));

            String held = "held at a1b2c3d, f9e8d7c refused: canary failed error-rate (0.07, must be <= 0.01) in wave 1";
            assertThat(text).as("plan's table").containsPattern("\nweb\\s+AutoRollingUpdate\\s+CURRENT\\s+2/0/0/0")
                    .contains("    held:     " + held + "; revert or fix it in Git");
            assertThat(text.lines().filter(l -> l.startsWith("    next:     web-"))).as("nothing disrupts web, as the agent holds it")
                    .noneMatch(DISRUPTION.asPredicate());
            assertThat(pools.get("web").path("held").asText()).isEqualTo(held);
            assertThat(pools.get("web").path("refusedRevision").asText()).isEqualTo(bad);
            assertThat(pools.get("web").path("nodes").path("outdated").asInt()).isZero();
            assertThat(pools.get("web").path("nextSteps").toString()).doesNotContainPattern(DISRUPTION);
            assertThat(pools.get("web-canary").path("held").isNull()).isTrue();
            assertThat(kube.requests()).as("plan writes nothing").noneMatch(r -> r.isWrite());

            // A commit that changes web's spec lifts the refusal, for plan as for the agent: web rolls again.
            Path fixed = specAt("fixed", "1632.0.0", "  rollout: {onFailure: Rollback}\n  labels: {fixed: \"true\"}\n");
            assertThat(run(kube, "plan", "--spec", fixed.toString())).doesNotContain("held:").containsPattern("\nweb\\s+\\S+\\s+\\S+\\s+0/2/");
        }
    }

    @Test
    void aHaltedPoolSaysItsFailingCheckAndWhatClearsItAndPlansNothing() throws Exception {
        Path specs = specAt("halted", "1632.0.0", """
                  rollout:
                    healthChecks:
                    - name: error-rate
                      prometheus: {query: 'sum(rate(errors[5m]))', max: 0.01}
                """);
        try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
            DesiredPool web = current(specs, "web");
            // The canary at 1632.0.0, the second node still outdated; the record as the agent writes it when the check failed.
            node(kube, "web-1", "web", web);
            node(kube, "web-2", "web", OUTDATED);
            node(kube, "web-canary-1", "web-canary", current(specs, "web-canary"));
            node(kube, "web-canary-2", "web-canary", current(specs, "web-canary"));
            dev.nightshift.strategies.model.PoolStatus halted = dev.nightshift.strategies.model.PoolStatus.NEW.withValidationStreak(1)
                    .withRollout(java.util.Optional.of(new dev.nightshift.strategies.model.RolloutProgress(web.rollHash().toString(), 2, 0,
                            java.util.Optional.empty(), java.util.Optional.empty(), java.util.Set.of(), 1, java.util.Optional.of(ERROR_RATE))));
            kube.client().configMaps().inNamespace(dev.nightshift.agent.run.Agent.NAMESPACE).resource(
                    dev.nightshift.agent.kube.PoolStatusRecords.create(dev.nightshift.agent.run.Agent.NAMESPACE, "web",
                            dev.nightshift.agent.kube.PoolStatusRecords.data(halted, java.util.Optional.of(acceptedAt("b".repeat(40),
                                    resolved(specs, "web"))), dev.nightshift.agent.kube.PoolStatusRecords.Why.NONE))).create();

            String text = run(kube, "plan", "--spec", specs.toString());
            java.util.Map<String, com.fasterxml.jackson.databind.JsonNode> pools = poolsOf(run(kube, "plan", "--spec", specs.toString(),
                    "--output", "json"));

            assertThat(text).as("plan's table").containsPattern("\nweb\\s+AutoRollingUpdate\\s+HALTED\\s+1/1/0/0")
                    .contains("    blocked:  the rollout is halted: error-rate (0.07, must be <= 0.01) in wave 1; nothing new starts until"
                            + " `nightshift resume web` or a new commit that changes the pool's target");
            assertThat(text.lines().filter(l -> l.startsWith("    next:     web-"))).as("nothing starts in a halted pool")
                    .noneMatch(DISRUPTION.asPredicate());
            com.fasterxml.jackson.databind.JsonNode failure = pools.get("web").path("healthFailure");
            assertThat(failure.path("check").asText()).isEqualTo("error-rate");
            assertThat(failure.path("value").asText()).isEqualTo("0.07");
            assertThat(failure.path("threshold").asText()).isEqualTo("<= 0.01");
            assertThat(failure.path("wave").asInt()).isEqualTo(1);
            assertThat(pools.get("web").path("nextSteps").toString()).doesNotContainPattern(DISRUPTION);
            assertThat(pools.get("web-canary").path("healthFailure").isNull()).isTrue();
        }
    }
}
