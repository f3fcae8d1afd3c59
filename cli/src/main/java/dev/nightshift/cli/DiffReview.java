package dev.nightshift.cli;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import dev.nightshift.agent.eta.PoolEstimate;
import dev.nightshift.spec.diff.PoolDecision;

/**
 * What {@code nightshift diff} compared and found, as its three writers ({@link DiffTable},
 * {@link DiffJson}, {@link DiffMarkdown}) print it: one {@link PoolReview} per pool, and the load
 * errors of either side (then no pool was compared).
 *
 * @param revisions what was compared, when two commits of a repository were
 */
record DiffReview(Optional<Revisions> revisions, List<PoolReview> pools, List<SideError> errors) {

    DiffReview {
        pools = List.copyOf(pools);
        errors = List.copyOf(errors);
    }

    /** The pools with an estimate, in the order they roll (each starts when the one before finishes). */
    List<PoolReview> estimatedInRollOrder() {
        return pools.stream().filter(p -> p.eta().eta().isPresent())
                .sorted(java.util.Comparator.comparing((PoolReview p) -> p.eta().eta().get().startsAt())
                        .thenComparing(p -> p.eta().eta().get().completesAt().orElse(Instant.MAX)))
                .toList();
    }

    boolean anyRejected() {
        return pools.stream().anyMatch(p -> p.decision().rejected());
    }

    /** Pools then need their cluster's name beside their own to be told apart. */
    boolean severalClusters() {
        return pools.stream().map(p -> p.decision().cluster()).distinct().count() > 1;
    }

    String name(PoolReview pool) {
        return severalClusters() ? pool.decision().cluster() + "/" + pool.decision().pool() : pool.decision().pool();
    }

    /**
     * One pool: its decision and the nodes that decision touches. Everything a writer shows for a
     * pool is here, so a new per-pool figure is one more component and one more line per writer.
     *
     * @param waves how the new side rolls the pool when in waves ({@link WavesLine}); empty for the default canary
     */
    record PoolReview(PoolDecision decision, PoolImpact impact, PoolEstimate eta, Optional<String> waves) {

        /** A pool without an estimate (its change disrupts no node, or nothing was estimated). */
        PoolReview(PoolDecision decision, PoolImpact impact) {
            this(decision, impact, PoolEstimate.NONE);
        }

        /** A pool rolled as today's canary. */
        PoolReview(PoolDecision decision, PoolImpact impact, PoolEstimate eta) {
            this(decision, impact, eta, Optional.empty());
        }
    }

    /**
     * The two commits compared.
     *
     * @param repository    the path or URL as given
     * @param from          the commit of the old side
     * @param to            the commit of the new side
     * @param mergeBaseWith when {@code from} was not given: the default branch's ref, whose merge-base with {@code to} it is
     */
    record Revisions(String repository, String from, String to, Optional<String> mergeBaseWith) {
    }
}
