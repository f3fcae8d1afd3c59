package dev.nightshift.strategies;

import static dev.nightshift.strategies.Fixtures.OLD;
import static dev.nightshift.strategies.Fixtures.T0;
import static dev.nightshift.strategies.Fixtures.cluster;
import static dev.nightshift.strategies.Fixtures.current;
import static dev.nightshift.strategies.Fixtures.desired;
import static dev.nightshift.strategies.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.hash.StampedHash;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.DesiredPool;
import dev.nightshift.strategies.model.ObservedNode;

/** What "outdated" means, defined once on the desired pool for the planner, the simulator and the agent's metrics. */
class OutdatedTest {

    private static final DesiredCluster WEB = cluster(pool("web", "maxSurge: 1\nmaxUnavailable: 0"));
    private static final DesiredPool DESIRED = desired(WEB, "web");

    @Test
    void aNodeAtTheDesiredHashesIsCurrent() {
        ObservedNode node = current(WEB, "web", "ip-1");

        assertThat(DESIRED.outdated(node)).isFalse();
        assertThat(DESIRED.kubeletOutdated(node)).isFalse();
    }

    @Test
    void anotherRollHashIsOutdated() {
        assertThat(DESIRED.outdated(current(WEB, "web", "ip-1").toBuilder().rollHash(OLD).build())).isTrue();
    }

    @Test
    void aNeedsUpdateMarkIsOutdatedAtTheDesiredHash() {
        ObservedNode marked = current(WEB, "web", "ip-1").toBuilder().needsUpdate(true).build();

        assertThat(DESIRED.outdated(marked)).isTrue();
        assertThat(DESIRED.hashOutdated(marked)).isFalse();
    }

    @Test
    void anUnstampedNodeIsAdoptedNotOutdated() {
        assertThat(DESIRED.outdated(ObservedNode.ready("ip-1", "web", T0))).isFalse();
    }

    @Test
    void aStampOfAHashVersionThisNightshiftDoesNotKnowIsOutdatedEvenWithTheSameValue() {
        StampedHash unknownVersion = new StampedHash(DESIRED.rollHash().version() + 1, DESIRED.rollHash().value());

        assertThat(DESIRED.outdated(current(WEB, "web", "ip-1").toBuilder().rollHash(unknownVersion).build())).isTrue();
    }

    @Test
    void onlyAnotherKubeletHashIsAKubeletRestartNotARoll() {
        ObservedNode node = current(WEB, "web", "ip-1").toBuilder().kubeletHash(OLD).build();

        assertThat(DESIRED.outdated(node)).isFalse();
        assertThat(DESIRED.kubeletOutdated(node)).isTrue();
    }

    @Test
    void anOutdatedNodeIsNotAlsoKubeletOutdated() {
        assertThat(DESIRED.kubeletOutdated(current(WEB, "web", "ip-1").toBuilder().rollHash(OLD).kubeletHash(OLD).build())).isFalse();
    }
}
