package dev.nightshift.agent.window;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.UnaryOperator;

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
     * The state with the opening of a window open before the look-back made plain: it is the start
     * of the look-back, counted from the instant asked, so two instants give two starts for the same
     * window (touching windows merge into one that never ends).
     */
    private static WindowState view(WindowState s) {
        UnaryOperator<Window> plain = w -> w.openedBeforeLookBack() ? new Window(Instant.MIN, true, w.close(), w.sources()) : w;
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
                assertThat(view(cached.state(t))).as("state at %s for %s", t, text).isEqualTo(view(calendar.state(t)));
                assertThat(cached.lastClose(t)).as("last close at %s for %s", t, text).isEqualTo(calendar.lastClose(t));
            }
        }
    }
}
