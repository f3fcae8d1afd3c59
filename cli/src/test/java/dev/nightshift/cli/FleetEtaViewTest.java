package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.eta.PoolDurations;
import dev.nightshift.agent.eta.RolloutEta;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.strategies.RolloutPlanner;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.Plan;
import picocli.CommandLine;

/** {@code plan} and {@code diff} of a fleet: each pool's turn as the fleet's schedule gives it, in text and JSON. */
class FleetEtaViewTest {

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: c}
            spec:
              kubernetes: {version: "1.31.4"}
              rollout: {concurrency: {pools: 2}}
            """;

    /** Two nodes replaced one at a time, no wait between them. */
    private static String pool(String name, String version) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: %s, cluster: c}
                spec:
                  minimum: 2
                  maximum: 2
                  maxSurge: 0
                  maxUnavailable: 1
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(name, version);
    }

    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private Path spec(String dir, String version) throws IOException {
        Path d = tmp.resolve(dir);
        Files.createDirectories(d.resolve("pools"));
        Files.writeString(d.resolve("cluster.yaml"), CLUSTER);
        for (String p : List.of("a", "b", "c")) {
            Files.writeString(d.resolve("pools/" + p + ".yaml"), pool(p, version));
        }
        return d;
    }

    private int diff(String... extra) throws IOException {
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        List<String> args = new java.util.ArrayList<>(List.of("diff", "--old", spec("old", "1631.0.0").toString(),
                "--new", spec("new", "1632.0.0").toString()));
        args.addAll(List.of(extra));
        return cli.execute(args.toArray(new String[0]));
    }

    @Test
    void diffOfAFleetSaysHowItsPoolsTakeTurnsAndWhenEachStarts() throws IOException {
        int code = diff();

        assertThat(code).as(err.toString()).isZero();
        // a and b roll at once (two turns), 2 × (drain 30 s + creation 2 min) each: c takes a's turn 5 minutes later.
        assertThat(out.toString())
                .contains("ETA (pools roll in role order, 2 of a role at a time, each after the pools its rollout.after names;"
                        + " assumptions in --output json):")
                .containsPattern("\n  c: 2 nodes replaced, ~5m of work, done by [^\n]+\n    starts [^\n]+ when 2 pools are done \\(a frees a turn\\)\n");
        assertThat(out.toString()).doesNotContainPattern("\n  a: [^\n]+\n    starts ");
    }

    @Test
    void diffJsonPutsEachPoolsStartBesideItsEta() throws IOException {
        diff("--output", "json");

        JsonNode pools = new ObjectMapper().readTree(out.toString()).get("pools");
        JsonNode a = pools.get(0);
        JsonNode c = pools.get(2);
        assertThat(c.get("pool").asText()).isEqualTo("c");
        assertThat(c.path("etaStart").path("reason").asText()).isEqualTo("concurrency");
        assertThat(c.path("etaStart").path("after").asText()).isEqualTo("a");
        assertThat(c.path("etaStart").path("poolsDone").asInt()).isEqualTo(2);
        assertThat(Instant.parse(c.path("etaStart").path("at").asText()))
                .isEqualTo(Instant.parse(a.path("etaStart").path("at").asText()).plusSeconds(300));
        assertThat(a.path("etaStart").path("reason").isNull()).isTrue();
    }

    @Test
    void planShowsWhenAWaitingPoolsTurnComesAndWhatItWaitsFor() {
        DesiredCluster desired = load("1632.0.0");
        Instant now = Instant.parse("2026-03-07T02:00:00Z");
        List<ObservedNode> nodes = new java.util.ArrayList<>();
        for (DesiredPool p : desired.pools()) {
            DesiredPool old = load("1631.0.0").pools().stream().filter(o -> o.name().equals(p.name())).findFirst().orElseThrow();
            for (int i = 1; i <= 2; i++) {
                nodes.add(ObservedNode.ready(p.name() + "-" + i, p.name(), now.minusSeconds(3600)).toBuilder().rollHash(old.rollHash())
                        .kubeletHash(old.kubeletHash()).managedLabels(p.labels()).managedAnnotations(p.annotations()).build());
            }
        }
        Map<String, PoolStatus> validated = Map.of("a", PoolStatus.NEW.withValidationStreak(1), "b", PoolStatus.NEW.withValidationStreak(1),
                "c", PoolStatus.NEW.withValidationStreak(1));
        Plan plan = new RolloutPlanner().plan(desired, new ObservedCluster(nodes, true, MaintenanceState.OPEN, validated), now);
        RolloutEta.Estimate estimate = new RolloutEta().remaining(desired, plan, Map.of("a", PoolDurations.NONE, "b", PoolDurations.NONE,
                "c", PoolDurations.NONE), now);
        WindowState open = new WindowState(true, true, Optional.empty(), Optional.empty(), Optional.empty(), true);

        String text = PlanView.text(desired.pools().stream().map(p -> PlanView.row(p, plan.pool(p.name()).orElseThrow(), open,
                Optional.empty(), estimate, Optional.empty())).toList());

        assertThat(text).contains("    blocked:  waits for its turn: concurrency: 2 of 2 turns taken (a, b)\n")
                .endsWith("\n    starts:   Sat 2026-03-07 02:05 (UTC) when 2 pools are done (a frees a turn)");
        assertThat(Duration.between(now, estimate.pool("c").orElseThrow().startsAt())).isEqualTo(Duration.ofMinutes(5));
    }

    private static DesiredCluster load(String version) {
        StringBuilder yaml = new StringBuilder(CLUSTER);
        for (String p : List.of("a", "b", "c")) {
            yaml.append("---\n").append(pool(p, version));
        }
        LoadResult loaded = new SpecLoader().load(Map.of("spec.yaml", yaml.toString().getBytes(StandardCharsets.UTF_8)));
        assertThat(loaded.errors()).isEmpty();
        return DesiredCluster.of(loaded.specs(), "c", 1);
    }
}
