package dev.nightshift.spec.diff;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.SpecSet;

/**
 * Which commit the agent acts on. An offered commit is accepted unless a change in one of its
 * pools is rejected; each pool is judged against what that pool accepted (so after an interrupted
 * acceptance pools may stand at different commits), a pool that accepted nothing is new, and a
 * pool no longer offered is deleted. The agent keeps what each pool accepted in the pool's record
 * and calls this on every new head; {@code nightshift diff} shows the same decisions.
 */
public final class CommitAcceptance {

    private CommitAcceptance() {
    }

    /**
     * The judgement of one offered commit.
     *
     * @param refusals        why the commit is not applied, one line per rejected change; empty when it is accepted
     * @param forceTokensUsed the force tokens the commit's decisions spend, by pool: recorded so that each works only once
     */
    public record Verdict(List<String> refusals, Map<String, String> forceTokensUsed) {

        public Verdict {
            refusals = List.copyOf(refusals);
            forceTokensUsed = Map.copyOf(forceTokensUsed);
        }

        public boolean accepted() {
            return refusals.isEmpty();
        }
    }

    /**
     * @param accepted what each pool of {@code cluster} accepted, by pool name; empty when nothing was
     * @param history  the pools' in-place updates in flight or failed and their spent force tokens
     */
    public static Verdict judge(String commit, SpecSet offered, String cluster, Map<String, ResolvedPool> accepted,
                                InPlaceHistory history) {
        if (offered.cluster(cluster).isEmpty()) {
            return new Verdict(List.of("commit " + commit + " has no Cluster named " + cluster), Map.of());
        }
        List<String> refusals = new ArrayList<>();
        Map<String, String> tokens = new LinkedHashMap<>();
        SpecDiff diff = new SpecDiff();
        for (ResolvedPool n : offered.resolvedPools(cluster)) {
            ResolvedPool o = accepted.get(n.name());
            if (o == null) {
                continue;
            }
            PoolDecision d = diff.decide(o, n, history.of(cluster, n.name()));
            if (d.rejected()) {
                d.reasons().stream().filter(r -> !r.message().isEmpty())
                        .forEach(r -> refusals.add(d.pool() + ": " + r.path() + " " + r.oldValue() + " -> " + r.newValue() + ": " + r.message()));
            }
            d.forceTokenUsed().ifPresent(t -> tokens.put(d.pool(), t));
        }
        return new Verdict(refusals, tokens);
    }

    /**
     * The commit most pools accepted, the first in name order on a tie: it names what the agent acts
     * on after reading the pools' records, and its cluster gives the maintenance windows.
     *
     * @param commitByPool the commit each pool's record says it accepted
     */
    public static Optional<String> majority(Map<String, String> commitByPool) {
        Map<String, Integer> votes = new TreeMap<>();
        commitByPool.values().forEach(c -> votes.merge(c, 1, Integer::sum));
        return votes.entrySet().stream().max(Map.Entry.<String, Integer>comparingByValue()
                .thenComparing(Map.Entry.comparingByKey(Comparator.reverseOrder()))).map(Map.Entry::getKey);
    }
}
