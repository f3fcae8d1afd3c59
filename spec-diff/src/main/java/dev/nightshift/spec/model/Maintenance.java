package dev.nightshift.spec.model;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

/**
 * When Nightshift may disrupt nodes. With no {@code timeWindow} and no {@code windows}, it always may
 * (exclusions still block).
 */
public record Maintenance(
        Optional<DailyWindow> timeWindow,
        List<CronWindow> windows,
        List<Exclusion> exclusions,
        boolean confineSpecUpdateRollout) {

    public Maintenance {
        windows = List.copyOf(windows);
        exclusions = List.copyOf(exclusions);
    }

    /** Gardener's daily window, {@code begin}/{@code end} as {@code HHMMSS+ZZZZ}; may wrap midnight. */
    public record DailyWindow(LocalTime begin, LocalTime end, ZoneOffset offset) {
    }

    /** Opens at every fire time of a Quartz cron schedule, in a time zone, for a duration. */
    public record CronWindow(String schedule, Duration duration, ZoneId timeZone) {
    }

    /** A half-open interval [start, end) in which nothing disruptive happens. */
    public record Exclusion(Instant start, Instant end, String reason) {
    }
}
