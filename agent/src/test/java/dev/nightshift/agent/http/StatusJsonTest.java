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

import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.strategies.plan.Plan;

class StatusJsonTest {

    private static final StatusJson.Leadership ALONE = new StatusJson.Leadership(false, true, "agent", Optional.empty());
    private static final WindowState OPEN = new WindowState(true, true, Optional.empty(), Optional.empty(), Optional.empty(), true);

    private static JsonNode status(Optional<String> accepted, Optional<ReconcileReport> report) throws Exception {
        return new ObjectMapper().readTree(StatusJson.write(accepted, accepted, List.of(), report, Optional.empty(), ALONE));
    }

    private static ReconcileReport planned(String revision) {
        return new ReconcileReport(Instant.parse("2026-11-23T20:00:00Z"), revision, OPEN, new Plan(List.of(), Optional.empty()),
                List.of(), List.of(), List.of(), Map.of(), List.of(), List.of(), Duration.ZERO, Optional.empty());
    }

    @Test
    void theRevisionIsTheOneThePoolsShownWerePlannedForWhileANewerCommitIsBeingTaken() throws Exception {
        // A commit accepted by the reconcile still running has no pools reported yet: showing it beside
        // the pools of the reconcile before would say "every pool is current at the new commit".
        assertThat(status(Optional.of("new"), Optional.of(planned("old"))).path("revision").asText()).isEqualTo("old");
    }

    @Test
    void beforeAnyReconcileReportsTheAcceptedCommitIsShown() throws Exception {
        assertThat(status(Optional.of("accepted"), Optional.empty()).path("revision").asText()).isEqualTo("accepted");
    }

    @Test
    void aFailedReconcilePlannedNothingSoTheAcceptedCommitIsShown() throws Exception {
        ReconcileReport failed = ReconcileReport.failed(Instant.parse("2026-11-23T20:00:00Z"), "", List.of(), Duration.ZERO, "boom");

        assertThat(status(Optional.of("accepted"), Optional.of(failed)).path("revision").asText()).isEqualTo("accepted");
    }
}
