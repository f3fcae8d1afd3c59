package dev.nightshift.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.window.MaintenanceCalendar;
import picocli.CommandLine;

class WindowsCommandTest {

    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(Clock clock, String... args) {
        CommandLine cli = new CommandLine(new WindowsCommand(clock));
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return cli.execute(args);
    }

    private int run(String... args) {
        return run(Clock.systemUTC(), args);
    }

    private JsonNode json() throws IOException {
        return new ObjectMapper().readTree(out.toString());
    }

    private Path spec(String maintenance) throws IOException {
        Path file = tmp.resolve("cluster.yaml");
        Files.writeString(file, """
                apiVersion: nightshift.dev/v1alpha1
                kind: Cluster
                metadata: {name: prod}
                spec:
                  kubernetes: {version: "1.31.4"}
                """ + (maintenance.isEmpty() ? "" : "  maintenance:\n" + maintenance.indent(4)));
        return file;
    }

    @Test
    void jsonListsTheNextWindowsInUtcWithTheirSource() throws IOException {
        int code = run("--spec", "../examples/single", "--from", "2026-11-21T00:00:00Z", "--count", "3", "--output", "json");

        assertThat(code).isZero();
        assertThat(out.toString().trim()).isEqualTo("{\"alwaysOpen\":false,\"windows\":["
                + "{\"open\":\"2026-11-21T01:00:00Z\",\"close\":\"2026-11-21T05:00:00Z\",\"source\":\"windows[0]\"},"
                + "{\"open\":\"2026-11-21T21:00:00Z\",\"close\":\"2026-11-21T22:00:00Z\",\"source\":\"timeWindow\"},"
                + "{\"open\":\"2026-11-22T01:00:00Z\",\"close\":\"2026-11-22T05:00:00Z\",\"source\":\"windows[0]\"}]}");
    }

    @Test
    void exclusionsAreCutOutOfTheListedWindows() throws IOException {
        // examples/single excludes [2026-11-27T00:00Z, 2026-11-30T23:59:59Z): the daily 21:00-22:00Z windows of
        // the 27th to the 30th and the weekend windows of Saturday 28 and Sunday 29 disappear.
        run("--spec", "../examples/single", "--from", "2026-11-26T12:00:00Z", "--count", "3", "--output", "json");

        assertThat(json().get("windows")).extracting(w -> w.get("open").asText()).containsExactly(
                "2026-11-26T21:00:00Z", "2026-12-01T21:00:00Z", "2026-12-02T21:00:00Z");
    }

    @Test
    void backToBackWindowsAreListedAsOneWithTheRealOpeningOfTheFirst() throws IOException {
        // Monday to Friday, each day whole: Monday 00:00 to Saturday 00:00 is one window, asked about on Friday noon.
        Path file = spec("windows: [{schedule: \"0 0 0 ? * MON-FRI\", duration: 24h, timeZone: UTC}]");

        run("--spec", file.toString(), "--from", "2026-11-20T12:00:00Z", "--count", "2", "--output", "json");

        assertThat(out.toString().trim()).isEqualTo("{\"alwaysOpen\":false,\"windows\":["
                + "{\"open\":\"2026-11-16T00:00:00Z\",\"close\":\"2026-11-21T00:00:00Z\",\"source\":\"windows[0]\"},"
                + "{\"open\":\"2026-11-23T00:00:00Z\",\"close\":\"2026-11-28T00:00:00Z\",\"source\":\"windows[0]\"}]}");
    }

    @Test
    void textShowsTheDayAWindowLongerThanADayCloses() throws IOException {
        Path file = spec("windows: [{schedule: \"0 0 0 ? * MON-FRI\", duration: 24h, timeZone: UTC}]");

        run("--spec", file.toString(), "--from", "2026-11-20T12:00:00Z", "--count", "1");

        assertThat(out.toString()).contains("2026-11-16 00:00:00Z", "2026-11-21 00:00:00Z", "Mon 2026-11-16 00:00-Sat 2026-11-21 00:00 UTC");
    }

    @Test
    void theDemoCalendarIsOneWindowMarkedOpenBeforeTheLookBackAndBeyondTheHorizon() throws IOException {
        // Hourly windows an hour long touch: one window that opened before any look-back and never closes.
        // The look-back is 32 days plus the longest window (1h): 2026-11-23T10:00Z - 32d - 1h.
        int code = run("--spec", "../examples/demo", "--from", "2026-11-23T10:00:00Z", "--count", "3", "--output", "json");

        assertThat(code).isZero();
        assertThat(out.toString().trim()).isEqualTo("{\"alwaysOpen\":false,\"windows\":["
                + "{\"open\":\"2026-10-22T09:00:00Z\",\"close\":null,\"source\":\"windows[0]\","
                + "\"openedBeforeLookBack\":true,\"closesBeyondHorizon\":true}]}");
    }

    @Test
    void textMarksTheDemoWindowsBoundsAsLimitsNotDates() throws IOException {
        run("--spec", "../examples/demo", "--from", "2026-11-23T10:00:00Z");

        assertThat(out.toString())
                .contains("2026-10-22 09:00:00Z*", "beyond horizon",
                        "* already open then, at the start of the look-back (32 days before --from, plus the longest window): it opened earlier",
                        "beyond horizon: still open at 2029-11-25 10:00:00Z, 1098 days after --from")
                .doesNotContain("2032");
    }

    @Test
    void helpNamesTheLookBackAndTheHorizonTheCalendarUses() {
        run("--help");

        assertThat(out.toString().replaceAll("\\s+", " ")).contains(
                MaintenanceCalendar.LOOKBACK.toDays() + " days before --from",
                MaintenanceCalendar.HORIZON.toDays() + " days after --from");
    }

    @Test
    void noMaintenanceIsAlwaysOpenWithNoWindows() throws IOException {
        int code = run("--spec", spec("").toString(), "--output", "json");

        assertThat(code).isZero();
        assertThat(json().get("alwaysOpen").asBoolean()).isTrue();
        assertThat(json().get("windows")).isEmpty();
    }

    @Test
    void textSaysLoudlyWhenThereIsNoWindow() throws IOException {
        run("--spec", spec("").toString());

        assertThat(out.toString()).contains("AT ANY TIME");
    }

    @Test
    void textShowsUtcAndTheWindowsZone() throws IOException {
        run("--spec", "../examples/single", "--from", "2026-11-21T00:00:00Z", "--count", "1");

        assertThat(out.toString()).contains("2026-11-21 01:00:00Z", "2026-11-21 05:00:00Z", "Sat 2026-11-21 02:00-06:00 Europe/Berlin",
                "windows[0]");
    }

    @Test
    void fromDefaultsToNow() throws IOException {
        Clock clock = Clock.fixed(Instant.parse("2026-11-21T00:00:00Z"), ZoneOffset.UTC);

        run(clock, "--spec", "../examples/single", "--count", "1", "--output", "json");

        assertThat(json().get("windows").get(0).get("open").asText()).isEqualTo("2026-11-21T01:00:00Z");
    }

    @Test
    void anInvalidSpecExitsTwo() throws IOException {
        int code = run("--spec", spec("windows: [{schedule: \"0 2 * * 6\", duration: 4h}]").toString());

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("cluster.yaml:7:").contains("5-field Unix cron").contains("0 0 2 ? * SAT");
    }

    @Test
    void severalClustersNeedTheClusterOption() throws IOException {
        Path dir = tmp.resolve("two");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("a.yaml"), Files.readString(spec("")));
        Files.writeString(dir.resolve("b.yaml"), Files.readString(spec("")).replace("name: prod", "name: staging"));

        assertThat(run("--spec", dir.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("--cluster");
        assertThat(run("--spec", dir.toString(), "--cluster", "staging")).isZero();
    }

    @Test
    void aBadFromIsAUsageError() {
        int code = run("--spec", "../examples/single", "--from", "tomorrow");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("ISO-8601");
    }
}
