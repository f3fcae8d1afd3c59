package dev.nightshift.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.nightshift.agent.git.PollResult;
import dev.nightshift.agent.kube.StepExecutor;
import dev.nightshift.agent.reconcile.FinishedDrain;
import dev.nightshift.agent.reconcile.NodeUpdate;
import dev.nightshift.agent.reconcile.ReconcileReport;
import dev.nightshift.agent.reconcile.StepRefusal;
import dev.nightshift.agent.window.Window;
import dev.nightshift.agent.window.WindowState;
import dev.nightshift.strategies.model.PoolStatus;
import dev.nightshift.strategies.plan.PendingAction;
import dev.nightshift.strategies.plan.Plan;
import dev.nightshift.strategies.plan.PoolPlan;
import dev.nightshift.strategies.plan.PoolPhase;
import dev.nightshift.strategies.plan.PoolReport;
import dev.nightshift.strategies.plan.Step;

class AgentMetricsTest {

    private static final Instant T0 = Instant.parse("2026-11-21T01:30:00Z");
    private final AgentMetrics metrics = new AgentMetrics("1.2.3");

    /** As the agent alone, or the leader: the replica whose reports feed the pool series. */
    @BeforeEach
    void lead() {
        metrics.leading(true);
    }

    @AfterEach
    void close() {
        metrics.close();
    }

    private String scrape() {
        return metrics.scrape("text/plain").body();
    }

    private static PoolReport pool(String name, PoolPhase phase, PendingAction action, int current, int outdated, int updating,
                                   boolean progressing) {
        return new PoolReport(name, phase, action, current + outdated, current, outdated, updating, 0, 1, 0, progressing,
                progressing ? "" : "ProgressDeadlineExceeded", List.of(), List.of(), List.of(), PoolStatus.NEW);
    }

    private static ReconcileReport report(List<PoolReport> pools, Map<String, Integer> overdue, List<NodeUpdate> updates,
                                          List<FinishedDrain> drains, List<StepExecutor.Outcome> outcomes) {
        Window window = new Window(T0.minusSeconds(1800), T0.plusSeconds(1800), List.of("windows[0]"));
        Window next = new Window(T0.plusSeconds(86400 - 1800), T0.plusSeconds(86400 + 1800), List.of("windows[0]"));
        WindowState state = new WindowState(false, true, Optional.empty(), Optional.of(window), Optional.of(next), true);
        Plan plan = new Plan(pools.stream().map(p -> new PoolPlan(p.pool(), List.of(), p)).toList(), Optional.empty());
        return ReconcileReport.planned(T0, "abc123", state, plan).withOutcomes(outcomes).withOverdue(overdue).withFinished(updates, drains)
                .withTook(Duration.ofMillis(40));
    }

    @Test
    void eachRefusedStepCountsByPoolAndReason() {
        ReconcileReport refusing = report(List.of(pool("web", PoolPhase.UPDATING, PendingAction.ROLL, 1, 2, 1, true)), Map.of(),
                List.of(), List.of(), List.of()).withRefusals(List.of(
                new StepRefusal("web", "Drain", "web-2", "unavailable", "web has 2 available nodes"),
                new StepRefusal("web", "Drain", "web-3", "unavailable", "web has 2 available nodes"),
                new StepRefusal("web", "Repair", "web-4", "api_server_not_ready", "not repairing web-4")));

        metrics.reconciled(refusing);
        metrics.reconciled(refusing);

        assertThat(scrape()).contains("nightshift_steps_refused_total{pool=\"web\",reason=\"unavailable\"} 4.0")
                .contains("nightshift_steps_refused_total{pool=\"web\",reason=\"api_server_not_ready\"} 2.0");
    }

    @Test
    void namesFollowPrometheusConventionsWithBaseUnitsAndSuffixes() {
        metrics.polled(PollResult.NEW_SPEC, Duration.ofMillis(120), T0);
        metrics.reconciled(report(List.of(pool("web", PoolPhase.UPDATING, PendingAction.ROLL, 1, 2, 1, true)), Map.of(),
                List.of(new NodeUpdate("web", "web-1", NodeUpdate.Kind.ROLL, true, Duration.ofSeconds(42))),
                List.of(new FinishedDrain("web", "web-1", Duration.ofSeconds(7))), List.of()));

        String text = scrape();

        assertThat(text).contains(
                "nightshift_build_info{version=\"1.2.3\"} 1",
                "nightshift_git_polls_total{result=\"new_spec\"} 1",
                "nightshift_git_poll_duration_seconds_count{result=\"new_spec\"} 1",
                "nightshift_git_last_sync_timestamp_seconds " + (double) T0.getEpochSecond(),
                "nightshift_git_revision_info{revision=\"abc123\"} 1",
                "nightshift_spec_valid 1",
                "nightshift_window_open 1",
                "nightshift_window_next_close_timestamp_seconds " + (double) T0.plusSeconds(1800).getEpochSecond(),
                "nightshift_window_next_open_timestamp_seconds " + (double) T0.plusSeconds(86400 - 1800).getEpochSecond(),
                "nightshift_pool_nodes{pool=\"web\",state=\"outdated\"} 2",
                "nightshift_pool_pending_action{action=\"roll\",pool=\"web\"} 1",
                "nightshift_pool_pending_action{action=\"none\",pool=\"web\"} 0",
                "nightshift_pool_rollout_in_progress{pool=\"web\"} 1",
                "nightshift_pool_rollout_progress_ratio{pool=\"web\"} 0.3333333333333333",
                "nightshift_node_updates_total{kind=\"roll\",pool=\"web\",result=\"success\"} 1",
                "nightshift_node_update_duration_seconds_bucket{kind=\"roll\",pool=\"web\",le=\"60.0\"} 1",
                "nightshift_node_update_duration_seconds_bucket{kind=\"roll\",pool=\"web\",le=\"30.0\"} 0",
                "nightshift_drain_duration_seconds_sum{pool=\"web\"} 7.0",
                "nightshift_reconcile_duration_seconds_count{result=\"ok\"} 1",
                "nightshift_kubernetes_api_errors_total{verb=\"patch\"} 0",
                "nightshift_evictions_total{result=\"blocked_by_pdb\"} 0",
                "jvm_memory_used_bytes",
                "process_cpu_usage");
    }

    @Test
    void aRefusedCommitTurnsTheSpecInvalidUntilAGoodOneComes() {
        metrics.specLoaded(3);
        assertThat(scrape()).contains("nightshift_spec_valid 0", "nightshift_spec_errors 3");

        metrics.specLoaded(0);
        assertThat(scrape()).contains("nightshift_spec_valid 1", "nightshift_spec_errors 0");
    }

    @Test
    void aFailedPollDoesNotMoveTheLastSync() {
        metrics.polled(PollResult.UNCHANGED, Duration.ofMillis(5), T0);
        metrics.polled(PollResult.FAILED, Duration.ofMillis(5), T0.plusSeconds(60));

        assertThat(scrape()).contains("nightshift_git_last_sync_timestamp_seconds " + (double) T0.getEpochSecond(),
                "nightshift_git_polls_total{result=\"failed\"} 1", "nightshift_git_polls_total{result=\"unchanged\"} 1");
    }

    @Test
    void onlyTheCurrentRevisionAndTheCurrentPoolsAreExported() {
        metrics.reconciled(report(List.of(pool("web", PoolPhase.CURRENT, PendingAction.NONE, 2, 0, 0, true),
                pool("gpu", PoolPhase.CURRENT, PendingAction.NONE, 1, 0, 0, true)), Map.of(), List.of(), List.of(), List.of()));
        metrics.actingOn("def456");
        metrics.reconciled(ReconcileReport.planned(T0, "def456", null, new Plan(List.of(new PoolPlan("web", List.of(),
                pool("web", PoolPhase.CURRENT, PendingAction.NONE, 2, 0, 0, true))), Optional.empty())));

        String text = scrape();

        assertThat(text).contains("nightshift_git_revision_info{revision=\"def456\"} 1").doesNotContain("abc123")
                .doesNotContain("pool=\"gpu\"");
    }

    @Test
    void aReportOfAReconcileThatOutlivedTheLeaseBringsNoPoolSeriesBack() {
        ReconcileReport updating = report(List.of(pool("web", PoolPhase.UPDATING, PendingAction.ROLL, 1, 2, 1, true)), Map.of(),
                List.of(), List.of(), List.of());
        metrics.reconciled(updating);
        assertThat(scrape()).contains("nightshift_pool_nodes{pool=\"web\",state=\"outdated\"} 2");

        metrics.leading(false);
        metrics.reconciled(updating);

        assertThat(scrape()).contains("nightshift_leader 0").doesNotContain("pool=\"web\"");
    }

    @Test
    void stuckAndOverduePoolsAndEvictionsAreCounted() {
        Step drain = new Step.Drain("web-1", "web");
        metrics.reconciled(report(List.of(pool("web", PoolPhase.WAITING_FOR_WINDOW, PendingAction.IN_PLACE, 0, 3, 0, false)),
                Map.of("web", 3), List.of(new NodeUpdate("web", "web-2", NodeUpdate.Kind.IN_PLACE, false, Duration.ofMinutes(30))),
                List.of(), List.of(new StepExecutor.Outcome(drain, "", new StepExecutor.Evictions(2, 1, 1)))));

        assertThat(scrape()).contains(
                "nightshift_pool_progress_deadline_exceeded{pool=\"web\"} 1",
                "nightshift_pool_outdated_past_window_nodes{pool=\"web\"} 3",
                "nightshift_pool_phase{phase=\"waiting_for_window\",pool=\"web\"} 1",
                "nightshift_pool_pending_action{action=\"in_place\",pool=\"web\"} 1",
                "nightshift_node_updates_total{kind=\"in_place\",pool=\"web\",result=\"failure\"} 1",
                "nightshift_evictions_total{result=\"ok\"} 2",
                "nightshift_evictions_total{result=\"blocked_by_pdb\"} 1",
                "nightshift_evictions_total{result=\"error\"} 1");
    }

    @Test
    void openMetricsIsServedWhenAskedFor() {
        AgentMetrics.Exposition om = metrics.scrape("application/openmetrics-text; version=1.0.0,text/plain;q=0.5");
        AgentMetrics.Exposition text = metrics.scrape("*/*");

        assertThat(om.contentType()).startsWith("application/openmetrics-text");
        assertThat(om.body()).endsWith("# EOF\n");
        assertThat(text.contentType()).startsWith("text/plain; version=0.0.4");
        assertThat(text.body()).doesNotContain("# EOF");
    }

    @Test
    void verbsAreReadFromMethodAndPath() {
        assertThat(ApiErrorInterceptor.verb("GET", "/api/v1/nodes", null)).isEqualTo("list");
        assertThat(ApiErrorInterceptor.verb("GET", "/api/v1/nodes/web-1", null)).isEqualTo("get");
        assertThat(ApiErrorInterceptor.verb("GET", "/api/v1/namespaces/a/pods", "labelSelector=x")).isEqualTo("list");
        assertThat(ApiErrorInterceptor.verb("GET", "/api/v1/namespaces/a/configmaps/b", null)).isEqualTo("get");
        assertThat(ApiErrorInterceptor.verb("GET", "/apis/policy/v1/poddisruptionbudgets", "watch=true")).isEqualTo("watch");
        assertThat(ApiErrorInterceptor.verb("GET", "/apis/policy/v1/namespaces/a/poddisruptionbudgets/b", null)).isEqualTo("get");
        assertThat(ApiErrorInterceptor.verb("POST", "/api/v1/namespaces/a/pods/p/eviction", null)).isEqualTo("create");
        assertThat(ApiErrorInterceptor.verb("PATCH", "/api/v1/nodes/web-1", null)).isEqualTo("patch");
        assertThat(ApiErrorInterceptor.verb("DELETE", "/api/v1/namespaces/a/pods/p", null)).isEqualTo("delete");
        assertThat(Set.copyOf(AgentMetrics.VERBS)).contains("get", "list", "watch", "create", "update", "patch", "delete");
    }

    @Test
    void everyMetricTheAgentExportsIsInTheObservabilityPagesTableAndEveryRowThereIsExported() throws Exception {
        metrics.polled(PollResult.NEW_SPEC, Duration.ofMillis(120), T0);
        metrics.specLoaded(0);
        metrics.actingOn("abc123");
        metrics.leading(true);
        metrics.apiError("patch");
        metrics.reconciled(report(List.of(pool("web", PoolPhase.UPDATING, PendingAction.ROLL, 1, 2, 1, false)), Map.of("web", 2),
                List.of(new NodeUpdate("web", "web-1", NodeUpdate.Kind.ROLL, true, Duration.ofSeconds(42))),
                List.of(new FinishedDrain("web", "web-1", Duration.ofSeconds(7))),
                List.of(new StepExecutor.Outcome(new Step.Drain("web-1", "web"), "", new StepExecutor.Evictions(1, 1, 0))))
                .withRefusals(List.of(new StepRefusal("web", "Drain", "web-2", "unavailable", "web has 2 available nodes")))
                .withProviderFailures(Map.of("db", "MachineApiException: 503")));
        Set<String> exported = new TreeSet<>();
        Matcher type = Pattern.compile("(?m)^# TYPE (nightshift_\\w+) ").matcher(scrape());
        while (type.find()) {
            exported.add(type.group(1));
        }
        Set<String> documented = new TreeSet<>();
        Matcher row = Pattern.compile("(?m)^\\| `(nightshift_\\w+)` \\|")
                .matcher(Files.readString(MonitoringFiles.ROOT.resolve("docs/operations/observability.md")));
        while (row.find()) {
            documented.add(row.group(1));
        }

        assertThat(exported).hasSizeGreaterThan(25);
        assertThat(documented).isEqualTo(exported);
    }
}
