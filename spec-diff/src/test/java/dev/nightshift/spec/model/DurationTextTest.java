package dev.nightshift.spec.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationTextTest {

    @ParameterizedTest(name = "{0} = {1}s")
    @CsvSource({
            "90s,      90",
            "15m,      900",
            "2h,       7200",
            "1h30m,    5400",
            "1h30m15s, 5415",
            "1h15s,    3615",
            "0s,       0",
            "120m,     7200",
    })
    void parseReadsHoursMinutesSeconds(String text, long seconds) {
        assertThat(DurationText.parse(text)).hasValue(Duration.ofSeconds(seconds));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "5d", "1.5h", "90", "30m1h", "1h 30m", "-5m", "h", "1H", "PT15M", "15 m", "1w"})
    void parseRefusesAnythingElse(String text) {
        assertThat(DurationText.parse(text)).isEmpty();
    }

    @Test
    void ofThrowsOnAMalformedDuration() {
        assertThatThrownBy(() -> DurationText.of("5d")).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest(name = "{0}s -> {1}")
    @CsvSource({
            "90,   1m30s",
            "900,  15m",
            "7200, 2h",
            "5400, 1h30m",
            "3601, 1h1s",
            "0,    0s",
            "59,   59s",
    })
    void formatPrintsTheShortestSpelling(long seconds, String text) {
        assertThat(DurationText.format(Duration.ofSeconds(seconds))).isEqualTo(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"90s", "15m", "2h", "1h30m", "1h1m1s", "100h"})
    void formatThenParseRoundTrips(String text) {
        Duration d = DurationText.of(text);

        assertThat(DurationText.parse(DurationText.format(d))).hasValue(d);
    }
}
