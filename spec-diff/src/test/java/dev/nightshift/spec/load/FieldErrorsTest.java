package dev.nightshift.spec.load;

import static dev.nightshift.spec.load.SpecFixtures.CLUSTER;
import static dev.nightshift.spec.load.SpecFixtures.CLUSTER_FILE;
import static dev.nightshift.spec.load.SpecFixtures.POOL;
import static dev.nightshift.spec.load.SpecFixtures.POOL_FILE;
import static dev.nightshift.spec.load.SpecFixtures.assertOnlyError;
import static dev.nightshift.spec.load.SpecFixtures.cluster;
import static dev.nightshift.spec.load.SpecFixtures.error;
import static dev.nightshift.spec.load.SpecFixtures.loadCluster;
import static dev.nightshift.spec.load.SpecFixtures.loadPool;
import static dev.nightshift.spec.load.SpecFixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;

import java.text.ParseException;
import java.util.Calendar;
import java.util.Date;
import java.util.TimeZone;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.quartz.CronExpression;

/** Errors found while reading one document, each with its file, line, column, field and message. */
class FieldErrorsTest {

    private static final String MACHINE_LINE = "  machine: {type: m5.large, image: {name: gardenlinux, version: 1631.0.0}}";

    // ---- document ------------------------------------------------------------------------

    @Test
    void unknownKindIsRejected() {
        LoadResult result = loadPool(POOL.replace("kind: WorkerPool", "kind: NodePool"));

        assertOnlyError(result, POOL_FILE, 2, 7, "kind", "unknown kind \"NodePool\"");
    }

    @Test
    void wrongApiVersionIsRejected() {
        LoadResult result = loadPool(POOL.replace("nightshift.dev/v1alpha1", "nightshift.dev/v1"));

        assertOnlyError(result, POOL_FILE, 1, 13, "apiVersion", "must be nightshift.dev/v1alpha1");
    }

    @Test
    void missingKindIsReportedAtTheDocument() {
        LoadResult result = loadPool(POOL.replace("kind: WorkerPool\n", ""));

        assertOnlyError(result, POOL_FILE, 1, 1, "kind", "required field is missing");
    }

    // ---- unknown fields ------------------------------------------------------------------

    @Test
    void unknownSpecFieldIsReportedAtItsKey() {
        LoadResult result = loadPool(pool("  maxSurg: 1"));

        assertOnlyError(result, POOL_FILE, 8, 3, "spec.maxSurg", "unknown field");
    }

    @Test
    void unknownNestedFieldIsReportedAtItsKey() {
        LoadResult result = loadPool(pool("  machineControllerManager: {drainTimout: 1h}"));

        assertOnlyError(result, POOL_FILE, 8, 30, "spec.machineControllerManager.drainTimout", "unknown field");
    }

    @Test
    void unknownTopLevelFieldIsReportedAtItsKey() {
        LoadResult result = loadPool(POOL + "status: {}\n");

        assertOnlyError(result, POOL_FILE, 8, 1, "status", "unknown field");
    }

    @Test
    void unknownClusterFieldIsReportedAtItsKey() {
        LoadResult result = loadCluster(cluster("  rollingUpdates: {maxSurge: 1}"));

        assertOnlyError(result, CLUSTER_FILE, 6, 3, "spec.rollingUpdates", "unknown field");
    }

    // ---- required fields -----------------------------------------------------------------

    @Test
    void missingMinimumIsReportedAtTheSpecMapping() {
        LoadResult result = loadPool(POOL.replace("  minimum: 1\n", ""));

        assertOnlyError(result, POOL_FILE, 5, 3, "spec.minimum", "required field is missing");
    }

    @Test
    void missingMaximumIsReportedAtTheSpecMapping() {
        LoadResult result = loadPool(POOL.replace("  maximum: 3\n", ""));

        assertOnlyError(result, POOL_FILE, 5, 3, "spec.maximum", "required field is missing");
    }

    @Test
    void missingMachineIsReportedOnceAtTheSpecMapping() {
        LoadResult result = loadPool(POOL.replace(MACHINE_LINE + "\n", ""));

        assertOnlyError(result, POOL_FILE, 5, 3, "spec.machine", "required field is missing");
    }

    @Test
    void missingMachineTypeIsReportedAtTheMachineMapping() {
        LoadResult result = loadPool(POOL.replace("type: m5.large, ", ""));

        assertOnlyError(result, POOL_FILE, 7, 12, "spec.machine.type", "required field is missing");
    }

    @Test
    void missingClusterKubernetesVersionIsReportedAtTheKubernetesMapping() {
        LoadResult result = loadCluster(CLUSTER.replace("{version: \"1.31.4\"}", "{kubelet: {cpuManagerPolicy: none}}"));

        assertOnlyError(result, CLUSTER_FILE, 5, 15, "spec.kubernetes.version", "required field is missing");
    }

    @Test
    void missingClusterKubernetesIsReportedOnceAtTheSpecMapping() {
        LoadResult result = loadCluster(CLUSTER.replace("  kubernetes: {version: \"1.31.4\"}\n",
                "  systemComponents: {nodeLocalDNS: {enabled: true}}\n"));

        assertOnlyError(result, CLUSTER_FILE, 5, 3, "spec.kubernetes", "required field is missing");
    }

    @Test
    void missingPoolClusterReferenceIsReportedAtTheMetadataMapping() {
        LoadResult result = loadPool(POOL.replace(", cluster: prod", ""));

        assertOnlyError(result, POOL_FILE, 3, 11, "metadata.cluster", "required field is missing");
    }

    @Test
    void explicitNullCountsAsMissing() {
        LoadResult result = loadPool(POOL.replace("  maximum: 3", "  maximum: ~"));

        assertOnlyError(result, POOL_FILE, 5, 3, "spec.maximum", "required field is missing");
    }

    // ---- versions ------------------------------------------------------------------------

    @Test
    void unquotedVersionIsRejectedWithQuoteItHint() {
        LoadResult result = loadPool(pool("  kubernetes: {version: 1.30}"));

        assertOnlyError(result, POOL_FILE, 8, 25, "spec.kubernetes.version", "quote it");
        assertThat(result.errors().get(0).message()).contains("\"1.30\"");
    }

    @Test
    void unquotedClusterVersionIsRejectedWithQuoteItHint() {
        LoadResult result = loadCluster(CLUSTER.replace("\"1.31.4\"", "1.31"));

        assertOnlyError(result, CLUSTER_FILE, 5, 25, "spec.kubernetes.version", "quote it");
    }

    @Test
    void unquotedImageVersionThatYamlReadsAsANumberIsRejectedWithQuoteItHint() {
        LoadResult result = loadPool(POOL.replace("version: 1631.0.0", "version: 1631.0"));

        assertOnlyError(result, POOL_FILE, 7, 65, "spec.machine.image.version", "quote it");
    }

    @Test
    void unquotedThreePartVersionIsAString() {
        LoadResult result = loadPool(pool("  kubernetes: {version: 1.31.4}"));

        assertThat(result.errors()).isEmpty();
        assertThat(result.specs().pools().get(0).kubernetesVersion()).hasValueSatisfying(
                v -> assertThat(v.toString()).isEqualTo("1.31.4"));
    }

    @Test
    void versionWithoutPatchIsRejectedAsMalformed() {
        LoadResult result = loadPool(pool("  kubernetes: {version: \"1.31\"}"));

        assertOnlyError(result, POOL_FILE, 8, 25, "spec.kubernetes.version", "MAJOR.MINOR.PATCH");
    }

    @Test
    void versionWithLeadingVIsRejectedAsMalformed() {
        LoadResult result = loadCluster(CLUSTER.replace("\"1.31.4\"", "v1.31.4"));

        assertOnlyError(result, CLUSTER_FILE, 5, 25, "spec.kubernetes.version", "MAJOR.MINOR.PATCH");
    }

    @Test
    void malformedImageVersionIsRejected() {
        LoadResult result = loadPool(POOL.replace("version: 1631.0.0", "version: \"-1631\""));

        assertOnlyError(result, POOL_FILE, 7, 65, "spec.machine.image.version", "must be a version such as 1632.0.0");
    }

    // ---- quantities, durations, integers -------------------------------------------------

    @Test
    void badQuantityInKubeReservedIsRejected() {
        LoadResult result = loadPool(pool("  kubernetes: {kubelet: {kubeReserved: {cpu: 80x}}}"));

        assertOnlyError(result, POOL_FILE, 8, 46, "spec.kubernetes.kubelet.kubeReserved.cpu", "non-negative quantity");
    }

    @Test
    void negativeQuantityInSystemReservedIsRejected() {
        LoadResult result = loadCluster(CLUSTER.replace("{version: \"1.31.4\"}",
                "{version: \"1.31.4\", kubelet: {systemReserved: {memory: -1Gi}}}"));

        assertOnlyError(result, CLUSTER_FILE, 5, 70, "spec.kubernetes.kubelet.systemReserved.memory", "non-negative quantity");
    }

    @Test
    void quantityWithAnExponentTooLargeForAnIntIsAnErrorNotACrash() {
        LoadResult result = loadPool(pool("  kubernetes: {kubelet: {kubeReserved: {cpu: 1e99999999999}}}"));

        assertOnlyError(result, POOL_FILE, 8, 46, "spec.kubernetes.kubelet.kubeReserved.cpu", "quantity");
    }

    @Test
    void badEvictionThresholdIsRejected() {
        LoadResult result = loadPool(pool("  kubernetes: {kubelet: {evictionHard: {memory.available: 110%}}}"));

        assertOnlyError(result, POOL_FILE, 8, 59, "spec.kubernetes.kubelet.evictionHard.memory.available", "percentage");
    }

    @Test
    void zeroVolumeSizeIsRejected() {
        LoadResult result = loadPool(pool("  volume: {type: gp3, size: 0}"));

        assertOnlyError(result, POOL_FILE, 8, 29, "spec.volume.size", "positive quantity");
    }

    @Test
    void badDurationIsRejected() {
        LoadResult result = loadPool(pool("  interval: 5d"));

        assertOnlyError(result, POOL_FILE, 8, 13, "spec.interval", "must be a duration such as 90s, 15m, 2h or 1h30m");
    }

    @Test
    void fractionalDurationIsRejected() {
        LoadResult result = loadPool(pool("  machineControllerManager: {drainTimeout: 1.5h}"));

        assertOnlyError(result, POOL_FILE, 8, 44, "spec.machineControllerManager.drainTimeout", "must be a duration");
    }

    @Test
    void octalLookingIntegerIsRejected() {
        LoadResult result = loadPool(POOL.replace("maximum: 3", "maximum: 010"));

        assertOnlyError(result, POOL_FILE, 6, 12, "spec.maximum", "decimal integer");
    }

    @Test
    void negativeMinimumIsRejected() {
        LoadResult result = loadPool(POOL.replace("minimum: 1", "minimum: -1"));

        assertOnlyError(result, POOL_FILE, 5, 12, "spec.minimum", "must be >= 0");
    }

    // ---- maxSurge / maxUnavailable -------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"abc", "\"150%\"", "-1", "1.5", "\"1\"", "101%"})
    void maxSurgeThatIsNeitherACountNorAPercentageIsRejected(String value) {
        LoadResult result = loadPool(pool("  maxSurge: " + value));

        assertOnlyError(result, POOL_FILE, 8, 13, "spec.maxSurge", "must be an int >= 0 or a percentage from 0% to 100%");
    }

    @Test
    void badMaxUnavailableIsRejected() {
        LoadResult result = loadPool(pool("  maxUnavailable: abc"));

        assertOnlyError(result, POOL_FILE, 8, 19, "spec.maxUnavailable", "must be an int >= 0 or a percentage");
    }

    @Test
    void badClusterRollingUpdateDefaultIsRejected() {
        LoadResult result = loadCluster(cluster("  rollingUpdate: {maxSurge: 1, maxUnavailable: \"200%\"}"));

        assertOnlyError(result, CLUSTER_FILE, 6, 48, "spec.rollingUpdate.maxUnavailable", "percentage from 0% to 100%");
    }

    // ---- booleans ------------------------------------------------------------------------

    @Test
    void yesIsRefusedAsABoolean() {
        LoadResult result = loadPool(pool("  drainAndTerminate: yes"));

        assertOnlyError(result, POOL_FILE, 8, 22, "spec.drainAndTerminate", "must be true or false");
    }

    @Test
    void yesIsRefusedForDisableHealthTimeout() {
        LoadResult result = loadPool(pool("  machineControllerManager: {disableHealthTimeout: yes}"));

        assertOnlyError(result, POOL_FILE, 8, 52, "spec.machineControllerManager.disableHealthTimeout", "must be true or false");
    }

    @Test
    void offIsRefusedAsAClusterBoolean() {
        LoadResult result = loadCluster(cluster("  maintenance: {confineSpecUpdateRollout: off}"));

        assertOnlyError(result, CLUSTER_FILE, 6, 43, "spec.maintenance.confineSpecUpdateRollout", "must be true or false");
    }

    @Test
    void noInAStringFieldStaysTheStringNo() {
        LoadResult result = loadPool(pool("  labels: {country: no}"));

        assertThat(result.errors()).isEmpty();
        assertThat(result.specs().pools().get(0).labels()).containsEntry("country", "no");
    }

    // ---- enums ---------------------------------------------------------------------------

    @Test
    void unknownUpdateStrategyIsRejected() {
        LoadResult result = loadPool(pool("  updateStrategy: RollingUpdate"));

        assertOnlyError(result, POOL_FILE, 8, 19, "spec.updateStrategy",
                "must be one of AutoRollingUpdate, AutoInPlaceUpdate, ManualInPlaceUpdate, Replace, got \"RollingUpdate\"");
    }

    @Test
    void unknownRoleIsRejected() {
        LoadResult result = loadPool(pool("  role: worker"));

        assertOnlyError(result, POOL_FILE, 8, 9, "spec.role", "must be one of bastion, control-plane, apiserver, node");
    }

    @Test
    void enumNameOfARoleIsNotItsSpelling() {
        LoadResult result = loadPool(pool("  role: CONTROL_PLANE"));

        assertOnlyError(result, POOL_FILE, 8, 9, "spec.role", "must be one of");
    }

    @Test
    void unknownOnEvictionBlockedIsRejected() {
        LoadResult result = loadPool(pool("  machineControllerManager: {onEvictionBlocked: Never}"));

        assertOnlyError(result, POOL_FILE, 8, 49, "spec.machineControllerManager.onEvictionBlocked",
                "must be one of ForceDelete, Wait");
    }

    @Test
    void unknownTaintEffectIsRejected() {
        LoadResult result = loadPool(pool("  taints: [{key: a, effect: NoShedule}]"));

        assertOnlyError(result, POOL_FILE, 8, 29, "spec.taints[0].effect",
                "must be one of NoSchedule, PreferNoSchedule, NoExecute");
    }

    @Test
    void badCpuManagerPolicyIsRejected() {
        LoadResult result = loadPool(pool("  kubernetes: {kubelet: {cpuManagerPolicy: dynamic}}"));

        assertOnlyError(result, POOL_FILE, 8, 44, "spec.kubernetes.kubelet.cpuManagerPolicy", "must be none or static");
    }

    // ---- maintenance ---------------------------------------------------------------------

    private static LoadResult loadWindow(String schedule) {
        return loadCluster(cluster("  maintenance: {windows: [{schedule: '" + schedule + "', duration: 1h}]}"));
    }

    private static String suggestion(String message) {
        Matcher m = Pattern.compile("e\\.g\\. \"([^\"]+)\"").matcher(message);
        assertThat(m.find()).as("a suggestion in %s", message).isTrue();
        return m.group(1);
    }

    @Test
    void fiveFieldUnixCronIsRejectedWithAQuartzSuggestion() {
        LoadResult result = loadWindow("0 2 * * SAT");

        assertOnlyError(result, CLUSTER_FILE, 6, 38, "spec.maintenance.windows[0].schedule", "5-field Unix cron");
        assertThat(result.errors().get(0).message()).contains("\"0 0 2 ? * SAT\"");
    }

    @Test
    void fiveFieldUnixCronWithEveryDayOfWeekGetsAQuartzSuggestionWithQuestionMarkLast() {
        LoadResult result = loadWindow("30 4 1 * *");

        assertOnlyError(result, CLUSTER_FILE, 6, 38, "spec.maintenance.windows[0].schedule", "\"0 30 4 1 * ?\"");
    }

    @Test
    void fiveFieldCronSuggestionIsAValidQuartzExpression() {
        LoadResult result = loadWindow("0 2 * * 0");

        assertThat(result.errors()).singleElement().satisfies(e -> {
            String quartz = suggestion(e.message());
            assertThat(CronExpression.isValidExpression(quartz)).as("suggested \"%s\" is valid Quartz", quartz).isTrue();
        });
    }

    @Test
    void fiveFieldCronSuggestionWithANumericWeekdayFiresOnTheSameWeekday() throws ParseException {
        // Unix cron: 6 = Saturday. Quartz: 6 = Friday, 7 = Saturday.
        LoadResult result = loadWindow("0 2 * * 6");

        assertThat(result.errors()).hasSize(1);
        String quartz = suggestion(result.errors().get(0).message());
        CronExpression cron = new CronExpression(quartz);
        cron.setTimeZone(TimeZone.getTimeZone("UTC"));
        Calendar next = Calendar.getInstance(TimeZone.getTimeZone("UTC"));
        next.setTime(cron.getNextValidTimeAfter(new Date(0)));
        assertThat(next.get(Calendar.DAY_OF_WEEK)).as("weekday of the first fire time of \"%s\"", quartz)
                .isEqualTo(Calendar.SATURDAY);
    }

    @Test
    void nonsenseCronIsRejected() {
        LoadResult result = loadWindow("every night");

        assertOnlyError(result, CLUSTER_FILE, 6, 38, "spec.maintenance.windows[0].schedule",
                "is not a valid Quartz cron expression");
    }

    @Test
    void sixFieldCronWithAnImpossibleHourIsRejected() {
        LoadResult result = loadWindow("0 0 25 ? * *");

        assertOnlyError(result, CLUSTER_FILE, 6, 38, "spec.maintenance.windows[0].schedule",
                "is not a valid Quartz cron expression");
    }

    @Test
    void validQuartzCronIsAccepted() {
        LoadResult result = loadWindow("0 0 2 ? * SAT,SUN");

        assertThat(result.errors()).isEmpty();
    }

    @Test
    void unknownTimeZoneIsRejected() {
        LoadResult result = loadCluster(cluster(
                "  maintenance: {windows: [{schedule: '0 0 2 ? * SAT', duration: 1h, timeZone: Europe/Berlinn}]}"));

        assertOnlyError(result, CLUSTER_FILE, 6, 79, "spec.maintenance.windows[0].timeZone", "IANA time zone");
    }

    @Test
    void missingWindowDurationIsReportedAtTheWindow() {
        LoadResult result = loadCluster(cluster("  maintenance: {windows: [{schedule: '0 0 2 ? * SAT'}]}"));

        assertOnlyError(result, CLUSTER_FILE, 6, 27, "spec.maintenance.windows[0].duration", "required field is missing");
    }

    @Test
    void badTimeWindowBeginIsRejected() {
        LoadResult result = loadCluster(cluster("  maintenance: {timeWindow: {begin: '2200', end: '230000+0100'}}"));

        assertOnlyError(result, CLUSTER_FILE, 6, 37, "spec.maintenance.timeWindow.begin", "HHMMSS+ZZZZ");
    }

    @Test
    void timeWindowWithDifferentOffsetsIsRejected() {
        LoadResult result = loadCluster(cluster("  maintenance: {timeWindow: {begin: '220000+0100', end: '230000+0200'}}"));

        assertOnlyError(result, CLUSTER_FILE, 6, 57, "spec.maintenance.timeWindow.end", "same UTC offset");
    }

    @Test
    void exclusionEndingBeforeItStartsIsRejected() {
        LoadResult result = loadCluster(cluster(
                "  maintenance: {exclusions: [{start: '2026-11-30T00:00:00Z', end: '2026-11-27T00:00:00Z'}]}"));

        assertOnlyError(result, CLUSTER_FILE, 6, 67, "spec.maintenance.exclusions[0].end", "must be after start");
    }

    @Test
    void exclusionWithALocalTimeIsRejected() {
        LoadResult result = loadCluster(cluster(
                "  maintenance: {exclusions: [{start: '2026-11-27T00:00:00', end: '2026-11-30T00:00:00Z'}]}"));

        assertOnlyError(result, CLUSTER_FILE, 6, 38, "spec.maintenance.exclusions[0].start", "RFC 3339");
    }

    // ---- metadata ------------------------------------------------------------------------

    @Test
    void nameThatIsNotADnsLabelIsRejected() {
        LoadResult result = loadPool(POOL.replace("name: cpu", "name: CPU_Pool"));

        assertOnlyError(result, POOL_FILE, 3, 18, "metadata.name", "DNS label");
    }

    // ---- all errors together -------------------------------------------------------------

    @Test
    void threeProblemsInOneFileGiveThreeErrors() {
        LoadResult result = loadPool(pool(
                "  maxSurge: abc",
                "  role: worker",
                "  interval: 5d"));

        assertThat(result.errors()).satisfiesExactly(
                error(POOL_FILE, 8, 13, "spec.maxSurge", "must be an int >= 0"),
                error(POOL_FILE, 9, 9, "spec.role", "must be one of"),
                error(POOL_FILE, 10, 13, "spec.interval", "must be a duration"));
    }

    @Test
    void problemsInSeveralFilesAreReportedTogether() {
        LoadResult result = SpecFixtures.load(
                CLUSTER_FILE, CLUSTER,
                "pools/a.yaml", pool("  drainAndTerminate: yes").replace("name: cpu", "name: a"),
                "pools/b.yaml", pool("  updateStrategy: Rolling").replace("name: cpu", "name: b"));

        assertThat(result.errors()).satisfiesExactly(
                error("pools/a.yaml", 8, 22, "spec.drainAndTerminate", "must be true or false"),
                error("pools/b.yaml", 8, 19, "spec.updateStrategy", "must be one of"));
    }

    @Test
    void aDocumentWithErrorsIsNotInTheSpecSet() {
        LoadResult result = loadPool(pool("  maxSurge: abc"));

        assertThat(result.valid()).isFalse();
        assertThat(result.specs().pools()).isEmpty();
        assertThat(result.specs().clusters()).hasSize(1);
    }
}
