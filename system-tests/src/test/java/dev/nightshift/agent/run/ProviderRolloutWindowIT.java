package dev.nightshift.agent.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.nightshift.agent.run.RolloutInvariants.Limits;
import dev.nightshift.agent.run.RolloutInvariants.Start;
import dev.nightshift.sandbox.embedded.RecordedRequest;

/**
 * A maintenance window closing mid-rollout, with each machine provider ({@link ProviderRolloutScenario}): nothing
 * starts between the windows, and the next window finishes the rollout. (Apart from {@code ProviderRolloutDrainIT} so
 * that the suite's test JVMs share the two.)
 */
class ProviderRolloutWindowIT extends ProviderRolloutScenario {

    @ParameterizedTest
    @EnumSource(RolloutBackend.class)
    void aWindowClosingMidRolloutStartsNoNodeUntilTheNextWindowWhichFinishesIt(RolloutBackend backend) throws Exception {
        Limits limits = new Limits(NODES, 1, 0);
        java.time.Instant tonight = java.time.Instant.now().plus(Duration.ofHours(12)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        // Machines come 3 s after they are asked for: one node takes a little longer, so a 4 s window ends mid-rollout.
        Start start = adopted(backend, pool("1631.0.0", 1, 0), clusterWithWindows(tonight, tonight.plus(Duration.ofHours(1))),
                Duration.ofSeconds(3));
        java.time.Instant open1 = java.time.Instant.now().plus(Duration.ofSeconds(4)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        java.time.Instant close1 = open1.plus(Duration.ofSeconds(4));
        java.time.Instant open2 = close1.plus(Duration.ofSeconds(8));
        h.work.write("cluster.yaml", clusterWithWindows(open1, close1, open2, open2.plus(Duration.ofSeconds(60))));
        push(pool("1632.0.0", 1, 0), "image bump, a short window now and another a little later");

        rolledOutWithin(limits, start);

        // When each old node was first disrupted: its surge machine asked for, or it cordoned.
        List<RecordedRequest> log = h.kube.requests();
        java.util.Map<String, java.time.Instant> first = new java.util.TreeMap<>(surgeAsked(log, start));
        Set<String> old = names(start.nodes());
        log.stream().filter(SeenRequests::isCordon).forEach(r -> {
            String node = r.resourcePath().substring("/api/v1/nodes/".length());
            if (old.contains(node)) {
                first.merge(node, r.time(), (a, b) -> a.isBefore(b) ? a : b);
            }
        });
        // A reconcile that read the clock just before the close may send its steps just after it.
        java.time.Instant decided = close1.plus(Duration.ofMillis(1500));
        String writes = RolloutInvariants.writes(log);
        assertThat(first).as("every old node disrupted").hasSize(NODES);
        assertThat(first.values()).as("nothing started before the first window, nor between the windows: %s%s", first, writes)
                .allMatch(t -> (!t.isBefore(open1) && t.isBefore(decided)) || !t.isBefore(open2));
        assertThat(first.values()).as("the first window closed mid-rollout: %s", first)
                .anyMatch(t -> t.isBefore(close1)).anyMatch(t -> !t.isBefore(open2));
    }
}
