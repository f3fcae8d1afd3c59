package dev.nightshift.agent.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.nightshift.agent.TestClusters;
import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.MaintenanceState;
import dev.nightshift.strategies.model.ObservedCluster;
import dev.nightshift.strategies.model.ObservedNode;
import dev.nightshift.strategies.plan.Step;

/**
 * The planner repeats a deletion or an in-place start until the informer cache shows its effect;
 * the tracker must count each node's update and drain once all the same (a repeat counted twice
 * made the demo report 11 updates of 10 nodes).
 */
class NodeUpdateTrackerTest {

    private static final Instant T0 = Instant.parse("2026-11-23T10:00:00Z");
    private static final StampedHash OLD = new StampedHash(1, "0".repeat(32));
    private static final DesiredCluster DESIRED = TestClusters.oneWebPool();

    private final NodeUpdateTracker tracker = new NodeUpdateTracker();
    private final DesiredPool web = DESIRED.pools().get(0);

    private ObservedNode drainedOutdated(String name) {
        return ObservedNode.ready(name, "web", T0.minusSeconds(3600)).toBuilder().rollHash(OLD).kubeletHash(web.kubeletHash())
                .cordoned(true).drainStartedAt(T0).drained(true).build();
    }

    private static ObservedCluster observed(ObservedNode... nodes) {
        return new ObservedCluster(List.of(nodes), true, MaintenanceState.OPEN, Map.of());
    }

    private Step.DeleteMachine delete(String node) {
        return new Step.DeleteMachine(node, "web", true, web);
    }

    @Test
    void aDeletionRepeatedBeforeTheCacheShowsItCountsOneRollAndOneDrain() {
        ObservedCluster stillThere = observed(drainedOutdated("web-1"));

        NodeUpdateTracker.Finished first = tracker.track(DESIRED, stillThere, List.of(delete("web-1")), T0.plusSeconds(60));
        NodeUpdateTracker.Finished repeat = tracker.track(DESIRED, stillThere, List.of(delete("web-1")), T0.plusSeconds(62));

        assertThat(first.updates()).extracting(NodeUpdate::node, NodeUpdate::kind, NodeUpdate::succeeded, NodeUpdate::took)
                .containsExactly(tuple("web-1", NodeUpdate.Kind.ROLL, true, Duration.ofSeconds(60)));
        assertThat(first.drains()).extracting(FinishedDrain::node).containsExactly("web-1");
        assertThat(repeat.updates()).isEmpty();
        assertThat(repeat.drains()).isEmpty();
    }

    @Test
    void anInPlaceStartRepeatedCountsOneDrainAndTheNodesNextDrainCountsAgain() {
        ObservedNode draining = drainedOutdated("web-1");
        Step.UpdateInPlace update = new Step.UpdateInPlace("web-1", "web", web);

        assertThat(tracker.track(DESIRED, observed(draining), List.of(update), T0.plusSeconds(30)).drains()).hasSize(1);
        assertThat(tracker.track(DESIRED, observed(draining), List.of(update), T0.plusSeconds(32)).drains()).isEmpty();

        // The update finished and the drain mark was cleared; a later update drains the node again.
        ObservedNode done = draining.toBuilder().rollHash(web.rollHash()).cordoned(false).drainStartedAt(null).build();
        tracker.track(DESIRED, observed(done), List.of(), T0.plusSeconds(120));
        ObservedNode drainedAgain = done.toBuilder().rollHash(OLD).drainStartedAt(T0.plusSeconds(600)).build();
        assertThat(tracker.track(DESIRED, observed(drainedAgain), List.of(update), T0.plusSeconds(640)).drains())
                .extracting(FinishedDrain::took).containsExactly(Duration.ofSeconds(40));
    }

    /**
     * "Outdated" is the planner's: a stamp of a hash version this agent does not know is outdated
     * even when its value equals the desired hash's (the tracker used to compare values only, and
     * counted no roll for the node the planner replaced).
     */
    @Test
    void theDeletionOfANodeStampedWithAnUnknownHashVersionCountsAsARoll() {
        StampedHash unknownVersion = new StampedHash(web.rollHash().version() + 1, web.rollHash().value());
        ObservedNode node = drainedOutdated("web-1").toBuilder().rollHash(unknownVersion).build();

        NodeUpdateTracker.Finished finished = tracker.track(DESIRED, observed(node), List.of(delete("web-1")), T0.plusSeconds(60));

        assertThat(finished.updates()).extracting(NodeUpdate::node, NodeUpdate::kind, NodeUpdate::succeeded)
                .containsExactly(tuple("web-1", NodeUpdate.Kind.ROLL, true));
    }

    /** A machine the provider created at {@code created}, not registered as a node yet. */
    private ObservedNode machine(String name, Instant created) {
        return ObservedNode.ready(name, "web", created).toBuilder().registered(false).readySince(null).createdAt(created)
                .rollHash(web.rollHash()).kubeletHash(web.kubeletHash()).build();
    }

    @Test
    void aMachineCreatedWhileWatchedIsTimedFromItsCreationToItsNodesReady() {
        tracker.track(DESIRED, observed(), List.of(), T0);
        tracker.track(DESIRED, observed(machine("web-new-1", T0.plusSeconds(5))), List.of(), T0.plusSeconds(10));
        // The node registers at +50 (its own creation) and is Ready at +65: 60 s from the machine's creation.
        ObservedNode node = machine("web-new-1", T0.plusSeconds(50)).toBuilder().registered(true).readySince(T0.plusSeconds(65)).build();

        NodeUpdateTracker.Finished finished = tracker.track(DESIRED, observed(node), List.of(), T0.plusSeconds(70));
        NodeUpdateTracker.Finished again = tracker.track(DESIRED, observed(node), List.of(), T0.plusSeconds(72));

        assertThat(finished.creations()).extracting(FinishedCreation::node, FinishedCreation::took)
                .containsExactly(tuple("web-new-1", Duration.ofSeconds(60)));
        assertThat(again.creations()).isEmpty();
    }

    @Test
    void aNodeReadyAgainAfterARebootOrOneCreatedBeforeTheAgentWatchedIsNoCreation() {
        ObservedNode old = ObservedNode.ready("web-1", "web", T0.minusSeconds(3600)).toBuilder().rollHash(web.rollHash()).build();
        ObservedNode notReady = old.toBuilder().readySince(null).build();
        ObservedNode earlier = machine("web-2", T0.minusSeconds(30));
        tracker.track(DESIRED, observed(old, earlier), List.of(), T0);
        tracker.track(DESIRED, observed(notReady, earlier), List.of(), T0.plusSeconds(10));

        NodeUpdateTracker.Finished finished = tracker.track(DESIRED, observed(old.toBuilder().readySince(T0.plusSeconds(20)).build(),
                earlier.toBuilder().registered(true).readySince(T0.plusSeconds(20)).build()), List.of(), T0.plusSeconds(20));

        assertThat(finished.creations()).isEmpty();
    }
}
