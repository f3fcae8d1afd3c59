package dev.nightshift.agent.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.model.HealthCheck;
import dev.nightshift.strategies.model.HealthVerdict;

/** One pool's checks judged together: failing wins over unknown, unknown over passing; bounds are inclusive. */
class HealthChecksTest {

    private static final Instant NOW = Instant.parse("2026-11-27T12:00:00Z");
    private static final HealthCheck.Prometheus ERRORS = new HealthCheck.Prometheus("error-rate", "errors", Optional.empty(),
            Optional.of(new BigDecimal("0.01")));
    private static final HealthCheck.Prometheus LATENCY = new HealthCheck.Prometheus("latency", "latency", Optional.of(BigDecimal.ONE),
            Optional.of(new BigDecimal("2")));
    private static final HealthCheck.WorkloadsAvailable BACK = new HealthCheck.WorkloadsAvailable("back", Duration.ofMinutes(5));

    private static HealthChecks checks(Map<String, QueryAnswer> answers) {
        return new HealthChecks(q -> answers.getOrDefault(q, new QueryAnswer.Unknown("no data")), WorkloadsCheck.NONE);
    }

    @Test
    void valuesWithinTheirBoundsPass() {
        HealthVerdict v = checks(Map.of("errors", new QueryAnswer.Value(0.01), "latency", new QueryAnswer.Value(1.0)))
                .judge("web", List.of(ERRORS, LATENCY), NOW);

        assertThat(v).isEqualTo(HealthVerdict.PASSING);
    }

    @Test
    void aValueAboveMaxFailsWithValueAndThreshold() {
        HealthVerdict v = checks(Map.of("errors", new QueryAnswer.Value(0.0712345678), "latency", new QueryAnswer.Value(1.5)))
                .judge("web", List.of(ERRORS, LATENCY), NOW);

        assertThat(v).isEqualTo(new HealthVerdict.Failing("error-rate", "0.0712346", "<= 0.01"));
    }

    @Test
    void aValueBelowMinFails() {
        HealthVerdict v = checks(Map.of("errors", new QueryAnswer.Value(0), "latency", new QueryAnswer.Value(0.5)))
                .judge("web", List.of(ERRORS, LATENCY), NOW);

        assertThat(v).isEqualTo(new HealthVerdict.Failing("latency", "0.5", ">= 1"));
    }

    @Test
    void aFailingCheckWinsOverAnUnknownOneBeforeIt() {
        HealthVerdict v = checks(Map.of("latency", new QueryAnswer.Value(5))).judge("web", List.of(ERRORS, LATENCY), NOW);

        assertThat(v).isEqualTo(new HealthVerdict.Failing("latency", "5", "<= 2"));
    }

    @Test
    void anUnknownCheckMakesThePoolUnknownNeverPassing() {
        HealthVerdict v = checks(Map.of("latency", new QueryAnswer.Value(1.5))).judge("web", List.of(ERRORS, LATENCY), NOW);

        assertThat(v).isEqualTo(new HealthVerdict.Unknown("error-rate", "no data"));
    }

    @Test
    void withoutPrometheusEveryPrometheusCheckIsUnknown() {
        HealthVerdict v = new HealthChecks(PrometheusQueries.NONE, WorkloadsCheck.NONE).judge("web", List.of(ERRORS), NOW);

        assertThat(v).isInstanceOf(HealthVerdict.Unknown.class);
        assertThat(((HealthVerdict.Unknown) v).why()).contains("no Prometheus configured");
    }

    @Test
    void untrackedWorkloadsAreUnknown() {
        HealthVerdict v = checks(Map.of()).judge("web", List.of(BACK), NOW);

        assertThat(v).isEqualTo(new HealthVerdict.Unknown("back", "evicted workloads are not tracked by this agent"));
    }

    /** A pool with the workloads check whose record holds a rollout to {@code target}; what {@code atRest} was told, in order. */
    private static List<String> forgottenAfterAVerdict(java.util.function.Function<dev.nightshift.strategies.model.DesiredPool, String> target) {
        dev.nightshift.strategies.model.DesiredCluster desired = dev.nightshift.agent.TestClusters.clusterWith(
                dev.nightshift.agent.TestClusters.pool("web", dev.nightshift.agent.TestClusters.WEB + """
                        rollout:
                          healthChecks: [{name: back, workloadsAvailable: {within: 5s}}]
                        """));
        dev.nightshift.strategies.model.PoolStatus status = dev.nightshift.strategies.model.PoolStatus.NEW.withRollout(Optional.of(
                new dev.nightshift.strategies.model.RolloutProgress(target.apply(desired.pools().get(0)), 3, 0, Optional.empty(),
                        Optional.empty(), java.util.Set.of(), 1, Optional.of(new dev.nightshift.strategies.model.RolloutProgress.Halt(
                                "back", "shop/Deployment/web 4/6 available after 5s", "available within 5s", 1, NOW)))));
        List<String> forgotten = new java.util.ArrayList<>();
        WorkloadsCheck workloads = new WorkloadsCheck() {
            @Override
            public HealthVerdict judge(String pool, HealthCheck.WorkloadsAvailable check, Instant now) {
                forgotten.add("judged " + pool);
                return HealthVerdict.PASSING;
            }

            @Override
            public void atRest(String pool) {
                forgotten.add("forgot " + pool);
            }
        };
        new HealthChecks(q -> new QueryAnswer.Unknown("no data"), workloads).verdicts(desired, new dev.nightshift.strategies.model.ObservedCluster(
                List.of(), true, dev.nightshift.strategies.model.MaintenanceState.OPEN, Map.of("web", status)), NOW);
        return forgotten;
    }

    @Test
    void aRolloutToANewTargetForgetsTheWorkloadsTheHaltedRolloutBeforeItEvictedThenJudges() {
        assertThat(forgottenAfterAVerdict(p -> "1:" + "0".repeat(32))).containsExactly("forgot web", "judged web");
    }

    @Test
    void theSameRolloutKeepsFollowingItsEvictedWorkloads() {
        assertThat(forgottenAfterAVerdict(p -> p.rollHash().toString())).containsExactly("judged web");
    }
}
