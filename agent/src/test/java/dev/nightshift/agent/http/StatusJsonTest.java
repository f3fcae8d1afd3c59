package dev.nightshift.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.TestClusters;
import dev.nightshift.agent.eta.PoolDurations;
import dev.nightshift.agent.eta.RolloutEta;
import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.agent.reconcile.StepRefusal;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.strategies.model.DesiredCluster;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolPlan;
import dev.nightshift.strategies.plan.PoolReport;

class StatusJsonTest {

    private static final StatusJson.Leadership ALONE = new StatusJson.Leadership(false, true, "agent", Optional.empty());
    private static final WindowState OPEN = new WindowState(true, true, Optional.empty(), Optional.empty(), Optional.empty(), true);

    private static JsonNode status(Optional<String> accepted, Optional<ReconcileReport> report) throws Exception {
        return new ObjectMapper().readTree(StatusJson.write(accepted, accepted, List.of(), report, Optional.empty(), ALONE));
    }

    private static ReconcileReport planned(String revision) {
        return ReconcileReport.planned(Instant.parse("2026-11-23T20:00:00Z"), revision, OPEN, new Plan(List.of(), Optional.empty()));
    }

    @Test
    void theRevisionIsTheOneThePoolsShownWerePlannedForWhileANewerCommitIsBeingTaken() throws Exception {
        // A commit accepted by the reconcile still running has no pools reported yet: showing it beside
        // the pools of the reconcile before would say "every pool is current at the new commit".
        assertThat(status(Optional.of("new"), Optional.of(planned("old"))).path("revision").asText()).isEqualTo("old");
    }

    @Test
    void beforeAnyReconcileReportsTheAcceptedCommitIsShown() throws Exception {
        assertThat(status(Optional.of("accepted"), Optional.empty()).path("revision").asText()).isEqualTo("accepted");
    }

    @Test
    void aFailedReconcilePlannedNothingSoTheAcceptedCommitIsShown() throws Exception {
        ReconcileReport failed = ReconcileReport.failed(Instant.parse("2026-11-23T20:00:00Z"), "", List.of(), Duration.ZERO, "boom");

        assertThat(status(Optional.of("accepted"), Optional.of(failed)).path("revision").asText()).isEqualTo("accepted");
    }

    @Test
    void eachPoolListsTheStepsTheGuardsRefusedWithTheNumbers() throws Exception {
        Plan plan = new Plan(List.of(new PoolPlan("web", List.of(), report("web", PoolPhase.UPDATING, 1, 8)),
                new PoolPlan("db", List.of(), report("db", PoolPhase.CURRENT, 3, 0))), Optional.empty());
        ReconcileReport report = ReconcileReport.planned(Instant.parse("2026-11-23T20:00:00Z"), "abc", OPEN, plan)
                .withRefusals(List.of(new StepRefusal("web", "Drain", "web-4", "unavailable",
                        "web has 8 available nodes for a count of 9 and maxUnavailable 1: disrupting web-4 would leave 7 < 8")));

        JsonNode pools = status(Optional.of("abc"), Optional.of(report)).path("pools");

        assertThat(pools.get(1).path("pool").asText()).isEqualTo("web");
        assertThat(pools.get(1).path("refusedSteps").toString()).isEqualTo("[{\"step\":\"Drain\",\"node\":\"web-4\",\"reason\":"
                + "\"unavailable\",\"detail\":\"web has 8 available nodes for a count of 9 and maxUnavailable 1: disrupting web-4"
                + " would leave 7 < 8\"}]");
        assertThat(pools.get(0).path("refusedSteps").size()).isZero();
    }

    @Test
    void aPoolWhoseProviderFailedHasItsOwnLastErrorAndTheOthersNone() throws Exception {
        Plan plan = new Plan(List.of(new PoolPlan("web", List.of(), report("web", PoolPhase.UPDATING, 1, 2)),
                new PoolPlan("db", List.of(), report("db", PoolPhase.CURRENT, 3, 0))), Optional.empty());
        ReconcileReport report = ReconcileReport.planned(Instant.parse("2026-11-23T20:00:00Z"), "abc", OPEN, plan)
                .withProviderFailures(Map.of("web", "MachineApiException: the machine API answered 503"));

        JsonNode status = status(Optional.of("abc"), Optional.of(report));

        assertThat(status.path("pools").get(1).path("lastError").asText()).isEqualTo("MachineApiException: the machine API answered 503");
        assertThat(status.path("pools").get(0).path("lastError").isNull()).isTrue();
        assertThat(status.path("lastError").isNull()).as("the agent's own error: none").isTrue();
    }

    @Test
    void aHaltedPoolSaysWhyAndWhereItsWavesStand() throws Exception {
        Instant at = Instant.parse("2026-11-27T12:00:00Z");
        dev.nightshift.strategies.model.RolloutProgress.Halt halt = new dev.nightshift.strategies.model.RolloutProgress.Halt(
                "error-rate", "0.07", "<= 0.01", 1, at);
        PoolStatus halted = PoolStatus.NEW.withRollout(Optional.of(new dev.nightshift.strategies.model.RolloutProgress("1:abc", 3, 0,
                Optional.of(at.minusSeconds(5)), Optional.empty(), java.util.Set.of(), 1, Optional.of(halt))));
        PoolReport web = new PoolReport("web", PoolPhase.HALTED, PendingAction.ROLL, 3, 1, 2, 0, 0, 1, 0, true, "", List.of(), List.of(),
                List.of(), halted);
        Plan plan = new Plan(List.of(new PoolPlan("web", List.of(), web), new PoolPlan("db", List.of(), report("db", PoolPhase.CURRENT, 3, 0))),
                Optional.empty());

        JsonNode pools = status(Optional.of("abc"), Optional.of(ReconcileReport.planned(at, "abc", OPEN, plan))).path("pools");

        JsonNode h = pools.get(1).path("healthFailure");
        assertThat(pools.get(1).path("phase").asText()).isEqualTo("HALTED");
        assertThat(h.path("check").asText()).isEqualTo("error-rate");
        assertThat(h.path("value").asText()).isEqualTo("0.07");
        assertThat(h.path("threshold").asText()).isEqualTo("<= 0.01");
        assertThat(h.path("wave").asInt()).isEqualTo(1);
        assertThat(h.path("at").asText()).isEqualTo("2026-11-27T12:00:00Z");
        assertThat(pools.get(1).path("waves").path("wave").asInt()).isEqualTo(1);
        assertThat(pools.get(1).path("waves").path("soakStartedAt").asText()).isEqualTo("2026-11-27T11:59:55Z");
        assertThat(pools.get(0).path("healthFailure").isNull()).as("a pool at rest").isTrue();
        assertThat(pools.get(0).path("waves").isNull()).isTrue();
    }

    @Test
    void aPoolWaitingInTheFleetSaysForWhatAndAPoolThatWaitsForNothingSaysNull() throws Exception {
        Instant at = Instant.parse("2026-11-27T12:00:00Z");
        PoolReport web = report("web", PoolPhase.WAITING_FOR_TURN, 0, 3).withWaitingFor(Optional.of(new dev.nightshift.strategies.fleet.FleetWait(
                dev.nightshift.strategies.fleet.FleetWait.Reason.AFTER, Optional.of("db"), "after pool db (UPDATING): it must be current and healthy first")));
        Plan plan = new Plan(List.of(new PoolPlan("db", List.of(), report("db", PoolPhase.UPDATING, 1, 2)), new PoolPlan("web", List.of(), web)),
                Optional.empty());

        JsonNode pools = status(Optional.of("abc"), Optional.of(ReconcileReport.planned(at, "abc", OPEN, plan))).path("pools");

        JsonNode waiting = pools.get(1).path("waitingFor");
        assertThat(waiting.path("reason").asText()).isEqualTo("after");
        assertThat(waiting.path("pool").asText()).isEqualTo("db");
        assertThat(waiting.path("detail").asText()).isEqualTo("after pool db (UPDATING): it must be current and healthy first");
        assertThat(pools.get(0).path("waitingFor").isNull()).isTrue();
    }

    private static PoolReport report(String pool, PoolPhase phase, int current, int outdated) {
        return new PoolReport(pool, phase, outdated == 0 ? PendingAction.NONE : PendingAction.ROLL, current + outdated, current, outdated,
                0, 0, 1, 0, true, "", List.of(), List.of(), List.of(), PoolStatus.NEW);
    }

    @Test
    void aPoolWithOutdatedNodesHasItsEtaAndACurrentOneNone() throws Exception {
        DesiredCluster desired = TestClusters.oneWebPool();
        Instant at = Instant.parse("2026-11-23T20:00:00Z");
        Plan plan = new Plan(List.of(new PoolPlan("web", List.of(), report("web", PoolPhase.UPDATING, 1, 2))), Optional.empty());
        RolloutEta.Estimate estimate = new RolloutEta().remaining(desired, plan, Map.of("web", PoolDurations.NONE
                .with(PoolDurations.Kind.CREATE, Duration.ofSeconds(60)).with(PoolDurations.Kind.DRAIN, Duration.ofSeconds(30))), at);
        ReconcileReport report = ReconcileReport.planned(at, "abc", OPEN, plan).withEstimate(estimate);

        JsonNode web = status(Optional.of("abc"), Optional.of(report)).path("pools").get(0);

        // Two nodes left, one at a time (a pool of 3: maxSurge 1, maxUnavailable 0): each takes
        // creation 60 s + drain 30 s, and the next starts the default interval (15 s) after a deletion:
        // 90 + 15 + 90 = 195 s, no window to wait for.
        assertThat(web.path("eta").path("workSeconds").asLong()).isEqualTo(195);
        assertThat(web.path("eta").path("completesAt").asText()).isEqualTo("2026-11-23T20:03:15Z");
        assertThat(web.path("eta").path("windows")).isEmpty();
        assertThat(web.path("eta").path("assumptions").toString()).contains("machine creation 1m (median of 1 observed)");

        Plan current = new Plan(List.of(new PoolPlan("web", List.of(), report("web", PoolPhase.CURRENT, 3, 0))), Optional.empty());
        ReconcileReport done = ReconcileReport.planned(at, "abc", OPEN, current)
                .withEstimate(new RolloutEta().remaining(desired, current, Map.of(), at));
        assertThat(status(Optional.of("abc"), Optional.of(done)).path("pools").get(0).path("eta").isNull()).isTrue();
    }

    @Test
    void aPausedPoolHasNoEtaAndSaysWhy() throws Exception {
        DesiredCluster desired = TestClusters.oneWebPool();
        Instant at = Instant.parse("2026-11-23T20:00:00Z");
        Plan plan = new Plan(List.of(new PoolPlan("web", List.of(), report("web", PoolPhase.PAUSED, 1, 2))), Optional.empty());
        ReconcileReport report = ReconcileReport.planned(at, "abc", OPEN, plan).withEstimate(new RolloutEta().remaining(desired, plan, Map.of(), at));

        JsonNode web = status(Optional.of("abc"), Optional.of(report)).path("pools").get(0);

        assertThat(web.path("eta").isNull()).isTrue();
        assertThat(web.path("etaLeftOut").asText()).isEqualTo("the rollout is paused");
    }
}
