package dev.nightshift.spec.diff;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import dev.nightshift.spec.model.ResolvedPool;

/**
 * What a pool's nodes are being brought to, and why: the answer to "why did pool X roll?" that the
 * agent keeps in the pool's record, shows in {@code /status} and {@code nightshift plan}, and writes
 * into the Events of the nodes it disrupts.
 *
 * <p>The reasons are the decision between the spec at which the pool was last <em>fully current</em>
 * (every node ran it) and the target, not between the last two commits: after A → B → C, with C
 * pushed while B rolled out, a node still on A shows A → C, which is what happens to it.
 *
 * @param revision the commit that introduced the target
 * @param action   what the target does to the pool's nodes ({@link PoolAction#CREATE} for a pool first seen)
 * @param reasons  every changed field between the last fully-current spec and the target
 */
public record PoolTarget(String revision, PoolAction action, List<Reason> reasons) {

    public PoolTarget {
        reasons = List.copyOf(reasons);
    }

    /**
     * The target after {@code commit} is accepted with {@code offered} for a pool.
     *
     * @param previous  the pool's target so far; empty for a pool that has none (new, or an older agent's record)
     * @param baseline  the spec at which the pool was last fully current; empty when it never was (new pool)
     * @param current   the pool is fully current at {@code baseline} now: nothing of an earlier target is left to do
     * @param history   the pool's in-place updates in flight or failed, as {@link CommitAcceptance} judges them
     */
    public static PoolTarget next(Optional<PoolTarget> previous, Optional<ResolvedPool> baseline, boolean current, String commit,
                                  ResolvedPool offered, InPlaceHistory.Entry history) {
        if (baseline.isEmpty()) {
            // Never fully current: the pool is (still) being created; the commit that created it stays the target.
            return previous.filter(p -> p.action() == PoolAction.CREATE).orElse(new PoolTarget(commit, PoolAction.CREATE, List.of()));
        }
        PoolDecision d = new SpecDiff().decide(baseline.get(), offered, history);
        if (previous.isPresent() && previous.get().action() == d.action() && previous.get().reasons().equals(d.reasons())) {
            // The commit changed nothing for this pool (it changed another, or only text): the target stands.
            return previous.get();
        }
        if (previous.isPresent() && current && d.action() == PoolAction.NONE) {
            // Nothing for the nodes to do: a current pool keeps the target it last carried out.
            return previous.get();
        }
        return new PoolTarget(commit, d.action(), d.reasons());
    }

    /** The commit's short hash, as Git shows it. */
    public String shortRevision() {
        return revision.length() > 7 ? revision.substring(0, 7) : revision;
    }

    /**
     * The reasons in one line, e.g. {@code spec.machine.image.version 1631.0.0 → 1632.0.0}: those that
     * act on the nodes, or all of them when none does; at most {@code limit} listed, the rest counted.
     */
    public String summary(int limit) {
        List<Reason> acting = reasons.stream().filter(r -> r.effect() != Effect.NONE).toList();
        List<Reason> shown = acting.isEmpty() ? reasons : acting;
        if (shown.isEmpty()) {
            return action == PoolAction.CREATE ? "new pool" : "no change";
        }
        String line = shown.stream().limit(limit).map(PoolTarget::line).collect(Collectors.joining("; "));
        return shown.size() > limit ? line + " (and " + (shown.size() - limit) + " more)" : line;
    }

    private static String line(Reason r) {
        return r.path() + " " + (r.oldValue().isEmpty() ? "(unset)" : r.oldValue()) + " → " + (r.newValue().isEmpty() ? "(unset)" : r.newValue());
    }
}
