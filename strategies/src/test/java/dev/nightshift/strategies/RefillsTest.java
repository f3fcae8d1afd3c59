package dev.nightshift.strategies;

import static dev.nightshift.strategies.Fixtures.T0;
import static dev.nightshift.strategies.Fixtures.current;
import static dev.nightshift.strategies.Fixtures.observed;
import static dev.nightshift.strategies.Fixtures.outdated;
import static dev.nightshift.strategies.Fixtures.validated;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.strategies.guard.DisruptionGuard;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.Step;

/**
 * A pool that lost machines behind Nightshift's back is brought back to its minimum where the backend does not do it
 * itself; nothing new is disrupted meanwhile, and the guard holds the pool to its minimum's promises.
 */
class RefillsTest {

    private static DesiredCluster cluster(int minimum, String limits, boolean refills) {
        String yaml = Fixtures.CLUSTER + """
                ---
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: web, cluster: c}
                spec:
                  minimum: %d
                  maximum: %d
                  interval: 0s
                  %s
                  machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                """.formatted(minimum, minimum + 3, limits);
        LoadResult loaded = new SpecLoader().load(Map.of("spec.yaml", yaml.getBytes(StandardCharsets.UTF_8)));
        assertThat(loaded.errors()).isEmpty();
        DesiredCluster plain = DesiredCluster.of(loaded.specs(), "c", 1);
        return new DesiredCluster(plain.cluster(), plain.pools(), 1, refills);
    }

    private static List<ObservedNode> nodes(DesiredCluster desired, int current, int outdated) {
        List<ObservedNode> nodes = new ArrayList<>();
        for (int i = 1; i <= current; i++) {
            nodes.add(current(desired, "web", "web-c" + i));
        }
        for (int i = 1; i <= outdated; i++) {
            nodes.add(outdated(desired, "web", "web-o" + i));
        }
        return nodes;
    }

    private static Plan plan(DesiredCluster desired, List<ObservedNode> nodes, PoolStatus status) {
        return new RolloutPlanner().plan(desired, observed(nodes, MaintenanceState.OPEN, Map.of("web", status)), T0);
    }

    private static List<Step.CreateMachine> creates(Plan plan) {
        return plan.steps().stream().filter(Step.CreateMachine.class::isInstance).map(Step.CreateMachine.class::cast).toList();
    }

    @Test
    void aPoolTwoMachinesShortOfItsMinimumIsAskedForTwoMachinesStandingInForNoOne() {
        DesiredCluster desired = cluster(5, "maxSurge: 0\n  maxUnavailable: 1", true);

        Plan plan = plan(desired, nodes(desired, 3, 0), validated());

        assertThat(creates(plan)).hasSize(2).allSatisfy(c -> assertThat(c.surgeFor()).isEmpty());
    }

    @Test
    void withoutRefillingABackendThatKeepsPoolSizesIsLeftToDoIt() {
        DesiredCluster desired = cluster(5, "maxSurge: 0\n  maxUnavailable: 1", false);

        assertThat(creates(plan(desired, nodes(desired, 3, 0), validated()))).isEmpty();
    }

    @Test
    void aPoolAtItsMinimumOrAboveIsNotRefilled() {
        DesiredCluster desired = cluster(3, "maxSurge: 0\n  maxUnavailable: 1", true);

        assertThat(creates(plan(desired, nodes(desired, 3, 0), validated()))).isEmpty();
        assertThat(creates(plan(desired, nodes(desired, 5, 0), validated()))).isEmpty();
    }

    @Test
    void aMachineAskedForAndNotRegisteredYetCountsSoARefillIsNeverAskedForTwice() {
        DesiredCluster desired = cluster(3, "maxSurge: 0\n  maxUnavailable: 1", true);
        List<ObservedNode> nodes = nodes(desired, 2, 0);
        nodes.add(current(desired, "web", "web-new").toBuilder().registered(false).readySince(null).createdAt(T0.minusSeconds(5))
                .build());

        assertThat(creates(plan(desired, nodes, validated()))).isEmpty();
    }

    @Test
    void whileAPoolIsShortNoOutdatedNodeIsDisruptedAndOnceRefilledTheRolloutGoesOn() {
        DesiredCluster desired = cluster(4, "maxSurge: 0\n  maxUnavailable: 1", true);

        Plan shortPlan = plan(desired, nodes(desired, 0, 3), validated());
        assertThat(shortPlan.steps()).noneMatch(s -> s instanceof Step.Drain || s instanceof Step.Cordon);
        assertThat(creates(shortPlan)).hasSize(1);

        Plan refilled = plan(desired, nodes(desired, 0, 4), validated());
        assertThat(refilled.steps()).anyMatch(s -> s instanceof Step.Drain);
    }

    @Test
    void aPausedPoolIsNotRefilled() {
        DesiredCluster desired = cluster(5, "maxSurge: 0\n  maxUnavailable: 1", true);

        assertThat(creates(plan(desired, nodes(desired, 3, 0), validated().withPaused(true)))).isEmpty();
    }

    @Test
    void theGuardHoldsARefilledPoolToItsMinimumNotToWhatIsLeft() {
        // Three of five machines left, maxSurge 0: the refill fits under minimum + maxSurge; a drain would leave 2 < 5 - 1.
        DesiredCluster desired = cluster(5, "maxSurge: 0\n  maxUnavailable: 1", true);
        ObservedCluster observed = observed(nodes(desired, 0, 3), MaintenanceState.OPEN, Map.of("web", validated()));
        DisruptionGuard guard = new DisruptionGuard(desired, observed, Set.of());
        Step.CreateMachine refill = new Step.CreateMachine("web-refill-1", "web", "", desired.pools().get(0));

        assertThat(guard.admit(refill)).isEmpty();
        assertThat(guard.admit(new Step.Drain("web-o1", "web"))).hasValueSatisfying(r -> {
            assertThat(r.reason()).isEqualTo(DisruptionGuard.Reason.UNAVAILABLE);
            assertThat(r.detail()).contains("for a count of 5");
        });
        // The same pool where the backend refills it itself: the guard judges the pool as it is.
        DesiredCluster kept = cluster(5, "maxSurge: 0\n  maxUnavailable: 1", false);
        assertThat(new DisruptionGuard(kept, observed(nodes(kept, 0, 3), MaintenanceState.OPEN, Map.of("web", validated())),
                Set.of()).admit(new Step.CreateMachine("web-refill-1", "web", "", kept.pools().get(0)))).isPresent();
    }
}
