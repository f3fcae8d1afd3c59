package dev.nightshift.agent.eta;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.agent.TestClusters;
import dev.nightshift.agent.window.Window;
import dev.nightshift.spec.diff.PoolAction;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.plan.PendingAction;

class RolloutEtaTest {

    /** Saturday 7 March 2026, 02:00 UTC: the hour's window opens. */
    private static final Instant SAT_0200 = Instant.parse("2026-03-07T02:00:00Z");

    /** Observed in the pool: machines take 60 s from creation to Ready, drains 30 s. */
    private static final PoolDurations SIXTY_AND_THIRTY = PoolDurations.NONE
            .with(PoolDurations.Kind.CREATE, Duration.ofSeconds(60)).with(PoolDurations.Kind.DRAIN, Duration.ofSeconds(30));

    private static final String CLUSTER_WITH_TWO_MINUTES_EVERY_HOUR = """
            apiVersion: nightshift.dev/v1alpha1
            kind: Cluster
            metadata: {name: c}
            spec:
              kubernetes: {version: "1.31.4"}
              maintenance:
                windows: [{schedule: "0 0 * * * ?", duration: 2m, timeZone: UTC}]
            """;

    private static String pool(String name, String extra) {
        return """
                ---
                apiVersion: nightshift.dev/v1alpha1
                kind: WorkerPool
                metadata: {name: %s, cluster: c}
                spec:
                  minimum: 1
                  maximum: 10
                  machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}
                %s""".formatted(name, extra.indent(2));
    }

    private static final String ONE_AT_A_TIME = "maxSurge: 0\nmaxUnavailable: 1\n";

    @Test
    void fourNodesInATwoMinuteWindowEveryHourFinishInTheSecondWindow() {
        DesiredCluster desired = TestClusters.load(CLUSTER_WITH_TWO_MINUTES_EVERY_HOUR + pool("web", ONE_AT_A_TIME));

        RolloutEta.Estimate estimate = new RolloutEta().estimate(desired, List.of(new PoolWork("web", 4, PendingAction.ROLL)),
                Map.of("web", SIXTY_AND_THIRTY), SAT_0200);

        PoolEta web = estimate.pool("web").orElseThrow();
        // maxSurge 0, maxUnavailable 1: one node at a time, drained (30 s), deleted, its replacement
        // created and Ready 60 s later; the next node starts then. 90 s a node, 4 × 90 = 360 s of work.
        assertThat(web.workSeconds()).isEqualTo(360);
        // Window 1, 02:00:00–02:02:00: node 1 drains at +0 (Ready +90), node 2 at +90, still inside;
        // its replacement, created at +120 as the window closes, is in flight and Ready at +180.
        // Nothing new starts until window 2, 03:00:00–03:02:00: node 3 drains at +3600 (Ready +3690),
        // node 4 at +3690, still inside, Ready at +3780 = 03:03:00.
        assertThat(web.completesAt()).contains(Instant.parse("2026-03-07T03:03:00Z"));
        assertThat(web.windows()).extracting(Window::open, Window::close).containsExactly(
                org.assertj.core.groups.Tuple.tuple(Instant.parse("2026-03-07T02:00:00Z"), Optional.of(Instant.parse("2026-03-07T02:02:00Z"))),
                org.assertj.core.groups.Tuple.tuple(Instant.parse("2026-03-07T03:00:00Z"), Optional.of(Instant.parse("2026-03-07T03:02:00Z"))));
        assertThat(web.text(estimate.zone())).isEqualTo("4 nodes replaced, ~6m of work, in 2 windows: Sat 02:00–02:02, Sat 03:00–03:02 (UTC)");
        assertThat(web.assumptions()).contains("machine creation 1m (median of 1 observed)", "drain 30s (median of 1 observed)");
    }

    @Test
    void wavesAndSoaksAreWaitedForAndSaid() {
        String alwaysOpen = CLUSTER_WITH_TWO_MINUTES_EVERY_HOUR.replace("  maintenance:\n    windows: [{schedule: \"0 0 * * * ?\", duration: 2m, timeZone: UTC}]\n", "");
        DesiredCluster plain = TestClusters.load(alwaysOpen + pool("web", ONE_AT_A_TIME + "interval: 0s\n"));
        DesiredCluster soaked = TestClusters.load(alwaysOpen + pool("web", ONE_AT_A_TIME + "interval: 0s\n"
                + "rollout: {waves: [1, \"50%\", \"100%\"], soak: 10m}\n"));
        List<PoolWork> work = List.of(new PoolWork("web", 4, PendingAction.ROLL));

        PoolEta a = new RolloutEta().estimate(plain, work, Map.of("web", SIXTY_AND_THIRTY), SAT_0200).pool("web").orElseThrow();
        PoolEta b = new RolloutEta().estimate(soaked, work, Map.of("web", SIXTY_AND_THIRTY), SAT_0200).pool("web").orElseThrow();

        // 4 nodes, one at a time, 90 s each; waves of 1, 2 and 4 nodes: two soaks of 10 minutes between them.
        assertThat(a.workSeconds()).isEqualTo(360);
        assertThat(b.workSeconds()).isEqualTo(360 + 2 * 600);
        assertThat(b.assumptions()).contains("in 3 waves, 2 soaks of 10m");
        assertThat(a.assumptions()).noneMatch(x -> x.contains("waves"));
    }

    @Test
    void workStopsWhenTheWindowClosesAndResumesInTheNextOne() {
        DesiredCluster desired = TestClusters.load(CLUSTER_WITH_TWO_MINUTES_EVERY_HOUR + pool("web", ONE_AT_A_TIME));
        // Starting at 02:01, one minute of window is left: node 1 drains at 02:01:00 and its
        // replacement is created at 02:01:30 (in flight when the window closes at 02:02, Ready at
        // 02:02:30). Window 2 takes nodes 2 and 3 (03:00:00–03:01:30, 03:01:30–03:03:00: node 3's
        // drain starts at 03:01:30, before the close); window 3 node 4, 04:00:00–04:01:30.
        Instant start = Instant.parse("2026-03-07T02:01:00Z");

        PoolEta web = new RolloutEta().estimate(desired, List.of(new PoolWork("web", 4, PendingAction.ROLL)),
                Map.of("web", SIXTY_AND_THIRTY), start).pool("web").orElseThrow();

        assertThat(web.completesAt()).contains(Instant.parse("2026-03-07T04:01:30Z"));
        assertThat(web.windows()).extracting(Window::open).containsExactly(Instant.parse("2026-03-07T02:00:00Z"),
                Instant.parse("2026-03-07T03:00:00Z"), Instant.parse("2026-03-07T04:00:00Z"));
        assertThat(web.workSeconds()).isEqualTo(360);
    }

    @Test
    void poolsRollOneAtATimeInRoleOrderEachStartingWhenTheOneBeforeFinishes() {
        DesiredCluster desired = TestClusters.load("""
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: c}
                spec:
                  kubernetes: {version: "1.31.4"}
                """ + pool("app", ONE_AT_A_TIME) + pool("cp", "role: control-plane\nmaxUnavailable: 1\n"));
        Map<String, PoolDurations> history = Map.of("app", SIXTY_AND_THIRTY, "cp", SIXTY_AND_THIRTY);

        // Given in name order; control planes roll before nodes whatever the order given.
        RolloutEta.Estimate estimate = new RolloutEta().estimate(desired,
                List.of(new PoolWork("app", 2, PendingAction.ROLL), new PoolWork("cp", 2, PendingAction.ROLL)), history, SAT_0200);

        // No window: cp's two nodes take 2 × 90 s, to 02:03:00; app starts then and takes as long, to 02:06:00.
        assertThat(estimate.pools()).extracting(PoolEta::pool).containsExactly("cp", "app");
        PoolEta cp = estimate.pool("cp").orElseThrow();
        PoolEta app = estimate.pool("app").orElseThrow();
        assertThat(cp.startsAt()).isEqualTo(SAT_0200);
        assertThat(cp.completesAt()).contains(Instant.parse("2026-03-07T02:03:00Z"));
        assertThat(app.startsAt()).isEqualTo(Instant.parse("2026-03-07T02:03:00Z"));
        assertThat(app.completesAt()).contains(Instant.parse("2026-03-07T02:06:00Z"));
        assertThat(app.assumptions()).contains("starts when cp finishes (pools roll one at a time, in role order)");
        assertThat(app.windows()).isEmpty();
        assertThat(app.text(estimate.zone())).isEqualTo("2 nodes replaced, ~3m of work, done by Sat 2026-03-07 02:06 (UTC)");
    }

    @Test
    void aPoolRollsOnlyWhenTheOneBeforeHasFinishedEvenInsideAWindow() {
        DesiredCluster desired = TestClusters.load(CLUSTER_WITH_TWO_MINUTES_EVERY_HOUR + pool("app", ONE_AT_A_TIME)
                + pool("cp", "role: control-plane\nmaxUnavailable: 1\n"));
        Map<String, PoolDurations> history = Map.of("app", SIXTY_AND_THIRTY, "cp", SIXTY_AND_THIRTY);

        RolloutEta.Estimate estimate = new RolloutEta().estimate(desired,
                List.of(new PoolWork("app", 1, PendingAction.ROLL), new PoolWork("cp", 2, PendingAction.ROLL)), history, SAT_0200);

        // cp: node 1 02:00:00–02:01:30, node 2 drains at 02:01:30 (inside), Ready 02:03:00, after the
        // close. app's turn comes at 02:03:00, outside a window: it waits for 03:00 and is done at 03:01:30.
        assertThat(estimate.pool("cp").orElseThrow().completesAt()).contains(Instant.parse("2026-03-07T02:03:00Z"));
        PoolEta app = estimate.pool("app").orElseThrow();
        assertThat(app.completesAt()).contains(Instant.parse("2026-03-07T03:01:30Z"));
        assertThat(app.windows()).extracting(Window::open).containsExactly(Instant.parse("2026-03-07T03:00:00Z"));
    }

    @Test
    void reportOnlyAndManualPoolsAreLeftOutAndNamed() {
        DesiredCluster desired = TestClusters.load(CLUSTER_WITH_TWO_MINUTES_EVERY_HOUR + pool("web", ONE_AT_A_TIME)
                + pool("manual", "updateStrategy: ManualInPlaceUpdate\n") + pool("watched", "drainAndTerminate: false\n"));

        RolloutEta.Estimate estimate = new RolloutEta().estimate(desired, List.of(new PoolWork("manual", 3, PendingAction.IN_PLACE),
                new PoolWork("watched", 2, PendingAction.ROLL), new PoolWork("web", 1, PendingAction.ROLL)), Map.of(), SAT_0200);

        assertThat(estimate.pools()).extracting(PoolEta::pool).containsExactly("web");
        assertThat(estimate.leftOut()).extracting(RolloutEta.LeftOut::pool, RolloutEta.LeftOut::reason).containsExactlyInAnyOrder(
                org.assertj.core.groups.Tuple.tuple("manual", "ManualInPlaceUpdate: nodes wait for a person to select them"),
                org.assertj.core.groups.Tuple.tuple("watched", "drainAndTerminate is false: outdated nodes are reported only"));
        // Nothing observed in web: the defaults are used, and said so.
        assertThat(estimate.pool("web").orElseThrow().assumptions()).contains(
                "machine creation 2m (default: none observed in this pool yet)", "drain 30s (default: none observed in this pool yet)");
    }

    @Test
    void aDiffActionBecomesWorkOnlyWhenItDisruptsNodes() {
        assertThat(PoolWork.of("web", 3, PoolAction.ROLL)).contains(new PoolWork("web", 3, PendingAction.ROLL));
        assertThat(PoolWork.of("web", 3, PoolAction.KUBELET_RESTART)).contains(new PoolWork("web", 3, PendingAction.KUBELET_RESTART));
        assertThat(PoolWork.of("web", 3, PoolAction.PROPAGATE)).isEmpty();
    }

    @Test
    void aDefaultCreationNotShorterThanThePoolsCreationTimeoutIsCappedAtHalfOfIt() {
        // The demo's pools: machines come up in seconds, so creationTimeout is 30 s. The default 2 minutes would make
        // every simulated machine fail its creationTimeout and the rollout never finish (and cost the horizon's CPU).
        DesiredCluster desired = TestClusters.load("""
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: c}
                spec:
                  kubernetes: {version: "1.31.4"}
                """ + pool("web", ONE_AT_A_TIME + "machineControllerManager: {creationTimeout: 30s}\n"));

        PoolEta web = new RolloutEta().estimate(desired, List.of(new PoolWork("web", 2, PendingAction.ROLL)), Map.of(), SAT_0200)
                .pool("web").orElseThrow();

        // One node at a time: drain 30 s (default) + creation 15 s (half the timeout) = 45 s a node, 90 s for two.
        assertThat(web.workSeconds()).isEqualTo(90);
        assertThat(web.completesAt()).contains(SAT_0200.plusSeconds(90));
        assertThat(web.assumptions()).contains(
                "machine creation 15s (none observed in this pool yet: the default 2m capped at half the pool's creationTimeout of 30s)");
    }

    @Test
    void anObservedCreationNotShorterThanThePoolsCreationTimeoutNeverFinishesAndSaysWhy() {
        DesiredCluster desired = TestClusters.load(CLUSTER_WITH_TWO_MINUTES_EVERY_HOUR
                + pool("web", ONE_AT_A_TIME + "machineControllerManager: {creationTimeout: 30s}\n"));

        PoolEta web = new RolloutEta().estimate(desired, List.of(new PoolWork("web", 2, PendingAction.ROLL)),
                Map.of("web", SIXTY_AND_THIRTY), SAT_0200).pool("web").orElseThrow();

        assertThat(web.completesAt()).isEmpty();
        assertThat(web.assumptions()).contains("not finished: machine creation 1m (median of 1 observed) is not shorter than the pool's"
                + " creationTimeout of 30s, so every attempt would count as failed");
    }
}
