package dev.nightshift.cli;

import java.util.Optional;

import dev.nightshift.agent.kube.PoolStatusRecords;
import dev.nightshift.spec.load.CanonicalYaml;
import dev.nightshift.spec.model.ClusterSpec;
import dev.nightshift.spec.model.ResolvedPool;
import io.fabric8.kubernetes.api.model.ConfigMap;

/**
 * A pool that the agent holds where a rollback brought it, because the spec given to {@code nightshift plan}
 * offers the revision the pool refused ({@code onFailure: Rollback}) again: the agent acts on the spec its record
 * accepted, so {@code plan} plans that, and says why in the agent's words, so that the user reverts or fixes in Git.
 *
 * @param message       "held at 1a2b3c4, 9f8e7d6 refused: canary failed error-rate (0.07, must be <= 0.01) in wave 1"
 * @param refusedCommit the commit of the refused revision
 * @param actedOn       the spec the agent acts on instead: the one the pool was rolled back to
 */
record HeldPool(String message, String refusedCommit, ResolvedPool actedOn) {

    /**
     * The hold, if the pool's record refuses what {@code offered} (in {@code cluster}) offers, by the agent's own rule
     * ({@link PoolStatusRecords.Refused#offeredAgain}); empty without a record, a refusal, or a readable accepted spec
     * (the agent then does not hold the pool either).
     */
    static Optional<HeldPool> of(Optional<ConfigMap> record, ClusterSpec cluster, ResolvedPool offered) {
        if (record.isEmpty()) {
            return Optional.empty();
        }
        Optional<PoolStatusRecords.Refused> refused = PoolStatusRecords.refused(record.get());
        Optional<PoolStatusRecords.Accepted> accepted = PoolStatusRecords.accepted(record.get());
        if (refused.isEmpty() || accepted.isEmpty()
                || !refused.get().offeredAgain(CanonicalYaml.cluster(cluster), CanonicalYaml.pool(offered.pool()))) {
            return Optional.empty();
        }
        return PlanView.read(accepted.get()).filter(p -> p.name().equals(offered.name()))
                .map(p -> new HeldPool(refused.get().held(accepted.get().commit()), refused.get().commit(), p));
    }
}
