package dev.nightshift.agent.reconcile;

import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import dev.nightshift.spec.model.PoolRole;
import dev.nightshift.spec.model.ResolvedPool;

/**
 * Which of the cluster's pools this agent (or {@code nightshift rolling-update}) acts on: {@code pools: {include, roles}} in
 * the configuration, {@code --instance-group} and {@code --instance-group-roles} on the command. A pool is managed when
 * it is named in {@code include} (or {@code include} is empty) and its role is in {@code roles} (or {@code roles} is
 * empty), so that a team can run one agent per role. The others are planned for nothing and reported as "not managed
 * here": another agent, or nobody, acts on them.
 *
 * @param include pool names; empty: every pool
 * @param roles   pool roles; empty: every role
 */
public record ManagedPools(Set<String> include, Set<PoolRole> roles) {

    public static final ManagedPools ALL = new ManagedPools(Set.of(), Set.of());

    public ManagedPools {
        include = Set.copyOf(include);
        roles = Set.copyOf(roles);
    }

    /** Whether the agent acts on this pool. */
    public boolean manages(ResolvedPool pool) {
        return (include.isEmpty() || include.contains(pool.name())) && (roles.isEmpty() || roles.contains(pool.pool().role()));
    }

    /** Whether some pools may be left out. */
    public boolean restricted() {
        return !include.isEmpty() || !roles.isEmpty();
    }

    /** Why a pool is left out, for {@code /status} and logs. */
    public String why(ResolvedPool pool) {
        if (!include.isEmpty() && !include.contains(pool.name())) {
            return "not managed here: pools.include is " + new TreeSet<>(include);
        }
        return "not managed here: its role " + pool.pool().role() + " is not in pools.roles " + new TreeSet<>(roles.stream()
                .map(PoolRole::toString).toList());
    }

    /**
     * A role as the spec writes it ({@code bastion}, {@code control-plane}, {@code apiserver}, {@code node}) or as kops names
     * instance group roles ({@code Bastion}, {@code Master}/{@code ControlPlane}, {@code APIServer}, {@code Node}), any case.
     */
    public static Optional<PoolRole> role(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT).replace("_", "-");
        return switch (t) {
            case "bastion" -> Optional.of(PoolRole.BASTION);
            case "control-plane", "controlplane", "master" -> Optional.of(PoolRole.CONTROL_PLANE);
            case "apiserver" -> Optional.of(PoolRole.APISERVER);
            case "node" -> Optional.of(PoolRole.NODE);
            default -> Optional.empty();
        };
    }

    /** The roles {@link #role} reads, for error messages. */
    public static final String ROLES = "bastion, control-plane (kops: master), apiserver, node";
}
