package dev.nightshift.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.diff.PoolAction;
import dev.nightshift.spec.diff.PoolDecision;
import dev.nightshift.spec.diff.Reason;
import dev.nightshift.spec.load.SpecError;

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
}
