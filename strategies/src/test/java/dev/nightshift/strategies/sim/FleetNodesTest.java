package dev.nightshift.strategies.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.nightshift.strategies.model.ObservedNode;

class FleetNodesTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    private static ObservedNode node(String name, String pool) {
        return ObservedNode.ready(name, pool, T0);
    }

    private static List<String> names(List<ObservedNode> nodes) {
        return nodes.stream().map(ObservedNode::name).toList();
    }

    @Test
    void theObservationIsEveryMachineInNameOrderAfterEachChange() {
        FleetNodes nodes = new FleetNodes();
        nodes.put(node("b-1", "b"));
        nodes.put(node("a-2", "a"));
        nodes.put(node("a-1", "a"));
        assertThat(names(nodes.observed())).containsExactly("a-1", "a-2", "b-1");

        nodes.put(node("a-new-1", "a"));
        nodes.remove("a-1");
        assertThat(names(nodes.observed())).containsExactly("a-2", "a-new-1", "b-1");
        assertThat(names(nodes.ofPool("a"))).containsExactly("a-2", "a-new-1");
    }

    @Test
    void machinesOfPoolsWhoseNamesInterleaveAreObservedInNameOrderToo() {
        FleetNodes nodes = new FleetNodes();
        // Pool "a"'s machine "a-z" sorts after pool "a-b"'s "a-b-1": the pools' lists one after the other are not in order.
        nodes.put(node("a-z", "a"));
        nodes.put(node("a-b-1", "a-b"));
        nodes.put(node("a-a", "a"));

        assertThat(names(nodes.observed())).containsExactly("a-a", "a-b-1", "a-z");
    }

    @Test
    void aStandInIsKnownUntilItsMachineIsGone() {
        FleetNodes nodes = new FleetNodes();
        nodes.put(node("a-1", "a"));
        ObservedNode surge = node("a-new-1", "a").toBuilder().surgeFor("a-1").build();
        nodes.put(surge);
        assertThat(nodes.hasStandIn("a-1")).isTrue();

        nodes.put(surge.toBuilder().registered(true).build());
        assertThat(nodes.hasStandIn("a-1")).as("replaced by a changed copy: still one").isTrue();
        nodes.remove("a-new-1");
        assertThat(nodes.hasStandIn("a-1")).isFalse();
    }
}
