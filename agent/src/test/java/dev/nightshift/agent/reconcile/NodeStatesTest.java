package dev.nightshift.agent.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;

import dev.nightshift.agent.TestClusters;
import dev.nightshift.agent.reconcile.NodeStates.NodeState;
import dev.nightshift.agent.reconcile.NodeStates.State;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolReport;

class NodeStatesTest {

    private static final Instant T = Instant.parse("2026-11-27T10:00:00Z");
    private static final DesiredPool WEB = TestClusters.oneWebPool().pools().get(0);
    private static final StampedHash OLD = new StampedHash(WEB.rollHash().version(), "0ld");

    private static ObservedNode node(String name, UnaryOperator<ObservedNode.Builder> change) {
        ObservedNode.Builder b = ObservedNode.ready(name, "web", T).toBuilder().rollHash(WEB.rollHash()).kubeletHash(WEB.kubeletHash());
        return change.apply(b).build();
    }

    private static PoolReport report(List<PoolReport.NodeHealth> unhealthy, List<PoolReport.NodeHealth> failed) {
        return new PoolReport("web", PoolPhase.UPDATING, PendingAction.ROLL, 9, 1, 8, 2, 1, 1, 0, true, "", List.of(), List.of(),
                List.of(), PoolStatus.NEW, unhealthy, failed);
    }

    @Test
    void eachNodeIsInTheFirstStateThatAppliesSortedByName() {
        List<ObservedNode> nodes = List.of(
                node("i-current", b -> b),
                node("h-outdated", b -> b.rollHash(OLD)),
                node("g-cordoned", b -> b.rollHash(OLD).cordoned(true)),
                node("f-draining", b -> b.rollHash(OLD).cordoned(true).drainStartedAt(T)),
                node("e-in-place", b -> b.rollHash(OLD).inPlaceStartedAt(T)),
                node("d-joining", b -> b.registered(false).readySince(null)),
                node("c-unhealthy", b -> b.rollHash(OLD).cordoned(true).drainStartedAt(T)),
                node("b-update-failed", b -> b.inPlaceFailed(true).cordoned(true)),
                node("a-failed", b -> b.rollHash(OLD)));
        PoolReport report = report(List.of(new PoolReport.NodeHealth("c-unhealthy", "DiskPressure", T)),
                List.of(new PoolReport.NodeHealth("a-failed", "Ready", T)));

        assertThat(NodeStates.of(WEB, nodes, report)).containsExactly(
                new NodeState("a-failed", State.FAILED),
                new NodeState("b-update-failed", State.FAILED),
                new NodeState("c-unhealthy", State.UNHEALTHY),
                new NodeState("d-joining", State.UPDATING),
                new NodeState("e-in-place", State.UPDATING),
                new NodeState("f-draining", State.DRAINING),
                new NodeState("g-cordoned", State.CORDONED),
                new NodeState("h-outdated", State.OUTDATED),
                new NodeState("i-current", State.CURRENT));
        assertThat(State.DRAINING.label()).isEqualTo("draining");
    }

    @Test
    void aKubeletAtAnOldHashIsOutdatedAndOneRestartingIsUpdating() {
        StampedHash oldKubelet = new StampedHash(WEB.kubeletHash().version(), "0ld");

        assertThat(NodeStates.of(WEB, List.of(node("a", b -> b.kubeletHash(oldKubelet)),
                node("b", b -> b.kubeletHash(oldKubelet).kubeletRestartAt(T))), report(List.of(), List.of())))
                .extracting(NodeState::state).containsExactly(State.OUTDATED, State.UPDATING);
    }
}
