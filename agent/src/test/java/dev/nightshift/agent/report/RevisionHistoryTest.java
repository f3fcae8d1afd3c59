package dev.nightshift.agent.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import dev.nightshift.agent.report.RevisionHistory.Entry;
import dev.nightshift.agent.report.RevisionHistory.Outcome;

/** A pool's revisions, as the record keeps them: one per target, how it went, at most the limit. */
class RevisionHistoryTest {

    private static final Instant T0 = Instant.parse("2026-11-27T12:00:00Z");

    @Test
    void aNewTargetIsAddedAndTheOneStillInProgressIsSuperseded() {
        RevisionHistory h = RevisionHistory.EMPTY.seen("aaa", "1:a", T0, Outcome.IN_PROGRESS, "", 10)
                .seen("bbb", "1:b", T0.plusSeconds(60), Outcome.IN_PROGRESS, "", 10);

        assertThat(h.entries()).containsExactly(new Entry("aaa", "1:a", T0, Outcome.SUPERSEDED, ""),
                new Entry("bbb", "1:b", T0.plusSeconds(60), Outcome.IN_PROGRESS, ""));
    }

    @Test
    void theNewestFollowsWhatIsSeenAndKeepsWhenItWasAccepted() {
        RevisionHistory h = RevisionHistory.EMPTY.seen("aaa", "1:a", T0, Outcome.IN_PROGRESS, "", 10)
                .seen("aaa", "1:a", T0.plusSeconds(30), Outcome.HALTED, "error-rate (0.07, must be <= 0.01) in wave 1", 10);

        assertThat(h.entries()).containsExactly(new Entry("aaa", "1:a", T0, Outcome.HALTED, "error-rate (0.07, must be <= 0.01) in wave 1"));
        assertThat(h.seen("aaa", "1:a", T0.plusSeconds(90), Outcome.HALTED, "error-rate (0.07, must be <= 0.01) in wave 1", 10))
                .as("nothing changed: the same history, so the record is not written again").isEqualTo(h);
    }

    @Test
    void aCurrentRevisionStaysCurrentWhenTheNextOneComes() {
        RevisionHistory h = RevisionHistory.EMPTY.seen("aaa", "1:a", T0, Outcome.CURRENT, "", 10)
                .seen("bbb", "1:b", T0.plusSeconds(60), Outcome.IN_PROGRESS, "", 10);

        assertThat(h.entries()).extracting(Entry::outcome).containsExactly(Outcome.CURRENT, Outcome.IN_PROGRESS);
    }

    @Test
    void onlyTheLastLimitRevisionsAreKept() {
        RevisionHistory h = RevisionHistory.EMPTY;
        for (int i = 0; i < 5; i++) {
            h = h.seen("c" + i, "1:" + i, T0.plusSeconds(i), Outcome.CURRENT, "", 3);
        }

        assertThat(h.entries()).extracting(Entry::revision).containsExactly("c2", "c3", "c4");
    }

    @Test
    void itIsReadBackAsWrittenAndUnreadableTextStartsAgain() {
        RevisionHistory h = RevisionHistory.EMPTY.seen("aaa", "1:a", T0, Outcome.CURRENT, "", 10)
                .seen("bbb", "1:b", T0.plusSeconds(60), Outcome.HALTED, "maxFailedMachines (3, must be >= 3 in a row) in wave 1", 10);

        assertThat(RevisionHistory.read(h.write())).isEqualTo(h);
        assertThat(RevisionHistory.read("{not json")).isEqualTo(RevisionHistory.EMPTY);
        assertThat(RevisionHistory.read(null)).isEqualTo(RevisionHistory.EMPTY);
    }
}
