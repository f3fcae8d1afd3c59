package dev.nightshift.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.reconcile.NodeStates;
import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.agent.window.Upcoming;
import dev.nightshift.agent.window.Window;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.spec.model.Maintenance;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolPlan;
import dev.nightshift.strategies.plan.PoolReport;

/** What {@code /status} adds for the web view: each pool's node states and the calendar's two weeks. */
class StatusJsonViewTest {

    private static final Instant AT = Instant.parse("2026-11-27T12:00:00Z");
    private static final WindowState CLOSED = new WindowState(false, false, Optional.empty(), Optional.empty(), Optional.empty(), true);

    private static JsonNode status(ReconcileReport report) throws Exception {
        return new ObjectMapper().readTree(StatusJson.write(Optional.of("abc"), Optional.of("abc"), List.of(), Optional.of(report),
                Optional.empty(), new StatusJson.Leadership(false, true, "agent", Optional.empty())));
    }

    private static ReconcileReport report(Map<String, List<NodeStates.NodeState>> states, Optional<Upcoming> calendar) {
        PoolReport web = new PoolReport("web", PoolPhase.UPDATING, PendingAction.ROLL, 2, 1, 1, 1, 0, 1, 0, true, "", List.of(),
                List.of(), List.of(), PoolStatus.NEW);
        ReconcileReport planned = ReconcileReport.planned(AT, "abc", CLOSED, new Plan(List.of(new PoolPlan("web", List.of(), web)),
                Optional.empty()));
        return new ReconcileReport(planned.at(), planned.revision(), planned.window(), planned.plan(), List.of(), List.of(), List.of(),
                Map.of(), List.of(), List.of(), Duration.ZERO, Optional.empty(), Map.of(), List.of(), Optional.empty(), List.of(), Map.of(),
                states, calendar);
    }

    @Test
    void eachPoolListsItsNodesWithTheirStates() throws Exception {
        JsonNode web = status(report(Map.of("web", List.of(new NodeStates.NodeState("web-1", NodeStates.State.CURRENT),
                new NodeStates.NodeState("web-2", NodeStates.State.DRAINING))), Optional.empty())).path("pools").get(0);

        assertThat(web.path("nodeStates").toString())
                .isEqualTo("[{\"node\":\"web-1\",\"state\":\"current\"},{\"node\":\"web-2\",\"state\":\"draining\"}]");
        assertThat(web.path("current").asInt()).as("the counts are still there").isEqualTo(1);
    }

    @Test
    void theCalendarListsTheWindowsAndExclusionsOfTheTwoWeeksAhead() throws Exception {
        Upcoming upcoming = new Upcoming(AT, AT.plus(Duration.ofDays(14)), List.of(
                new Window(Instant.parse("2026-11-27T22:00:00Z"), Instant.parse("2026-11-28T04:00:00Z"), List.of("timeWindow")),
                new Window(Instant.parse("2026-12-10T22:00:00Z"), false, Optional.empty(), List.of("windows[0]"))),
                List.of(new Maintenance.Exclusion(Instant.parse("2026-12-01T00:00:00Z"), Instant.parse("2026-12-02T00:00:00Z"), "freeze")),
                false);

        JsonNode calendar = status(report(Map.of(), Optional.of(upcoming))).path("calendar");

        assertThat(calendar.path("from").asText()).isEqualTo("2026-11-27T12:00:00Z");
        assertThat(calendar.path("until").asText()).isEqualTo("2026-12-11T12:00:00Z");
        assertThat(calendar.path("windows").toString()).isEqualTo("[{\"open\":\"2026-11-27T22:00:00Z\",\"openedBeforeLookBack\":false,\"close\":\"2026-11-28T04:00:00Z\","
                + "\"source\":\"timeWindow\"},{\"open\":\"2026-12-10T22:00:00Z\",\"openedBeforeLookBack\":false,\"close\":null,\"source\":\"windows[0]\"}]");
        assertThat(calendar.path("exclusions").toString())
                .isEqualTo("[{\"start\":\"2026-12-01T00:00:00Z\",\"end\":\"2026-12-02T00:00:00Z\",\"reason\":\"freeze\"}]");
        assertThat(calendar.path("truncated").asBoolean()).isFalse();
    }

    @Test
    void withoutAReportThereIsNoCalendarAndAPoolWithoutStatesHasAnEmptyList() throws Exception {
        JsonNode status = new ObjectMapper().readTree(StatusJson.write(Optional.empty(), Optional.empty(), List.of(), Optional.empty(),
                Optional.empty(), new StatusJson.Leadership(false, true, "agent", Optional.empty())));

        assertThat(status.has("calendar")).isTrue();
        assertThat(status.path("calendar").isNull()).isTrue();
        assertThat(status(report(Map.of(), Optional.empty())).path("pools").get(0).path("nodeStates").isArray()).isTrue();
    }
}
