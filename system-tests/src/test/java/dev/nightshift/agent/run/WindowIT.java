package dev.nightshift.agent.run;

import static dev.nightshift.agent.run.AgentHarness.annotation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.kube.NodeMarks;
import dev.nightshift.sandbox.embedded.RecordedRequest;
import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;
import io.fabric8.kubernetes.api.model.Node;

/**
 * A maintenance window that closes in the middle of a rollout: what is in flight finishes, nothing
 * new starts, no node is left cordoned, and the rollout carries on when the next window opens.
 * Real time with windows a few seconds long: Quartz schedules have a seconds field, so the windows
 * are written relative to now. What happened is read from the embedded API server's request log
 * and from the nodes, not from the agent's bookkeeping.
 */
class WindowIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static final int NODES = 4;
    /**
     * A machine registers this long after it is requested. With maxSurge 1, the nodes go one at a
     * time: a node is in flight from its surge machine's request (at the window's opening, or up to
     * 2 s later while the pool validates) until that machine registers and the old node is drained
     * and deleted, CREATE_DELAY later; then up to 2 s more of validation before the next one. So the
     * first node is done by about 9 s into the window and the second one is in flight from 9-11 s
     * to 16-18 s.
     */
    private static final Duration CREATE_DELAY = Duration.ofSeconds(7);
    /** From the push to the first window's opening: time for the agent to take the commit. */
    private static final Duration LEAD = Duration.ofSeconds(5);
    /**
     * Closes while the second node is in flight, so that "work in flight finishes" is exercised
     * (the assertions hold wherever the close falls); the third and fourth nodes are surely left.
     */
    private static final Duration FIRST_WINDOW = Duration.ofSeconds(13);
    /** Long enough for the node in flight to finish (up to CREATE_DELAY after the close) and the pool to settle. */
    private static final Duration GAP = Duration.ofSeconds(12);
    private static final Duration SECOND_WINDOW = Duration.ofSeconds(60);
    /**
     * A reconcile that read the clock just before the close may still be sending its steps just after
     * it; one reconcile takes tens of milliseconds, so a request later than this after the close was
     * decided after it.
     */
    private static final Duration GRACE = Duration.ofMillis(1500);
    /** The window's opening wakes the agent (Quartz): the rollout resumes within this, not at the 30 s resync. */
    private static final Duration PROMPT = Duration.ofSeconds(5);

    private static final String CLUSTER = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: e2e}
            spec:
              kubernetes: {version: "1.31.4"}
              maintenance:
                windows:
            %s""";

    private static String pool(String version) {
        return """
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: e2e}
                spec:
                  minimum: %d
                  maximum: %d
                  maxSurge: 1
                  maxUnavailable: 0
                  interval: 0s
                  machine: {type: m5.large, image: {name: gardenlinux, version: %s}}
                """.formatted(NODES, NODES + 4, version);
    }

    /** A daily window opening at {@code open} (whole seconds, UTC) for {@code length}. */
    private static String window(Instant open, Duration length) {
        ZonedDateTime t = open.atZone(ZoneOffset.UTC);
        return "    - {schedule: \"%d %d %d * * ?\", duration: %ds, timeZone: UTC}\n"
                .formatted(t.getSecond(), t.getMinute(), t.getHour(), length.toSeconds());
    }

    @TempDir
    Path tmp;

    @AutoClose
    private AgentHarness h;

    @Test
    void aWindowClosingMidRolloutPausesAtASafePointAndTheNextWindowFinishesTheRollout() throws Exception {
        h = new AgentHarness(tmp, "e2e", "web", NODES,
                new SimulatedMachineProvider.Behaviour(CREATE_DELAY, CREATE_DELAY, Duration.ofMillis(300), 0, 0));
        h.work.write("cluster.yaml", CLUSTER.formatted(window(Instant.now().plus(Duration.ofHours(12)).truncatedTo(ChronoUnit.SECONDS),
                Duration.ofHours(1))));
        h.work.write("pools/web.yaml", pool("1631.0.0"));
        h.work.commitAndPush("initial, with a nightly window");
        h.startAgent("e2e");
        h.awaitAdopted("web", NODES);
        Set<String> original = names(h.nodes("web"));
        String oldHash = annotation(h.nodes("web").get(0), NodeMarks.ROLL_HASH);
        h.kube.clearRequests();

        // The windows come with the bump, so that they are relative to when the rollout may start,
        // however long adoption took.
        Instant open1 = Instant.now().plus(LEAD).truncatedTo(ChronoUnit.SECONDS);
        Instant close1 = open1.plus(FIRST_WINDOW);
        Instant open2 = close1.plus(GAP);
        h.work.write("cluster.yaml", CLUSTER.formatted(window(open1, FIRST_WINDOW) + window(open2, SECOND_WINDOW)));
        h.work.write("pools/web.yaml", pool("1632.0.0"));
        h.work.commitAndPush("image bump, with a short window now and another one a little later");

        // The safe point: whatever was in flight at the close has finished, nothing is cordoned or
        // tainted, and the agent reports the window closed and the pool waiting for the next one.
        Snapshot paused = await("the safe point in the gap between the windows")
                .atMost(Duration.between(Instant.now(), open2).plus(Duration.ofSeconds(10)))
                .pollInterval(Duration.ofMillis(200))
                .until(this::snapshot, s -> s.status().at("/window/nextOpens").asText().equals(open2.toString())
                        && s.pool().path("phase").asText().equals("WAITING_FOR_WINDOW") && s.nodes().size() == NODES
                        && s.nodes().stream().allMatch(WindowIT::settled)
                        // /status and /metrics come from the last reconcile, the nodes from the API now:
                        // the reconcile that saw the last in-flight node go may not have reported yet.
                        && s.pool().path("outdated").asLong() == s.outdated(oldHash)
                        && s.gaugeIs("nightshift_pool_outdated_past_window_nodes{pool=\"web\"}",
                                s.pool().path("outdatedPastWindow").asLong()));

        assertThat(paused.at()).as("the safe point was reached in the gap, before the next window").isBefore(open2);
        assertThat(paused.status().at("/window/open").asBoolean(true)).as("/status: window open").isFalse();
        assertThat(paused.status().at("/window/specRolloutAllowed").asBoolean(true)).isFalse();
        assertThat(paused.status().at("/window/nextOpens").asText()).isEqualTo(open2.toString());
        assertThat(paused.status().at("/window/nextCloses").asText()).as("/status: the next window's end")
                .isEqualTo(open2.plus(SECOND_WINDOW).toString());
        assertThat(paused.gauge("nightshift_window_next_open_timestamp_seconds")).as("/metrics: the next window's start")
                .isEqualTo(open2.getEpochSecond());
        assertThat(paused.gauge("nightshift_window_next_close_timestamp_seconds")).as("/metrics: the next window's end")
                .isEqualTo(open2.plus(SECOND_WINDOW).getEpochSecond());
        long outdated = paused.outdated(oldHash);
        assertThat(outdated).as("the first window closed mid-rollout: some nodes replaced, some still outdated")
                .isBetween(1L, NODES - 1L);
        // The pool was outdated since the bump, before the first window opened: every node still
        // outdated has missed that window.
        assertThat(paused.pool().path("outdatedPastWindow").asLong()).as("/status: outdated nodes past the window")
                .isEqualTo(outdated);
        assertThat(paused.gauge("nightshift_pool_outdated_past_window_nodes{pool=\"web\"}"))
                .as("/metrics: outdated nodes past the window").isEqualTo(outdated);
        assertThat(paused.nodes()).allSatisfy(n -> assertThat(ready(n)).as("%s Ready", name(n)).isTrue());
        String newHash = paused.nodes().stream().map(n -> annotation(n, NodeMarks.ROLL_HASH)).filter(hash -> !hash.equals(oldHash))
                .findFirst().orElseThrow();

        await("every node at the new roll hash").atMost(Duration.between(Instant.now(), open2).plus(Duration.ofSeconds(60)))
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(() -> assertThat(h.nodes("web")).hasSize(NODES).allSatisfy(n -> {
                    assertThat(annotation(n, NodeMarks.ROLL_HASH)).isEqualTo(newHash);
                    assertThat(settled(n)).as("%s settled", name(n)).isTrue();
                }));

        List<Write> writes = writes(h.kube.requests());
        String log = writes.stream().map(Write::toString).collect(Collectors.joining("\n  ", "\n  ", ""));

        assertThat(writes).as("nothing disruptive before the first window opened:" + log)
                .noneMatch(w -> w.time().isBefore(open1));

        // In flight at the close: a node whose cordon the cluster saw by then, or whose surge machine
        // registered by then plus the cloud's delay (the machine was requested before the close; the
        // cluster sees it only when it registers), and that was not deleted yet.
        Instant decidedBefore = close1.plus(GRACE);
        Set<String> deletedByClose = nodesOf(writes, Kind.DELETE, t -> !t.isAfter(close1));
        Set<String> inFlight = new HashSet<>(nodesOf(writes, Kind.CORDON, t -> !t.isAfter(decidedBefore)));
        inFlight.addAll(writes.stream().filter(w -> w.kind() == Kind.CREATE && !w.time().isAfter(decidedBefore.plus(CREATE_DELAY)))
                .map(w -> w.surgeFor().orElseThrow()).toList());
        inFlight.removeAll(deletedByClose);

        List<Write> inGap = writes.stream().filter(w -> w.time().isAfter(decidedBefore) && w.time().isBefore(open2)).toList();
        assertThat(inGap).as("in the gap, no node is newly tainted; in flight at the close: " + inFlight + log)
                .noneMatch(w -> w.kind() == Kind.TAINT);
        assertThat(inGap).as("in the gap, cordons, drains and deletions only finish nodes in flight at the close " + inFlight + log)
                .filteredOn(w -> w.kind() == Kind.CORDON || w.kind() == Kind.DRAIN || w.kind() == Kind.DELETE)
                .allSatisfy(w -> assertThat(inFlight).contains(w.node()));
        assertThat(inGap).as("in the gap, the only machines registering are surge machines requested before the close" + log)
                .filteredOn(w -> w.kind() == Kind.CREATE)
                .allSatisfy(w -> assertThat(w.time()).isBeforeOrEqualTo(decidedBefore.plus(CREATE_DELAY)));
        assertThat(nodesOf(writes, Kind.DELETE, t -> t.isBefore(open2))).as("every node in flight at the close was replaced in the gap")
                .containsAll(inFlight);
        assertThat(paused.nodes()).extracting(WindowIT::name).as("no node in flight at the close is left at the safe point")
                .noneMatch(inFlight::contains);

        Instant resumed = writes.stream().filter(w -> w.time().isAfter(decidedBefore)
                        && !inFlight.contains(w.surgeFor().orElse(w.node())))
                .map(Write::time).min(Instant::compareTo).orElseThrow();
        assertThat(resumed).as("the rollout resumed when the next window opened, woken by it" + log)
                .isBetween(open2, open2.plus(PROMPT));
        assertThat(nodesOf(writes, Kind.CORDON, t -> !t.isBefore(open2))).as("nodes drained in the second window").isNotEmpty();

        assertThat(countPerNode(writes, Kind.CORDON)).as("every old node cordoned once, none twice, no new one" + log)
                .containsOnlyKeys(original).allSatisfy((node, count) -> assertThat(count).isOne());
        // No node drained twice: one cordon and one drain start each, the drain inside its
        // cordon-to-deletion span.
        Map<String, Instant> cordoned = firstPerNode(writes, Kind.CORDON);
        Map<String, Instant> deleted = firstPerNode(writes, Kind.DELETE);
        assertThat(countPerNode(writes, Kind.DRAIN)).as("every old node's drain started once" + log)
                .containsOnlyKeys(original).allSatisfy((node, count) -> assertThat(count).isOne());
        assertThat(writes).as("no drain outside the node's one cordon-to-deletion span" + log).filteredOn(w -> w.kind() == Kind.DRAIN)
                .allSatisfy(w -> assertThat(w.time()).isBetween(cordoned.get(w.node()), deleted.get(w.node())));
        assertThat(countPerNode(writes, Kind.DELETE)).as("every old machine deleted once" + log)
                .containsOnlyKeys(original).allSatisfy((node, count) -> assertThat(count).isOne());
        assertThat(writes.stream().filter(w -> w.kind() == Kind.CREATE).map(w -> w.surgeFor().orElse("")))
                .as("one surge machine per old node, no extra one" + log).containsExactlyInAnyOrderElementsOf(original);
    }

    /** What the test sees at one instant: the nodes, the agent's {@code /status} and its {@code /metrics}. */
    private record Snapshot(Instant at, List<Node> nodes, JsonNode status, String metrics) {
        long outdated(String oldHash) {
            return nodes.stream().filter(n -> annotation(n, NodeMarks.ROLL_HASH).equals(oldHash)).count();
        }

        JsonNode pool() {
            return StreamSupport.stream(status.path("pools").spliterator(), false)
                    .filter(p -> p.path("pool").asText().equals("web")).findFirst().orElse(JSON.createObjectNode());
        }

        boolean gaugeIs(String series, double value) {
            return metrics.lines().anyMatch(l -> l.startsWith(series + " ") && Double.parseDouble(l.substring(series.length() + 1)) == value);
        }

        /** The value of one series, named with its labels as the Prometheus text format writes them. */
        double gauge(String series) {
            return metrics.lines().filter(l -> l.startsWith(series + " ")).map(l -> Double.parseDouble(l.substring(series.length() + 1)))
                    .findFirst().orElseThrow(() -> new AssertionError(series + " is not in /metrics:\n" + metrics));
        }
    }

    private Snapshot snapshot() throws Exception {
        Instant at = Instant.now();
        List<Node> nodes = h.nodes("web");
        return new Snapshot(at, nodes, JSON.readTree(get("/status")), get("/metrics"));
    }

    /** One of the agent's HTTP endpoints, as an operator or Prometheus reads it. */
    private String get(String path) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + h.agent.httpPort() + path)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return response.body();
    }

    /** Not cordoned, not draining, not tainted for update: nothing Nightshift started is left on it. */
    private static boolean settled(Node n) {
        return !Boolean.TRUE.equals(NodeMarks.spec(n).getUnschedulable()) && annotation(n, NodeMarks.DRAIN_STARTED_AT).isEmpty()
                && NodeMarks.taints(n).stream().noneMatch(t -> NodeMarks.UPDATE_TAINT.equals(t.getKey()));
    }

    private static boolean ready(Node n) {
        return n.getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
    }

    private static String name(Node n) {
        return n.getMetadata().getName();
    }

    private static Set<String> names(List<Node> nodes) {
        return nodes.stream().map(WindowIT::name).collect(Collectors.toSet());
    }

    /** The disruptive writes the cluster saw, as the test reads them from its request log. */
    private enum Kind {
        /** Nightshift's update taint put on a node: it is selected for update. */
        TAINT,
        CORDON,
        /** The drain started: the drain-started-at mark set. */
        DRAIN,
        /** A machine registered as a node (the cloud creates the node when the machine is up). */
        CREATE,
        /** A machine's node deleted. */
        DELETE
    }

    private record Write(Instant time, Kind kind, String node, Optional<String> surgeFor) {
        @Override
        public String toString() {
            return time + " " + kind + " " + node + surgeFor.map(s -> " (surge for " + s + ")").orElse("");
        }
    }

    private static List<Write> writes(List<RecordedRequest> log) throws Exception {
        List<Write> writes = new java.util.ArrayList<>();
        for (RecordedRequest r : log) {
            String path = r.resourcePath();
            if (!path.startsWith("/api/v1/nodes")) {
                continue;
            }
            String node = path.substring(path.lastIndexOf('/') + 1);
            if (r.method().equals("POST") && path.equals("/api/v1/nodes")) {
                JsonNode body = JSON.readTree(r.body());
                JsonNode surgeFor = body.at("/metadata/annotations").path(NodeMarks.SURGE_FOR);
                writes.add(new Write(r.time(), Kind.CREATE, body.at("/metadata/name").asText(),
                        surgeFor.isMissingNode() ? Optional.empty() : Optional.of(surgeFor.asText())));
            } else if (r.method().equals("DELETE")) {
                writes.add(new Write(r.time(), Kind.DELETE, node, Optional.empty()));
            } else if (r.method().equals("PATCH")) {
                JsonNode body = JSON.readTree(r.body());
                if (body.at("/spec/unschedulable").asBoolean(false)) {
                    writes.add(new Write(r.time(), Kind.CORDON, node, Optional.empty()));
                }
                if (body.at("/metadata/annotations").path(NodeMarks.DRAIN_STARTED_AT).isTextual()) {
                    writes.add(new Write(r.time(), Kind.DRAIN, node, Optional.empty()));
                }
                // A label/taint propagation carries the update taint along when a node has it; it does not add it.
                boolean propagation = body.at("/metadata/annotations").has(NodeMarks.MANAGED_LABELS);
                boolean tainted = StreamSupport.stream(body.at("/spec/taints").spliterator(), false)
                        .anyMatch(t -> t.path("key").asText().equals(NodeMarks.UPDATE_TAINT));
                if (tainted && !propagation) {
                    writes.add(new Write(r.time(), Kind.TAINT, node, Optional.empty()));
                }
            }
        }
        return writes;
    }

    private static Set<String> nodesOf(List<Write> writes, Kind kind, java.util.function.Predicate<Instant> when) {
        return writes.stream().filter(w -> w.kind() == kind && when.test(w.time())).map(Write::node).collect(Collectors.toSet());
    }

    private static Map<String, Instant> firstPerNode(List<Write> writes, Kind kind) {
        return writes.stream().filter(w -> w.kind() == kind).collect(Collectors.toMap(Write::node, Write::time, (a, b) -> a));
    }

    private static Map<String, Long> countPerNode(List<Write> writes, Kind kind) {
        return writes.stream().filter(w -> w.kind() == kind).collect(Collectors.groupingBy(Write::node, Collectors.counting()));
    }
}
