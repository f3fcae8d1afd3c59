package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.agent.eta.PoolEstimate;
import dev.nightshift.agent.eta.PoolEta;
import dev.nightshift.agent.window.Window;
import dev.nightshift.spec.diff.PoolAction;
import dev.nightshift.spec.diff.PoolDecision;
import dev.nightshift.spec.diff.Reason;
import dev.nightshift.spec.load.SpecError;
import dev.nightshift.strategies.plan.PendingAction;

class DiffMarkdownTest {

    private static DiffReview.PoolReview pool(String cluster, String name, PoolAction action, Reason... reasons) {
        PoolDecision d = new PoolDecision(cluster, name, action, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                List.of(reasons), Optional.empty());
        return new DiffReview.PoolReview(d, PoolImpact.fromSpec(d, Optional.empty()));
    }

    @Test
    void codeSpansHoldBackticksAndStayOnOneLine() {
        assertThat(DiffMarkdown.code("a`b")).isEqualTo("``a`b``");
        assertThat(DiffMarkdown.code("`x`")).isEqualTo("`` `x` ``");
        assertThat(DiffMarkdown.code("two\nlines")).isEqualTo("`two lines`");
    }

    @Test
    void messagesCannotInjectHtmlOrMarkup() {
        assertThat(DiffMarkdown.text("<img src=x> **bold** [link](u)")).isEqualTo("&lt;img src=x> \\*\\*bold\\*\\* \\[link\\](u)");
    }

    @Test
    void poolsOfSeveralClustersAreNamedWithTheirClusterAndUnchangedOnesShareOneLine() {
        DiffReview review = new DiffReview(Optional.empty(), List.of(
                pool("a", "web", PoolAction.NONE),
                pool("b", "web", PoolAction.NONE),
                pool("b", "old", PoolAction.DELETE, Reason.change(dev.nightshift.spec.diff.Effect.NONE, "metadata.name", "old", ""))), List.of());

        String md = DiffMarkdown.write(review);

        assertThat(md).startsWith(DiffMarkdown.MARKER + "\n### Nightshift: 1 pool changes\n")
                .contains("**b/old** · DELETE · removed from the spec; its nodes are left as they are")
                .contains("No change: `a/web`, `b/web`.");
    }

    @Test
    void specErrorsComeAloneAndNameTheSideFileLineAndField() {
        DiffReview review = new DiffReview(Optional.empty(), List.of(),
                List.of(new SideError("old", new SpecError("pools/a.yaml", 3, 5, "spec.minimum", "must be >= 0, got -1"))));

        assertThat(DiffMarkdown.write(review)).isEqualTo("""
                <!-- nightshift-diff -->
                ### Nightshift: invalid spec

                > [!CAUTION]
                > **The spec is invalid: nothing was compared, and the agent does not apply a commit with errors.**
                >
                > - base `pools/a.yaml:3:5` `spec.minimum`: must be >= 0, got -1
                """);
    }

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    private static DiffReview.PoolReview withEta(DiffReview.PoolReview p, PoolEstimate eta) {
        return new DiffReview.PoolReview(p.decision(), p.impact(), eta);
    }

    @Test
    void theEtaGivesOneLinePerPoolInTheOrderTheyRollThenThePoolsLeftOutWithTheirReason() {
        Instant start = Instant.parse("2026-03-07T01:00:00Z");
        // The example: Saturday and Sunday 02:00–06:00 in Berlin (UTC+1 in March).
        PoolEta cpu = new PoolEta("cpu-worker", PendingAction.ROLL, 40, Duration.ofMinutes(190), start,
                Optional.of(Instant.parse("2026-03-08T04:10:00Z")),
                List.of(new Window(start, Instant.parse("2026-03-07T05:00:00Z"), List.of("windows[0]")),
                        new Window(Instant.parse("2026-03-08T01:00:00Z"), Instant.parse("2026-03-08T05:00:00Z"), List.of("windows[0]"))),
                List.of("40 node(s), AutoRollingUpdate with maxSurge 1 and maxUnavailable 0", "drain 30s (default: none observed in this pool yet)",
                        "no faults"));
        // Rolls first (a control plane), though named later.
        PoolEta cp = new PoolEta("cp", PendingAction.ROLL, 1, Duration.ofSeconds(150), start.minusSeconds(150), Optional.of(start),
                List.of(), List.of("starts at 2026-03-07T00:57:30Z", "no faults"));
        DiffReview review = new DiffReview(Optional.empty(), List.of(
                withEta(pool("c", "cpu-worker", PoolAction.ROLL), new PoolEstimate(Optional.of(cpu), Optional.empty(), BERLIN)),
                withEta(pool("c", "cp", PoolAction.ROLL), new PoolEstimate(Optional.of(cp), Optional.empty(), BERLIN)),
                withEta(pool("c", "gpu", PoolAction.IN_PLACE), new PoolEstimate(Optional.empty(),
                        Optional.of("ManualInPlaceUpdate: nodes wait for a person to select them"), BERLIN)),
                pool("c", "quiet", PoolAction.NONE)), List.of());

        String md = DiffMarkdown.write(review);

        assertThat(md).contains("""

                **ETA** (pools roll one at a time, in role order):
                - cp: 1 node replaced, ~3m of work, done by Sat 2026-03-07 02:00 (Europe/Berlin)
                - cpu-worker: 40 nodes replaced, ~3h10m of work, in 2 windows: Sat 02:00–06:00, Sun 02:00–06:00 (Europe/Berlin); \
                done by 2026-03-08T04:10:00Z
                - gpu: not estimated: ManualInPlaceUpdate: nodes wait for a person to select them

                <details><summary>What the estimate assumes</summary>

                - every pool: no faults
                - cp: starts at 2026-03-07T00:57:30Z
                - cpu-worker: 40 node(s), AutoRollingUpdate with maxSurge 1 and maxUnavailable 0; drain 30s (default: none observed in this pool yet)

                </details>
                """);
        assertThat(md.indexOf("**ETA**")).as("after the pools' entries").isGreaterThan(md.indexOf("**gpu**"));
    }

    @Test
    void noEtaBlockWhenNoChangeDisruptsANode() {
        DiffReview review = new DiffReview(Optional.empty(), List.of(pool("c", "web", PoolAction.PROPAGATE)), List.of());

        assertThat(DiffMarkdown.write(review)).doesNotContain("ETA").doesNotContain("<details>");
    }
}
