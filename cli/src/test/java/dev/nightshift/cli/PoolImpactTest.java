package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.diff.PoolAction;
import dev.nightshift.spec.diff.PoolDecision;
import dev.nightshift.spec.diff.SpecDiff;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.ResolvedPool;
import dev.nightshift.spec.model.SpecSet;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedNode;

/** Which nodes a change touches: the planner's definition of outdated, applied to the new spec. */
class PoolImpactTest {

    private static final SpecSet OLD = new SpecLoader().load(Path.of("../examples/multi")).specs();
    private static final SpecSet NEW = new SpecLoader().load(Path.of("../examples/multi-next")).specs();

    private static ResolvedPool pool(SpecSet specs, String name) {
        return specs.resolvedPools("demo").stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    }

    private static PoolDecision decision(String name) {
        return new SpecDiff().diff(OLD, NEW).pools().stream().filter(d -> d.pool().equals(name)).findFirst().orElseThrow();
    }

    /** A node stamped with the hashes of {@code runs}. */
    private static ObservedNode node(String name, ResolvedPool runs) {
        DesiredPool d = DesiredPool.of(runs);
        return ObservedNode.ready(name, runs.name(), Instant.EPOCH).toBuilder().rollHash(d.rollHash()).kubeletHash(d.kubeletHash()).build();
    }

    @Test
    void aRollCountsTheNodesStampedWithAnotherSpecAndNotThoseAtTheNewOneOrUnstamped() {
        ResolvedPool before = pool(OLD, "cpu-worker");
        ResolvedPool after = pool(NEW, "cpu-worker");
        List<ObservedNode> nodes = List.of(node("a", before), node("b", before), node("c", after),
                ObservedNode.ready("unstamped", "cpu-worker", Instant.EPOCH));

        PoolImpact impact = PoolImpact.fromCluster(decision("cpu-worker"), after, nodes);

        assertThat(impact).isEqualTo(new PoolImpact(2, Optional.empty(), PoolImpact.Kind.REPLACED, PoolImpact.Source.CLUSTER, Optional.of(4)));
        assertThat(impact.describe()).isEqualTo("2 nodes replaced (of 4 in the cluster)");
    }

    @Test
    void aKubeletChangeCountsTheNodesWhoseKubeletHashDiffers() {
        ResolvedPool after = pool(NEW, "batch");
        PoolImpact impact = PoolImpact.fromCluster(decision("batch"), after, List.of(node("a", pool(OLD, "batch")), node("b", after)));

        assertThat(impact.kind()).isEqualTo(PoolImpact.Kind.KUBELET_RESTARTED);
        assertThat(impact.nodes()).isEqualTo(1);
        assertThat(impact.describe()).isEqualTo("kubelet restarted on 1 node (of 2 in the cluster)");
    }

    @Test
    void aChangeOfLabelsOnlyTouchesEveryNodeOfThePool() {
        ResolvedPool before = pool(OLD, "cpu-worker");
        PoolDecision labelsOnly = new PoolDecision("demo", "cpu-worker", PoolAction.PROPAGATE, Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), List.of(), Optional.empty());

        PoolImpact impact = PoolImpact.fromCluster(labelsOnly, before, List.of(node("a", before), node("b", before)));

        assertThat(impact.nodes()).isEqualTo(2);
        assertThat(impact.kind().jsonName()).isEqualTo("labels_only");
    }

    @Test
    void withoutAClusterTheCountIsTheNewSpecsMinimumToMaximum() {
        PoolImpact impact = PoolImpact.fromSpec(decision("batch"), Optional.of(pool(NEW, "batch")));

        assertThat(impact.nodes()).isEqualTo(12);
        assertThat(impact.nodesMin()).contains(2);
        assertThat(impact.source()).isEqualTo(PoolImpact.Source.SPEC);
        assertThat(impact.describe()).isEqualTo("kubelet restarted on 2–12 nodes (the spec's minimum–maximum)");
    }

    @Test
    void aNewPoolIsCountedFromTheSpecEvenWithACluster() {
        ResolvedPool created = pool(NEW, "cpu-worker");
        PoolDecision create = new PoolDecision("demo", "cpu-worker", PoolAction.CREATE, Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), List.of(), Optional.empty());

        PoolImpact impact = PoolImpact.fromCluster(create, created, List.of());

        assertThat(impact).isEqualTo(new PoolImpact(6, Optional.of(3), PoolImpact.Kind.CREATED, PoolImpact.Source.SPEC, Optional.empty()));
    }

    @Test
    void rejectedUnchangedAndDeletedPoolsTouchNoNode() {
        for (PoolAction action : List.of(PoolAction.REJECTED, PoolAction.NONE, PoolAction.DELETE)) {
            PoolDecision d = new PoolDecision("demo", "cpu-worker", action, Optional.empty(), Optional.empty(), Optional.empty(),
                    Optional.empty(), List.of(), Optional.empty());
            ResolvedPool before = pool(OLD, "cpu-worker");

            assertThat(PoolImpact.fromCluster(d, pool(NEW, "cpu-worker"), List.of(node("a", before))).nodes()).as(action.name()).isZero();
            assertThat(PoolImpact.fromSpec(d, Optional.of(pool(NEW, "cpu-worker"))).kind()).as(action.name()).isEqualTo(PoolImpact.Kind.NONE);
        }
    }
}
