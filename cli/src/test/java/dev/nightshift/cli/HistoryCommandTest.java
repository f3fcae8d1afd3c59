package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.report.RevisionHistory;
import dev.nightshift.agent.report.RevisionHistory.Outcome;

/** {@code nightshift history}: the pool's revisions as a table and as JSON. */
class HistoryCommandTest {

    private static final Instant T0 = Instant.parse("2026-11-27T12:00:00Z");
    private static final RevisionHistory HISTORY = RevisionHistory.EMPTY
            .seen("1a2b3c4d5e6f", "1:0123456789abcdef", T0, Outcome.CURRENT, "", 10)
            .seen("9f8e7d6c5b4a", "1:fedcba9876543210", T0.plusSeconds(600), Outcome.HALTED,
                    "error-rate (0.07, must be <= 0.01) in wave 1", 10);

    private static String print(OutputFormat format) {
        StringWriter out = new StringWriter();
        HistoryCommand.print(new PrintWriter(out), "web", HISTORY, format);
        return out.toString();
    }

    @Test
    void theTableListsEachRevisionOldestFirst() {
        assertThat(print(OutputFormat.text).lines()).containsExactly(
                "pool web",
                "REVISION  ROLL-HASH    ACCEPTED             OUTCOME     NOTE",
                "1a2b3c4d  1:01234567   2026-11-27T12:00:00Z CURRENT     ",
                "9f8e7d6c  1:fedcba98   2026-11-27T12:10:00Z HALTED      error-rate (0.07, must be <= 0.01) in wave 1");
    }

    @Test
    void theJsonHasEveryField() throws Exception {
        JsonNode json = new ObjectMapper().readTree(print(OutputFormat.json));

        assertThat(json.path("pool").asText()).isEqualTo("web");
        assertThat(json.path("revisions")).hasSize(2);
        assertThat(json.path("revisions").get(1).path("revision").asText()).isEqualTo("9f8e7d6c5b4a");
        assertThat(json.path("revisions").get(1).path("rollHash").asText()).isEqualTo("1:fedcba9876543210");
        assertThat(json.path("revisions").get(1).path("acceptedAt").asText()).isEqualTo("2026-11-27T12:10:00Z");
        assertThat(json.path("revisions").get(1).path("outcome").asText()).isEqualTo("HALTED");
        assertThat(json.path("revisions").get(1).path("note").asText()).contains("error-rate");
    }
}
