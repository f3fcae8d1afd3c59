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
}
