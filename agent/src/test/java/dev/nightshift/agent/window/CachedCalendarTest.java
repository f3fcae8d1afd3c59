package dev.nightshift.agent.window;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.nightshift.spec.load.LoadResult;
import dev.nightshift.spec.load.SpecLoader;
import dev.nightshift.spec.model.Maintenance;

/** The cache answers exactly what the calendar answers, at every instant, in any order of asking. */
class CachedCalendarTest {

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

    /**
     * The state with the bounds of a window that never ends in view (touching windows merge into
     * one) made plain: the calendar reports such a window as opening at its look-back limit and
     * closing at its horizon, both counted from the instant asked, so two instants give different
     * artefacts for the same endless window.
     */
    private static WindowState view(WindowState s, Instant t) {
        java.util.function.UnaryOperator<Window> plain = w -> new Window(
                w.open().isBefore(t.minus(MaintenanceCalendar.LOOKBACK).plus(Duration.ofDays(1))) ? Instant.MIN : w.open(),
                w.close().isAfter(t.plus(Duration.ofDays(366))) ? Instant.MAX : w.close(), w.sources());
        return new WindowState(s.alwaysOpen(), s.open(), s.exclusion(), s.current().map(plain), s.next().map(plain),
                s.confineSpecUpdateRollout());
    }

    @Test
    void answersAsTheCalendarDoesAcrossWindowsExclusionsAndDaylightSaving() {
        for (String text : new String[] {
                """
                timeWindow: {begin: "220000+0100", end: "060000+0100"}
                windows: [{schedule: "0 30 2 ? * SUN", duration: 2h, timeZone: Europe/Berlin}]
                exclusions: [{start: "2026-10-24T23:00:00Z", end: "2026-10-25T03:00:00Z", reason: freeze}]
                """,
                """
                windows: [{schedule: "0 0 * * * ?", duration: 1h, timeZone: UTC}]
                """,
                """
                confineSpecUpdateRollout: false
                exclusions: [{start: "2026-10-24T12:00:00Z", end: "2026-10-24T13:00:00Z"}]
                """}) {
            Optional<Maintenance> m = maintenance(text);
            MaintenanceCalendar calendar = new MaintenanceCalendar(m);
            CachedCalendar cached = new CachedCalendar(m);
            Random random = new Random(42);
            Instant t = Instant.parse("2026-10-23T20:00:00Z");
            // Touching windows are slow to compute without the cache (years of them): fewer steps there.
            int steps = text.contains("0 0 * * * ?") ? 15 : 400;
            for (int i = 0; i < steps; i++) {
                // Forwards mostly, in steps from a second to an hour, sometimes back a little.
                t = t.plus(Duration.ofSeconds(random.nextInt(3600) + 1)).minus(Duration.ofSeconds(random.nextInt(10) == 0 ? 5400 : 0));
                assertThat(view(cached.state(t), t)).as("state at %s for %s", t, text).isEqualTo(view(calendar.state(t), t));
                assertThat(cached.lastClose(t)).as("last close at %s for %s", t, text).isEqualTo(calendar.lastClose(t));
            }
        }
    }
}
