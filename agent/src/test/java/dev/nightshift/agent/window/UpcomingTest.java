package dev.nightshift.agent.window;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.Maintenance;

/** The two weeks ahead that the web view draws: every window in them, exclusions cut out, and the exclusions themselves. */
class UpcomingTest {

    private static final Instant NOW = Instant.parse("2026-11-27T12:00:00Z");
    private static final Duration TWO_WEEKS = Duration.ofDays(14);

    private static Optional<Maintenance> maintenance(String text) {
        String yaml = """
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: c}
                spec:
                  kubernetes: {version: "1.31.4"}
                  maintenance:
                """ + text.indent(4);
        LoadResult loaded = new SpecLoader().load(Map.of("c.yaml", yaml.getBytes(StandardCharsets.UTF_8)));
        assertThat(loaded.errors()).isEmpty();
        return loaded.specs().clusters().get(0).maintenance();
    }

    @Test
    void aNightlyWindowGivesFourteenWindowsWithTheExcludedNightCutOutAndTheExclusionListed() {
        MaintenanceCalendar calendar = new MaintenanceCalendar(maintenance("""
                timeWindow: {begin: "220000+0000", end: "040000+0000"}
                exclusions:
                  - {start: "2026-12-01T00:00:00Z", end: "2026-12-02T00:00:00Z", reason: release freeze}
                  - {start: "2027-03-01T00:00:00Z", end: "2027-03-02T00:00:00Z", reason: too far}
                """));

        Upcoming upcoming = calendar.upcoming(NOW, TWO_WEEKS, 500);

        assertThat(upcoming.from()).isEqualTo(NOW);
        assertThat(upcoming.until()).isEqualTo(NOW.plus(TWO_WEEKS));
        assertThat(upcoming.truncated()).isFalse();
        // 14 nights from the 27th, the night of 30 Nov → 1 Dec cut at midnight and that of 1 → 2 Dec starting at midnight.
        assertThat(upcoming.windows()).hasSize(14);
        assertThat(upcoming.windows().get(0).open()).isEqualTo(Instant.parse("2026-11-27T22:00:00Z"));
        assertThat(upcoming.windows()).anySatisfy(w -> {
            assertThat(w.open()).isEqualTo(Instant.parse("2026-11-30T22:00:00Z"));
            assertThat(w.close()).hasValue(Instant.parse("2026-12-01T00:00:00Z"));
        });
        assertThat(upcoming.windows()).anySatisfy(w -> assertThat(w.open()).isEqualTo(Instant.parse("2026-12-02T00:00:00Z")));
        assertThat(upcoming.windows()).allSatisfy(w -> assertThat(w.open()).isBefore(upcoming.until()));
        assertThat(upcoming.exclusions()).extracting(Maintenance.Exclusion::reason).containsExactly("release freeze");
    }

    @Test
    void windowsEveryFewMinutesStopAtTheCapAndSaySo() {
        MaintenanceCalendar calendar = new MaintenanceCalendar(maintenance("""
                windows: [{schedule: "0 */5 * * * ?", duration: 1m, timeZone: UTC}]
                """));

        Upcoming upcoming = calendar.upcoming(NOW, TWO_WEEKS, 50);

        assertThat(upcoming.windows()).hasSize(50);
        assertThat(upcoming.truncated()).isTrue();
    }

    @Test
    void anAlwaysOpenCalendarHasNoWindowsButItsExclusions() {
        MaintenanceCalendar calendar = new MaintenanceCalendar(maintenance("""
                exclusions: [{start: "2026-11-28T00:00:00Z", end: "2026-11-29T00:00:00Z", reason: weekend}]
                """));

        Upcoming upcoming = calendar.upcoming(NOW, TWO_WEEKS, 500);

        assertThat(upcoming.windows()).isEmpty();
        assertThat(upcoming.exclusions()).hasSize(1);
    }

    @Test
    void theCacheAnswersTheSameAsTheCalendar() {
        Optional<Maintenance> m = maintenance("""
                windows: [{schedule: "0 0 2 ? * *", duration: 2h, timeZone: Europe/Berlin}]
                """);

        assertThat(new CachedCalendar(m).upcoming(NOW)).isEqualTo(new MaintenanceCalendar(m).upcoming(NOW, CachedCalendar.UPCOMING,
                CachedCalendar.UPCOMING_WINDOWS));
    }
}
