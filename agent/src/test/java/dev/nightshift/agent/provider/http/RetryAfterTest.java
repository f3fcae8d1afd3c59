package dev.nightshift.agent.provider.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

class RetryAfterTest {

    private static final Instant NOW = Instant.parse("2026-11-24T12:00:00Z");

    @Test
    void secondsAreADuration() {
        assertThat(RetryAfter.parse("120", NOW)).contains(Duration.ofSeconds(120));
        assertThat(RetryAfter.parse(" 0 ", NOW)).contains(Duration.ZERO);
    }

    @Test
    void anHttpDateIsTheTimeUntilThenByTheClock() {
        assertThat(RetryAfter.parse("Tue, 24 Nov 2026 12:00:45 GMT", NOW)).contains(Duration.ofSeconds(45));
    }

    @Test
    void aDateInThePastMeansNoWait() {
        assertThat(RetryAfter.parse("Tue, 24 Nov 2026 11:00:00 GMT", NOW)).contains(Duration.ZERO);
    }

    @Test
    void anythingElseIsIgnored() {
        assertThat(RetryAfter.parse(null, NOW)).isEmpty();
        assertThat(RetryAfter.parse("", NOW)).isEmpty();
        assertThat(RetryAfter.parse("-5", NOW)).isEmpty();
        assertThat(RetryAfter.parse("1.5", NOW)).isEmpty();
        assertThat(RetryAfter.parse("soon", NOW)).isEmpty();
        assertThat(RetryAfter.parse("99999999999999999999999", NOW)).isEmpty();
    }
}
