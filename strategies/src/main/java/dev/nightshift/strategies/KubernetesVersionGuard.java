package dev.nightshift.strategies;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import dev.nightshift.spec.model.KubernetesVersion;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.plan.Plan;

/**
 * Never rolls nodes to a Kubernetes minor newer than the API server's own (kubelets may not be
 * newer than the control plane): such a pool's steps are dropped, its report kept, and the reason
 * given.
 */
public final class KubernetesVersionGuard {

    private KubernetesVersionGuard() {
    }

    /** A pool held back, and why. */
    public record Held(String pool, String reason) {
    }

    /** The plan with the held pools' steps dropped, and the reasons. */
    public record Guarded(Plan plan, List<Held> held) {

        public Guarded {
            held = List.copyOf(held);
        }

        public List<String> reasons() {
            return held.stream().map(Held::reason).toList();
        }
    }

    /** The pools whose Kubernetes version is a newer minor (or major) than the API server's; none when it is unknown. */
    public static List<Held> held(DesiredCluster desired, Optional<KubernetesVersion> apiServer) {
        if (apiServer.isEmpty()) {
            return List.of();
        }
        KubernetesVersion server = apiServer.get();
        return desired.pools().stream().filter(p -> newerMinor(p.spec().kubernetesVersion(), server))
                .map(p -> new Held(p.name(), reason(p, server))).toList();
    }

    public static Guarded guard(Plan plan, DesiredCluster desired, Optional<KubernetesVersion> apiServer) {
        List<Held> held = held(desired, apiServer);
        Set<String> pools = held.stream().map(Held::pool).collect(Collectors.toSet());
        return new Guarded(pools.isEmpty() ? plan : plan.withoutStepsIn(pools), held);
    }

    static boolean newerMinor(KubernetesVersion wanted, KubernetesVersion server) {
        return wanted.major() > server.major() || (wanted.major() == server.major() && wanted.minor() > server.minor());
    }

    private static String reason(DesiredPool pool, KubernetesVersion server) {
        return pool.name() + ": Kubernetes " + pool.spec().kubernetesVersion() + " is newer than the API server's "
                + server.minorVersion() + "; upgrade the control plane first. Nothing in this pool is changed.";
    }
}
