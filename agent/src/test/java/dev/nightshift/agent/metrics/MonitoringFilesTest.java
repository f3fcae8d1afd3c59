package dev.nightshift.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/** The dashboard and the rules as files: shapes Grafana and the operator need, and no padding. */
class MonitoringFilesTest {

    @Test
    void thePrometheusRuleHoldsExactlyTheGroupsOfThePlainRulesFile() throws Exception {
        assertThat(MonitoringFiles.ruleGroups(MonitoringFiles.PROMETHEUS_RULE))
                .isEqualTo(MonitoringFiles.ruleGroups(MonitoringFiles.RULES));
    }

    @Test
    void everyIssueAlertIsThere() throws Exception {
        assertThat(MonitoringFiles.alertExpressions()).extracting(MonitoringFiles.Expression::source).contains(
                "alert NightshiftGitSyncFailing", "alert NightshiftSpecInvalid", "alert NightshiftCommitUnverified", "alert NightshiftRolloutStuck",
                "alert NightshiftNodesOutdatedPastWindow", "alert NightshiftAgentDown");
    }

    @Test
    void everyPanelUsesTheDatasourceInputAndEveryIdIsUnique() throws Exception {
        JsonNode dashboard = MonitoringFiles.dashboard();
        assertThat(dashboard.path("__inputs").get(0).path("name").asText()).isEqualTo("DS_PROMETHEUS");
        Set<Integer> ids = new HashSet<>();
        List<JsonNode> queried = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            assertThat(ids.add(panel.path("id").asInt())).as("unique id %s", panel.path("id")).isTrue();
            if (!panel.path("type").asText().equals("row")) {
                queried.add(panel);
            }
        }
        assertThat(queried).isNotEmpty().allSatisfy(p -> {
            assertThat(p.path("datasource").path("uid").asText()).as(p.path("title").asText()).isEqualTo("${DS_PROMETHEUS}");
            assertThat(p.path("targets")).as(p.path("title").asText()).isNotEmpty()
                    .allSatisfy(t -> assertThat(t.path("datasource").path("uid").asText()).isEqualTo("${DS_PROMETHEUS}"));
            JsonNode grid = p.path("gridPos");
            assertThat(grid.path("x").asInt() + grid.path("w").asInt()).as(p.path("title").asText()).isLessThanOrEqualTo(24);
        });
    }

    @Test
    void thePoolVariableListsThePoolsAndPoolPanelsFilterByIt() throws Exception {
        JsonNode pool = null;
        for (JsonNode v : MonitoringFiles.dashboard().path("templating").path("list")) {
            if (v.path("name").asText().equals("pool")) {
                pool = v;
            }
        }
        assertThat(pool).isNotNull();
        assertThat(pool.path("definition").asText()).isEqualTo("label_values(nightshift_pool_nodes, pool)");
        assertThat(pool.path("includeAll").asBoolean()).isTrue();
        assertThat(MonitoringFiles.dashboardExpressions()).filteredOn(e -> e.promql().contains("nightshift_pool_"))
                .isNotEmpty().allSatisfy(e -> assertThat(e.promql()).as(e.source()).contains("pool=~\"$pool\""));
    }

    @Test
    void noExpressionIsPaddedToLookAlive() throws Exception {
        List<MonitoringFiles.Expression> all = new ArrayList<>(MonitoringFiles.dashboardExpressions());
        all.addAll(MonitoringFiles.alertExpressions());
        assertThat(all).allSatisfy(e -> assertThat(e.promql()).as(e.source()).doesNotContain("vector(").doesNotContain("or on()"));
    }

    @Test
    void metricNamesAreReadFromExpressions() {
        assertThat(MonitoringFiles.metricNames(
                "histogram_quantile(0.95, sum by (le, kind) (rate(nightshift_node_update_duration_seconds_bucket{pool=~\".*\"}[1m])))"))
                .containsExactly("nightshift_node_update_duration_seconds_bucket");
        assertThat(MonitoringFiles.metricNames("up{job=\"nightshift\"} == 0 or absent(up{job=\"nightshift\"})")).containsExactly("up");
        assertThat(MonitoringFiles.metricNames("time() - nightshift_git_last_sync_timestamp_seconds > 9e2"))
                .containsExactly("nightshift_git_last_sync_timestamp_seconds");
        assertThat(MonitoringFiles.metricNames("a unless on (job, instance) b > 0")).containsExactly("a", "b");
    }
}
