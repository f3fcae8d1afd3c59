package dev.nightshift.agent.provider.http;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * The {@code Retry-After} header (RFC 9110, section 10.2.3): a number of seconds, or an HTTP-date
 * ({@code Sun, 06 Nov 1994 08:49:37 GMT}) read against the injected clock. Anything else is
 * ignored (the client then uses its own backoff), as is a date in the past (no wait).
 */
final class RetryAfter {

    private RetryAfter() {
    }

    static Optional<Duration> parse(String header, Instant now) {
        if (header == null || header.isBlank()) {
            return Optional.empty();
        }
        String value = header.strip();
        if (value.chars().allMatch(Character::isDigit)) {
            try {
                return Optional.of(Duration.ofSeconds(Long.parseLong(value)));
            } catch (NumberFormatException | ArithmeticException e) {
                return Optional.empty(); // absurdly long: use our own backoff
            }
        }
        try {
            Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration wait = Duration.between(now, at);
            return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
