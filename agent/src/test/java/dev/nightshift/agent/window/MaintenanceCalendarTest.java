package dev.nightshift.agent.window;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;

/** Calendars computed by hand, checked against the calendar. */
class MaintenanceCalendarTest {

    private static MaintenanceCalendar calendar(String maintenance) {
        String yaml = """
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: c}
                spec:
                  kubernetes: {version: "1.31.4"}
                """ + (maintenance.isEmpty() ? "" : "  maintenance:\n" + maintenance.indent(4));
        LoadResult loaded = new SpecLoader().load(Map.of("c.yaml", yaml.getBytes(StandardCharsets.UTF_8)));
        assertThat(loaded.errors()).isEmpty();
        return new MaintenanceCalendar(loaded.specs().clusters().get(0).maintenance());
    }

    private static Instant t(String text) {
        return Instant.parse(text);
    }

    /** {@code open/close source}; a look-back start is marked {@code *}, a close beyond the horizon is {@code beyond}. */
    private static List<String> spans(List<Window> windows) {
        return windows.stream().map(w -> w.open() + (w.openedBeforeLookBack() ? "*" : "") + "/"
                + w.close().map(Instant::toString).orElse("beyond") + " " + w.source()).toList();
    }

    @Test
    void noMaintenanceMeansAlwaysOpen() {
        MaintenanceCalendar c = calendar("");

        assertThat(c.alwaysOpen()).isTrue();
        assertThat(c.windows(t("2026-11-21T00:00:00Z"), 3)).isEmpty();
        assertThat(c.state(t("2026-11-21T00:00:00Z")).specRolloutAllowed()).isTrue();
    }

    @Test
    void onlyExclusionsStillMeansAlwaysOpenOutsideThem() {
        MaintenanceCalendar c = calendar("exclusions: [{start: \"2026-11-27T00:00:00Z\", end: \"2026-11-30T00:00:00Z\"}]");

        assertThat(c.alwaysOpen()).isTrue();
        assertThat(c.state(t("2026-11-26T23:59:59Z")).specRolloutAllowed()).isTrue();
        assertThat(c.state(t("2026-11-27T00:00:00Z")).specRolloutAllowed()).isFalse();
        assertThat(c.state(t("2026-11-30T00:00:00Z")).specRolloutAllowed()).as("exclusions are half-open").isTrue();
    }

    @Test
    void aDailyWindowAcrossMidnightOpensEveryEvening() {
        MaintenanceCalendar c = calendar("timeWindow: {begin: \"220000+0100\", end: \"060000+0100\"}");

        assertThat(spans(c.windows(t("2026-11-21T12:00:00Z"), 2))).containsExactly(
                "2026-11-21T21:00:00Z/2026-11-22T05:00:00Z timeWindow",
                "2026-11-22T21:00:00Z/2026-11-23T05:00:00Z timeWindow");
    }

    @Test
    void aWindowOpenAtFromComesFirstWithItsRealOpeningTime() {
        MaintenanceCalendar c = calendar("timeWindow: {begin: \"220000+0100\", end: \"060000+0100\"}");

        assertThat(spans(c.windows(t("2026-11-22T03:00:00Z"), 1)))
                .containsExactly("2026-11-21T21:00:00Z/2026-11-22T05:00:00Z timeWindow");
        WindowState state = c.state(t("2026-11-22T03:00:00Z"));
        assertThat(state.open()).isTrue();
        assertThat(state.nextChange()).contains(t("2026-11-22T05:00:00Z"));
    }

    @Test
    void aCronWindowOpensAtEachFireTimeInItsZone() {
        MaintenanceCalendar c = calendar("windows: [{schedule: \"0 0 2 ? * SAT,SUN\", duration: 4h, timeZone: Europe/Berlin}]");

        // Saturday 2026-11-21 02:00 CET is 01:00Z; then Sunday; then the next Saturday.
        assertThat(spans(c.windows(t("2026-11-20T00:00:00Z"), 3))).containsExactly(
                "2026-11-21T01:00:00Z/2026-11-21T05:00:00Z windows[0]",
                "2026-11-22T01:00:00Z/2026-11-22T05:00:00Z windows[0]",
                "2026-11-28T01:00:00Z/2026-11-28T05:00:00Z windows[0]");
    }

    @Test
    void aStartTimeThatDoesNotExistOnTheSpringForwardDayIsSkipped() {
        MaintenanceCalendar c = calendar("windows: [{schedule: \"0 30 2 * * ?\", duration: 1h, timeZone: Europe/Berlin}]");

        // 2026-03-29: clocks jump from 02:00 CET to 03:00 CEST, so 02:30 never happens.
        assertThat(spans(c.windows(t("2026-03-28T12:00:00Z"), 2))).containsExactly(
                "2026-03-30T00:30:00Z/2026-03-30T01:30:00Z windows[0]",
                "2026-03-31T00:30:00Z/2026-03-31T01:30:00Z windows[0]");
    }

    @Test
    void aStartTimeThatExistsTwiceOnTheFallBackDayOpensOnceAtItsSecondOccurrence() {
        MaintenanceCalendar c = calendar("windows: [{schedule: \"0 30 2 * * ?\", duration: 1h, timeZone: Europe/Berlin}]");

        // 2026-10-25: 02:30 CEST (00:30Z) and 02:30 CET (01:30Z); Quartz fires at the second.
        assertThat(spans(c.windows(t("2026-10-24T12:00:00Z"), 2))).containsExactly(
                "2026-10-25T01:30:00Z/2026-10-25T02:30:00Z windows[0]",
                "2026-10-26T01:30:00Z/2026-10-26T02:30:00Z windows[0]");
    }

    @Test
    void aDailyWindowKeepsItsFixedOffsetAcrossDaylightSaving() {
        MaintenanceCalendar c = calendar("timeWindow: {begin: \"020000+0100\", end: \"030000+0100\"}");

        assertThat(spans(c.windows(t("2026-03-28T12:00:00Z"), 2))).containsExactly(
                "2026-03-29T01:00:00Z/2026-03-29T02:00:00Z timeWindow",
                "2026-03-30T01:00:00Z/2026-03-30T02:00:00Z timeWindow");
    }

    @Test
    void anExclusionCutsAWindowInTwo() {
        MaintenanceCalendar c = calendar("""
                windows: [{schedule: "0 0 1 ? * *", duration: 4h, timeZone: UTC}]
                exclusions: [{start: "2026-11-21T02:00:00Z", end: "2026-11-21T03:00:00Z"}]
                """);

        assertThat(spans(c.windows(t("2026-11-21T00:00:00Z"), 3))).containsExactly(
                "2026-11-21T01:00:00Z/2026-11-21T02:00:00Z windows[0]",
                "2026-11-21T03:00:00Z/2026-11-21T05:00:00Z windows[0]",
                "2026-11-22T01:00:00Z/2026-11-22T05:00:00Z windows[0]");
    }

    @Test
    void anExclusionRemovesWholeWindows() {
        MaintenanceCalendar c = calendar("""
                windows: [{schedule: "0 0 1 ? * *", duration: 4h, timeZone: UTC}]
                exclusions: [{start: "2026-11-27T00:00:00Z", end: "2026-11-30T23:59:59Z", reason: sales freeze}]
                """);

        assertThat(spans(c.windows(t("2026-11-26T06:00:00Z"), 2))).containsExactly(
                "2026-12-01T01:00:00Z/2026-12-01T05:00:00Z windows[0]",
                "2026-12-02T01:00:00Z/2026-12-02T05:00:00Z windows[0]");
    }

    @Test
    void overlappingWindowsMergeAndListEverySource() {
        MaintenanceCalendar c = calendar("""
                timeWindow: {begin: "010000+0000", end: "030000+0000"}
                windows: [{schedule: "0 0 2 ? * *", duration: 2h, timeZone: UTC}]
                """);

        assertThat(spans(c.windows(t("2026-11-21T00:00:00Z"), 1)))
                .containsExactly("2026-11-21T01:00:00Z/2026-11-21T04:00:00Z timeWindow+windows[0]");
    }

    @Test
    void touchingWindowsMerge() {
        MaintenanceCalendar c = calendar("""
                timeWindow: {begin: "010000+0000", end: "020000+0000"}
                windows: [{schedule: "0 0 2 ? * *", duration: 1h, timeZone: UTC}]
                """);

        assertThat(spans(c.windows(t("2026-11-21T00:00:00Z"), 1)))
                .containsExactly("2026-11-21T01:00:00Z/2026-11-21T03:00:00Z timeWindow+windows[0]");
    }

    @Test
    void backToBackWindowsMergeIntoOneThatOpensWhenTheFirstOpened() {
        // Monday to Friday, each day whole: one window from Monday 00:00 to Saturday 00:00.
        MaintenanceCalendar c = calendar("windows: [{schedule: \"0 0 0 ? * MON-FRI\", duration: 24h, timeZone: UTC}]");

        assertThat(spans(c.windows(t("2026-11-20T12:00:00Z"), 2))).containsExactly(
                "2026-11-16T00:00:00Z/2026-11-21T00:00:00Z windows[0]",
                "2026-11-23T00:00:00Z/2026-11-28T00:00:00Z windows[0]");
    }

    @Test
    void aWindowOpenForDaysShowsTheOpeningOfTheWindowItTouches() {
        // Saturday 01:00-02:00, touched by a 72 h window from 02:00 to Tuesday 02:00: asked on
        // Tuesday 01:00, the window opened three days earlier.
        MaintenanceCalendar c = calendar("""
                windows:
                - {schedule: "0 0 1 ? * SAT", duration: 1h, timeZone: UTC}
                - {schedule: "0 0 2 ? * SAT", duration: 72h, timeZone: UTC}
                """);

        assertThat(spans(c.windows(t("2026-11-17T01:00:00Z"), 1)))
                .containsExactly("2026-11-14T01:00:00Z/2026-11-17T02:00:00Z windows[0]+windows[1]");
        assertThat(c.state(t("2026-11-17T01:00:00Z")).current().map(Window::open)).contains(t("2026-11-14T01:00:00Z"));
    }

    @Test
    void aWindowLongerThanTheLookBackStillShowsItsRealOpening() {
        // Guards the look-back's reach (32 days beyond the longest window), not a bug of the old search.
        MaintenanceCalendar c = calendar("windows: [{schedule: \"0 0 0 1 1 ? *\", duration: 1440h, timeZone: UTC}]");

        assertThat(spans(c.windows(t("2027-02-15T00:00:00Z"), 1)))
                .containsExactly("2027-01-01T00:00:00Z/2027-03-02T00:00:00Z windows[0]");
    }

    @Test
    void touchingDailyWindowsAreOneWindowOpenBeforeTheLookBackAndBeyondTheHorizon() {
        // Every day at 01:00 for 24 h: always open. The look-back starts 32 days + 24 h before.
        MaintenanceCalendar c = calendar("windows: [{schedule: \"0 0 1 ? * *\", duration: 24h, timeZone: UTC}]");

        assertThat(spans(c.windows(t("2026-11-21T12:00:00Z"), 2)))
                .containsExactly("2026-10-19T12:00:00Z*/beyond windows[0]");
    }

    @Test
    void insideAWindowThatNeverClosesNothingChanges() {
        // A daily window from 22:00 to 06:00 and a cron window from 06:00 to 22:00: always open.
        MaintenanceCalendar c = calendar("""
                timeWindow: {begin: "220000+0000", end: "060000+0000"}
                windows: [{schedule: "0 0 6 ? * *", duration: 16h, timeZone: UTC}]
                """);

        WindowState state = c.state(t("2026-11-21T12:00:00Z"));

        assertThat(state.open()).isTrue();
        assertThat(state.current()).hasValueSatisfying(w -> assertThat(w.closesBeyondHorizon()).isTrue());
        assertThat(state.next()).isEmpty();
        assertThat(state.nextChange()).isEmpty();
    }

    @Test
    void aWindowStillOpenAtTheHorizonHasNoClose() {
        // Excluded until two days before the horizon, then hourly windows that touch.
        MaintenanceCalendar c = calendar("""
                windows: [{schedule: "0 0 * * * ?", duration: 1h, timeZone: UTC}]
                exclusions: [{start: "2026-01-01T00:00:00Z", end: "2029-11-21T00:00:00Z"}]
                """);

        assertThat(spans(c.windows(t("2026-11-21T00:00:00Z"), 2))).containsExactly("2029-11-21T00:00:00Z/beyond windows[0]");
    }

    @Test
    void anExclusionBlocksEverythingWhileActive() {
        MaintenanceCalendar c = calendar("""
                windows: [{schedule: "0 0 1 ? * *", duration: 4h, timeZone: UTC}]
                exclusions: [{start: "2026-11-21T02:00:00Z", end: "2026-11-21T03:00:00Z"}]
                confineSpecUpdateRollout: false
                """);

        WindowState state = c.state(t("2026-11-21T02:30:00Z"));
        assertThat(state.exclusion()).isPresent();
        assertThat(state.specRolloutAllowed()).isFalse();
        assertThat(state.selfInitiatedAllowed()).isFalse();
    }

    @Test
    void withConfinementSpecChangesWaitForAWindow() {
        MaintenanceCalendar c = calendar("windows: [{schedule: \"0 0 1 ? * *\", duration: 4h, timeZone: UTC}]");

        assertThat(c.state(t("2026-11-21T12:00:00Z")).specRolloutAllowed()).isFalse();
        assertThat(c.state(t("2026-11-21T02:00:00Z")).specRolloutAllowed()).isTrue();
    }

    @Test
    void withoutConfinementSpecChangesRollAtOnceButNeedsUpdateMarksWait() {
        MaintenanceCalendar c = calendar("""
                windows: [{schedule: "0 0 1 ? * *", duration: 4h, timeZone: UTC}]
                confineSpecUpdateRollout: false
                """);

        WindowState outside = c.state(t("2026-11-21T12:00:00Z"));
        assertThat(outside.specRolloutAllowed()).isTrue();
        assertThat(outside.selfInitiatedAllowed()).isFalse();
        assertThat(outside.next().map(Window::open)).contains(t("2026-11-22T01:00:00Z"));
    }

    @Test
    void aCalendarExcludedBeyondTheHorizonReportsNoWindow() {
        MaintenanceCalendar c = calendar("""
                windows: [{schedule: "0 0 1 ? * *", duration: 1h, timeZone: UTC}]
                exclusions: [{start: "2026-01-01T00:00:00Z", end: "2036-01-01T00:00:00Z"}]
                """);

        assertThat(c.windows(t("2026-06-01T00:00:00Z"), 1)).isEmpty();
        assertThat(c.state(t("2026-06-01T00:00:00Z")).next()).isEmpty();
    }

    @Test
    void theLastCloseIsTheEndOfTheLatestWindowThatHasEndedAfterExclusions() {
        MaintenanceCalendar daily = calendar("timeWindow: {begin: \"220000+0100\", end: \"060000+0100\"}");
        MaintenanceCalendar cut = calendar("""
                timeWindow: {begin: "220000+0000", end: "060000+0000"}
                exclusions: [{start: "2026-11-21T03:00:00Z", end: "2026-11-21T12:00:00Z", reason: freeze}]
                """);

        assertThat(daily.lastClose(t("2026-11-21T12:00:00Z"))).contains(t("2026-11-21T05:00:00Z"));
        assertThat(daily.lastClose(t("2026-11-21T05:00:00Z"))).as("a window closing now has ended").contains(t("2026-11-21T05:00:00Z"));
        assertThat(daily.lastClose(t("2026-11-21T04:59:59Z"))).as("inside a window, the one before").contains(t("2026-11-20T05:00:00Z"));
        assertThat(cut.lastClose(t("2026-11-21T12:00:00Z"))).as("the exclusion ended the window early").contains(t("2026-11-21T03:00:00Z"));
        assertThat(calendar("").lastClose(t("2026-11-21T12:00:00Z"))).isEmpty();
    }
}
