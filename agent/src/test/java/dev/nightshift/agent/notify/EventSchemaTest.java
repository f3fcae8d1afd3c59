package dev.nightshift.agent.notify;

import static dev.nightshift.agent.notify.Reports.C1;
import static dev.nightshift.agent.notify.Reports.C2;
import static dev.nightshift.agent.notify.Reports.pool;
import static dev.nightshift.agent.notify.Reports.report;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.agent.window.Window;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.spec.load.SpecError;

/**
 * Every event type the agent emits, made by the observer from reports, written by {@link EventJson} and checked against
 * the schema docs/operations/notifications.md documents; the JSON and Slack text of each go to
 * {@code target/event-samples.txt} for the docs.
 */
class EventSchemaTest {

    private static final Instant T0 = Instant.parse("2026-11-27T01:00:00Z");
    private static final Set<String> FIELDS = Set.of("schema", "id", "type", "time", "cluster", "commit", "pool", "message", "data");

    /** One of each type but {@code pool.halted}, which needs health-gated waves (not built yet). */
    private static List<NotificationEvent> everyKind() {
        RolloutObserver o = new RolloutObserver("prod-eu1", Optional.of(Duration.ofHours(2)));
        List<Notice> all = new ArrayList<>();
        Window next = new Window(T0.plus(Duration.ofHours(1)), T0.plus(Duration.ofHours(5)), List.of("timeWindow"));
        WindowState closed = new WindowState(false, false, Optional.empty(), Optional.empty(), Optional.of(next), true);
        ReconcileReport before = report(T0, C1, pool("batch", 4, 0, 0), pool("cpu-worker", 3, 0, 0));
        all.addAll(o.observe(new ReconcileReport(T0, C1, closed, before.plan(), List.of(), List.of(), List.of(), Map.of(), List.of(),
                List.of(), Duration.ZERO, Optional.empty(), Map.of(), List.of(), Optional.empty(), List.of(), Map.of()), Optional.empty()));
        Instant t = T0.plus(Duration.ofHours(1));
        all.addAll(o.observe(report(t, C1, pool("batch", 4, 0, 1), pool("cpu-worker", 3, 0, 0)), Optional.empty()));
        all.addAll(o.observe(report(t.plusSeconds(70), C1, pool("batch", 4, 2, 1), pool("cpu-worker", 3, 0, 0)), Optional.empty()));
        all.addAll(o.observe(report(t.plusSeconds(100), C1, Reports.blocked("batch", 4, 3, "batch-4", "web-7d9f-x2k", "web-pdb"),
                pool("cpu-worker", 3, 0, 0)), Optional.empty()));
        all.addAll(o.observe(report(t.plusSeconds(200), C1, pool("batch", 4, 4, 0), pool("cpu-worker", 3, 0, 1)), Optional.empty()));
        all.addAll(o.observe(report(t.plusSeconds(900), C1, pool("batch", 4, 4, 0),
                Reports.failed("cpu-worker", 3, 1, "ProgressDeadlineExceeded")), Optional.empty()));
        all.addAll(o.observe(Reports.withOverdue(report(t.plusSeconds(14400), C1, pool("batch", 4, 4, 0),
                Reports.failed("cpu-worker", 3, 1, "ProgressDeadlineExceeded")), Map.of("cpu-worker", 2)), Optional.empty()));
        all.addAll(o.observe(report(t.plusSeconds(15000), C1, pool("batch", 4, 4, 0), pool("cpu-worker", 3, 3, 0)), Optional.empty()));
        all.addAll(o.observe(Reports.withRejected(report(t.plusSeconds(15100), C1, pool("batch", 4, 4, 0), pool("cpu-worker", 3, 3, 0)),
                "cpu-worker: spec.kubernetes.version: Kubernetes cannot be downgraded (1.31.5 -> 1.31.4)"), Optional.of(C2)));
        all.addAll(o.specInvalid("3333333333333333333333333333333333333333", List.of(new SpecError("pools/cpu-worker.yaml", 7, 13,
                "spec.maxSurge", "must be an int >= 0 or a percentage from 0% to 100%, got \"lots\"")), t.plusSeconds(15200)));
        return all.stream().filter(Notice.Event.class::isInstance).map(n -> ((Notice.Event) n).event()).toList();
    }

    @Test
    void everyTypeButHaltedIsEmittedAndFollowsTheSchema() throws Exception {
        List<NotificationEvent> events = everyKind();

        assertThat(events).extracting(NotificationEvent::type).containsAll(EnumSet.complementOf(EnumSet.of(EventType.POOL_HALTED)));
        StringBuilder samples = new StringBuilder();
        for (NotificationEvent e : events) {
            JsonNode json = EventJson.tree(e);
            assertThat(json.fieldNames()).toIterable().containsExactlyElementsOf(List.of("schema", "id", "type", "time", "cluster",
                    "commit", "pool", "message", "data"));
            assertThat(FIELDS).allSatisfy(f -> assertThat(json.has(f)).as(f).isTrue());
            assertThat(json.path("schema").asText()).isEqualTo("nightshift.dev/event/v1");
            assertThat(json.path("type").asText()).isEqualTo(e.type().wireName());
            assertThat(Instant.parse(json.path("time").asText())).isEqualTo(e.time());
            assertThat(json.path("cluster").asText()).isEqualTo("prod-eu1");
            assertThat(json.path("commit").asText()).hasSize(40);
            boolean concernsAPool = e.type().wireName().startsWith("pool.");
            assertThat(json.path("pool").isTextual()).as(e.type() + " names its pool").isEqualTo(concernsAPool);
            assertThat(json.path("data").isObject()).isTrue();
            samples.append(json.toPrettyString()).append('\n').append("slack: ").append(SlackText.of(e)).append("\n\n");
        }
        Files.writeString(Files.createDirectories(Path.of("target")).resolve("event-samples.txt"), samples);
    }

    @Test
    void anEventsIdIsTheSameForTheSameEventAndDiffersForAnother() {
        List<NotificationEvent> first = everyKind();
        List<NotificationEvent> again = everyKind();

        assertThat(first).extracting(NotificationEvent::id).doesNotHaveDuplicates()
                .containsExactlyElementsOf(again.stream().map(NotificationEvent::id).toList());
    }
}
