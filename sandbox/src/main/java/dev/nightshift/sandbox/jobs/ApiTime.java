package dev.nightshift.sandbox.jobs;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/** Times as the API server writes them ({@code metav1.Time}: RFC 3339, whole seconds, UTC). */
final class ApiTime {

    private ApiTime() {
    }

    static String format(Instant instant) {
        return instant.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    static Optional<Instant> parse(String value) {
        if (value == null || value.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.parse(value));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
