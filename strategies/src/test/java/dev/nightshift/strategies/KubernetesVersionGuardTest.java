package dev.nightshift.strategies;

import static dev.nightshift.strategies.Fixtures.T0;
import static dev.nightshift.strategies.Fixtures.cluster;
import static dev.nightshift.strategies.Fixtures.observed;
import static dev.nightshift.strategies.Fixtures.outdated;
import static dev.nightshift.strategies.Fixtures.pool;
import static dev.nightshift.strategies.Fixtures.validated;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.model.KubernetesVersion;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.plan.Plan;

/** Kubelets never newer than the control plane: a pool asking for a newer minor than the API server's is held. */
class KubernetesVersionGuardTest {

    /** batch takes the cluster's 1.31.4; web stays at 1.30.2. */
    private static final DesiredCluster PINNED_WEB = cluster(
            pool("web", "maxSurge: 1\nmaxUnavailable: 0\nkubernetes: {version: \"1.30.2\"}"),
            pool("batch", "maxSurge: 1\nmaxUnavailable: 0"));

    private static Optional<KubernetesVersion> server(String version) {
        return Optional.of(KubernetesVersion.of(version));
    }

    @Test
    void aPoolAskingForANewerMinorThanTheServersIsHeldWithTheReason() {
        assertThat(KubernetesVersionGuard.held(PINNED_WEB, server("1.30.9"))).singleElement().satisfies(h -> {
            assertThat(h.pool()).isEqualTo("batch");
            assertThat(h.reason()).isEqualTo("batch: Kubernetes 1.31.4 is newer than the API server's 1.30; upgrade the control"
                    + " plane first. Nothing in this pool is changed.");
        });
    }

    @Test
    void aNewerPatchOfTheServersMinorIsNotHeld() {
        assertThat(KubernetesVersionGuard.held(PINNED_WEB, server("1.31.0"))).isEmpty();
    }

    @Test
    void aNewerMajorIsHeld() {
        assertThat(KubernetesVersionGuard.held(PINNED_WEB, server("0.40.0"))).hasSize(2);
    }

    @Test
    void withTheServersVersionUnknownNothingIsHeld() {
        assertThat(KubernetesVersionGuard.held(PINNED_WEB, Optional.empty())).isEmpty();
    }

    @Test
    void aHeldPoolLosesItsStepsAndKeepsItsReport() {
        Plan plan = new RolloutPlanner().plan(PINNED_WEB, observed(List.of(outdated(PINNED_WEB, "web", "ip-1"),
                outdated(PINNED_WEB, "batch", "ip-2")), MaintenanceState.OPEN, Map.of("web", validated(), "batch", validated())), T0);

        KubernetesVersionGuard.Guarded guarded = KubernetesVersionGuard.guard(plan, PINNED_WEB, server("1.30.9"));

        assertThat(plan.pool("batch").orElseThrow().steps()).isNotEmpty();
        assertThat(guarded.plan().pool("batch").orElseThrow().steps()).isEmpty();
        assertThat(guarded.plan().report("batch")).isEqualTo(plan.report("batch"));
        assertThat(guarded.plan().pool("web")).isEqualTo(plan.pool("web"));
        assertThat(guarded.reasons()).singleElement().asString().startsWith("batch: ");
    }
}
