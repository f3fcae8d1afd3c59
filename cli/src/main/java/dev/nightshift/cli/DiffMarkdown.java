package dev.nightshift.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import dev.nightshift.agent.eta.PoolEta;
import dev.nightshift.spec.diff.Effect;
import dev.nightshift.spec.diff.PoolAction;
import dev.nightshift.spec.diff.PoolDecision;
import dev.nightshift.spec.diff.Reason;

/**
 * {@code nightshift diff --output markdown}: a pull-request comment. Spec errors and rejected
 * changes come first, in a caution block, since they stop the agent applying the commit; then one
 * short entry per pool that changes (its action, the nodes touched and how, one line per reason);
 * how long the pools take and in which windows; the unchanged pools in one line. It starts with {@link #MARKER}, an HTML comment a CI job finds
 * to update its earlier comment instead of adding one per push.
 */
final class DiffMarkdown {

    /** The first line of every comment. */
    static final String MARKER = "<!-- nightshift-diff -->";

    private DiffMarkdown() {
    }

    static String write(DiffReview review) {
        List<String> lines = new ArrayList<>();
        lines.add(MARKER);
        lines.add("### Nightshift: " + headline(review));
        review.revisions().ifPresent(r -> {
            lines.add("");
            lines.add("Compared " + code(shortCommit(r.from()))
                    + r.mergeBaseWith().map(b -> " (where it branched off " + code(branch(b)) + ")").orElse("")
                    + " → " + code(shortCommit(r.to())) + ".");
        });
        if (!review.errors().isEmpty()) {
            lines.add("");
            lines.add("> [!CAUTION]");
            lines.add("> **The spec is invalid: nothing was compared, and the agent does not apply a commit with errors.**");
            lines.add(">");
            for (SideError e : review.errors()) {
                lines.add("> - " + side(e.side()) + " " + code(e.error().file() + ":" + e.error().line() + ":" + e.error().column())
                        + (e.error().path().isEmpty() ? "" : " " + code(e.error().path())) + ": " + text(e.error().message()));
            }
            return String.join("\n", lines) + "\n";
        }
        List<DiffReview.PoolReview> rejected = review.pools().stream().filter(p -> p.decision().rejected()).toList();
        if (!rejected.isEmpty()) {
            lines.add("");
            lines.add("> [!CAUTION]");
            lines.add("> **" + (rejected.size() == 1 ? "A change is" : rejected.size() + " changes are")
                    + " rejected: the agent refuses this commit, and changes nothing, until "
                    + (rejected.size() == 1 ? "it is" : "they are") + " fixed.**");
            lines.add(">");
            for (DiffReview.PoolReview p : rejected) {
                for (Reason r : p.decision().reasons()) {
                    if (r.effect() == Effect.REJECTED) {
                        lines.add("> - **" + review.name(p) + "**: " + change(r) + (r.message().isEmpty() ? "" : ": " + text(r.message())));
                    }
                }
            }
        }
        List<DiffReview.PoolReview> changed = review.pools().stream()
                .filter(p -> !p.decision().rejected() && p.decision().action() != PoolAction.NONE).toList();
        for (DiffReview.PoolReview p : changed) {
            lines.add("");
            lines.addAll(pool(review, p));
        }
        lines.addAll(eta(review));
        List<String> unchanged = review.pools().stream().filter(p -> p.decision().action() == PoolAction.NONE)
                .map(p -> code(review.name(p))).toList();
        if (!unchanged.isEmpty()) {
            lines.add("");
            lines.add("No change: " + String.join(", ", unchanged) + ".");
        }
        if (changed.stream().anyMatch(p -> p.impact().source() == PoolImpact.Source.SPEC && p.impact().kind() != PoolImpact.Kind.NONE)) {
            lines.add("");
            lines.add("<sub>Node counts are the pools' minimum–maximum from the spec; run with <code>--kubeconfig</code> "
                    + "to count the nodes the change makes outdated in the cluster.</sub>");
        }
        return String.join("\n", lines) + "\n";
    }

    private static String headline(DiffReview review) {
        if (!review.errors().isEmpty()) {
            return "invalid spec";
        }
        long rejected = review.pools().stream().filter(p -> p.decision().rejected()).count();
        long changed = review.pools().stream().filter(p -> !p.decision().rejected() && p.decision().action() != PoolAction.NONE).count();
        List<String> parts = new ArrayList<>();
        if (rejected > 0) {
            parts.add(rejected + " rejected");
        }
        parts.add(changed == 0 ? "no pool changes" : changed + (changed == 1 ? " pool changes" : " pools change"));
        return String.join(", ", parts);
    }

    /**
     * One pool: a heading line (name, action, nodes touched and how), then a bullet per reason.
     * A new per-pool line (such as how long it takes) is one more bullet here.
     */
    private static List<String> pool(DiffReview review, DiffReview.PoolReview p) {
        PoolDecision d = p.decision();
        List<String> lines = new ArrayList<>();
        String what = switch (d.action()) {
            case DELETE -> "removed from the spec; its nodes are left as they are (Nightshift never deletes a removed pool's nodes)";
            case CREATE -> "new pool: " + p.impact().describe();
            case ROLL, IN_PLACE, KUBELET_RESTART, PROPAGATE, NONE, REJECTED -> p.impact().describe();
        };
        lines.add("**" + review.name(p) + "** · " + d.action() + " · " + what);
        if (d.action() != PoolAction.DELETE) {
            for (Reason r : d.reasons()) {
                lines.add("- " + change(r) + " (" + effect(r.effect()) + ")");
            }
        }
        return lines;
    }

    /**
     * How long: one line per pool in the order the pools roll, in the form ({@code web: 4 nodes
     * replaced, ~6m of work, in 2 windows: Sat 02:00–02:02, Sat 03:00–03:02 (UTC)}) and when it is
     * done; the pools the estimate leaves out, named with the reason; then what the estimates
     * assume, folded: what all assume on one line, then one line per pool. Nothing when no change
     * disrupts a node.
     */
    private static List<String> eta(DiffReview review) {
        List<DiffReview.PoolReview> estimated = review.estimatedInRollOrder();
        List<DiffReview.PoolReview> leftOut = review.pools().stream().filter(p -> p.eta().leftOut().isPresent()).toList();
        if (estimated.isEmpty() && leftOut.isEmpty()) {
            return List.of();
        }
        List<String> lines = new ArrayList<>();
        lines.add("");
        lines.add("**ETA** (" + DiffTable.rolls(estimated, leftOut) + "):");
        for (DiffReview.PoolReview p : estimated) {
            PoolEta e = p.eta().eta().orElseThrow();
            lines.add("- " + review.name(p) + ": " + text(e.text(p.eta().zone()))
                    + (e.windows().isEmpty() ? "" : e.completesAt().map(t -> "; done by " + t).orElse("")));
            if (p.eta().fleet()) {
                e.startText(p.eta().zone()).ifPresent(t -> lines.add("  - " + text(t)));
            }
            // Under its ETA, not folded away with the assumptions: a reviewer sees at once that it soaks and may halt.
            p.waves().ifPresent(w -> lines.add("  - in " + text(w)));
        }
        for (DiffReview.PoolReview p : leftOut) {
            lines.add("- " + review.name(p) + ": not estimated: " + text(p.eta().leftOut().orElseThrow()));
        }
        if (!estimated.isEmpty()) {
            lines.add("");
            lines.add("<details><summary>What the estimate assumes</summary>");
            lines.add("");
            // What every estimate assumes once, then each pool's own.
            List<String> shared = new ArrayList<>(estimated.get(0).eta().eta().orElseThrow().assumptions());
            estimated.forEach(p -> shared.retainAll(p.eta().eta().orElseThrow().assumptions()));
            if (estimated.size() > 1 && !shared.isEmpty()) {
                lines.add("- every pool: " + text(String.join("; ", shared)));
            } else {
                shared.clear();
            }
            for (DiffReview.PoolReview p : estimated) {
                List<String> own = p.eta().eta().orElseThrow().assumptions().stream().filter(a -> !shared.contains(a)).toList();
                if (!own.isEmpty()) {
                    lines.add("- " + review.name(p) + ": " + text(String.join("; ", own)));
                }
            }
            lines.add("");
            lines.add("</details>");
        }
        return lines;
    }

    /** {@code `path`: `old` → `new`}. */
    private static String change(Reason r) {
        return code(r.path()) + ": " + value(r.oldValue()) + " → " + value(r.newValue());
    }

    private static String value(String v) {
        return v.isEmpty() ? "(unset)" : code(v);
    }

    private static String effect(Effect e) {
        return switch (e) {
            case REJECTED -> "rejected";
            case ROLL -> "replace";
            case IN_PLACE -> "update in place";
            case KUBELET_RESTART -> "kubelet restart";
            case PROPAGATE -> "labels, taints, annotations";
            case NONE -> "how Nightshift updates";
        };
    }

    private static String side(String side) {
        return side.equals("old") ? "base" : "change";
    }

    /** A ref as people name it: {@code refs/remotes/origin/main} is {@code origin/main}. */
    private static String branch(String ref) {
        return ref.replaceFirst("^refs/(heads|remotes)/", "");
    }

    private static String shortCommit(String commit) {
        return commit.length() > 12 ? commit.substring(0, 12) : commit;
    }

    /** A code span that holds any text: fenced with more backticks than it contains, on one line. */
    static String code(String s) {
        String oneLine = s.replaceAll("\\s*\\R\\s*", " ");
        int longest = 0;
        int run = 0;
        for (char c : oneLine.toCharArray()) {
            run = c == '`' ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        String fence = "`".repeat(longest + 1);
        String pad = oneLine.startsWith("`") || oneLine.endsWith("`") ? " " : "";
        return fence + pad + oneLine + pad + fence;
    }

    /** Free text (a message) that Markdown and HTML must not interpret. */
    static String text(String s) {
        return s.replaceAll("\\s*\\R\\s*", " ").chars().mapToObj(c -> switch (c) {
            case '<' -> "&lt;";
            case '&' -> "&amp;";
            case '*', '_', '`', '[', ']', '\\', '|', '#' -> "\\" + (char) c;
            default -> String.valueOf((char) c);
        }).collect(Collectors.joining());
    }
}
