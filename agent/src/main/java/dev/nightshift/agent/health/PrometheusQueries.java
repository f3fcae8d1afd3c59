package dev.nightshift.agent.health;

/** Instant queries against Prometheus's HTTP API; a fake in tests. */
@FunctionalInterface
public interface PrometheusQueries {

    /** Never throws: whatever goes wrong is an {@link QueryAnswer.Unknown}. */
    QueryAnswer query(String promql);

    /** No Prometheus configured: every query is unknown, so that a check never passes by default. */
    PrometheusQueries NONE = promql -> new QueryAnswer.Unknown(
            "no Prometheus configured (health.prometheus.url or --prometheus-url)");
}
