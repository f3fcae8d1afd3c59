package dev.nightshift.agent.eta;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.TextStyle;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

import dev.nightshift.agent.window.Window;
import dev.nightshift.strategies.fleet.FleetWait;
import dev.nightshift.strategies.plan.PendingAction;

/**
 * When one pool's rollout is expected to finish.
 *
 * @param kind        what is done to the nodes, by the pool's strategy: {@code ROLL} (replaced),
 *                    {@code IN_PLACE} (updated in place) or {@code KUBELET_RESTART}
 * @param work        how long the rollout takes with no window ever closing: the work itself,
 *                    validations and waits between batches included
 * @param startsAt    when the pool's turn comes: the estimate's start, or when the pool before it finishes
 * @param completesAt when the last node is done, windows and pauses between them included; empty
 *                    when the simulation did not finish within {@link RolloutEta#HORIZON} (the
 *                    assumptions say why)
 * @param windows     the maintenance windows the rollout runs in, as the calendar gives them; empty
 *                    when the pool's rollout is not confined to windows (none configured,
 *                    {@code confineSpecUpdateRollout: false}, a rollout-outside-window annotation)
 * @param assumptions what the estimate rests on, one sentence each
 * @param waited      why the pool's start waits for other pools of the rollout, and until which finishes; empty when
 *                    it starts at the estimate's start
 */
public record PoolEta(String pool, PendingAction kind, int nodes, Duration work, Instant startsAt,
                      Optional<Instant> completesAt, List<Window> windows, List<String> assumptions, Optional<Wait> waited) {

    /**
     * Why a pool's turn comes later than the estimate's start, in the fleet's schedule ({@link FleetTurns}).
     *
     * @param reason    what it waited for: a turn of {@code rollout.concurrency.pools}, an earlier role, a pool its
     *                  {@code rollout.after} names
     * @param after     the pool whose finish let it start
     * @param poolsDone how many pools of the rollout are done when it starts
     */
    public record Wait(FleetWait.Reason reason, String after, int poolsDone) {
    }

    /** When a pool starts, and why not sooner. */
    record Start(Instant at, Optional<Wait> waited) {
    }

    /** A pool that starts at the estimate's start, or whose start is not explained. */
    public PoolEta(String pool, PendingAction kind, int nodes, Duration work, Instant startsAt, Optional<Instant> completesAt,
                   List<Window> windows, List<String> assumptions) {
        this(pool, kind, nodes, work, startsAt, completesAt, windows, assumptions, Optional.empty());
    }

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT);
    /** Windows named in the one-line form before the rest are counted only. */
    private static final int WINDOWS_SHOWN = 3;

    public PoolEta {
        windows = List.copyOf(windows);
        assumptions = List.copyOf(assumptions);
    }

    /** This estimate resting on {@code other} assumptions (a caller's own added to the estimate's). */
    public PoolEta withAssumptions(List<String> other) {
        return new PoolEta(pool, kind, nodes, work, startsAt, completesAt, windows, other, waited);
    }

    /**
     * When the pool starts and why not sooner, times in {@code zone}, for a pool that waits for others:
     * {@code starts Sat 2026-03-07 01:20 (UTC) when 10 pools are done (p009 frees a turn)}; empty for a pool that starts
     * at the estimate's start.
     */
    public Optional<String> startText(ZoneId zone) {
        return waited.map(w -> "starts " + when(startsAt, zone) + " (" + zone.getId() + ") when " + w.poolsDone()
                + (w.poolsDone() == 1 ? " pool is" : " pools are") + " done (" + w.after() + switch (w.reason()) {
                    case CONCURRENCY -> " frees a turn)";
                    case ROLE_ORDER -> ": pools of an earlier role go first)";
                    case AFTER -> ": named in rollout.after)";
                    case CLUSTER_BUDGET, ZONE_REPAIRS -> ")";
                });
    }

    /** {@link #work} in whole seconds, rounded up. */
    public long workSeconds() {
        return work.getSeconds() + (work.getNano() > 0 ? 1 : 0);
    }

    /**
     * The one-line form, times in {@code zone}:
     * {@code 40 nodes replaced, ~3h10m of work, in 2 windows: Sat 02:00–06:00, Sun 02:00–06:00 (Europe/Berlin)}.
     */
    public String text(ZoneId zone) {
        StringBuilder b = new StringBuilder();
        b.append(nodes).append(nodes == 1 ? " node " : " nodes ").append(verb()).append(", ~").append(shortDuration(work))
                .append(" of work");
        if (completesAt.isEmpty()) {
            return b.append(", not finished within ").append(RolloutEta.HORIZON.toDays()).append(" days").toString();
        }
        if (windows.isEmpty()) {
            return b.append(", done by ").append(when(completesAt.get(), zone)).append(" (").append(zone.getId()).append(')')
                    .toString();
        }
        b.append(", in ").append(windows.size()).append(windows.size() == 1 ? " window: " : " windows: ");
        b.append(windows.stream().limit(WINDOWS_SHOWN).map(w -> span(w, zone)).collect(Collectors.joining(", ")));
        if (windows.size() > WINDOWS_SHOWN) {
            b.append(", … (").append(windows.size() - WINDOWS_SHOWN).append(" more)");
        }
        return b.append(" (").append(zone.getId()).append(')').toString();
    }

    private String verb() {
        return switch (kind) {
            case ROLL -> "replaced";
            case IN_PLACE -> "updated in place";
            case KUBELET_RESTART -> "kubelet restarted";
            case NONE -> "unchanged";
        };
    }

    /** {@code Sat 02:00–06:00}; a window that ends on another day names it: {@code Sat 23:00–Sun 01:00}. */
    private static String span(Window w, ZoneId zone) {
        ZonedDateTime open = w.open().atZone(zone);
        String from = day(open) + " " + TIME.format(open);
        if (w.close().isEmpty()) {
            return from + "–(open-ended)";
        }
        ZonedDateTime close = w.close().get().atZone(zone);
        boolean sameDay = close.toLocalDate().equals(open.toLocalDate())
                || (close.toLocalTime().equals(java.time.LocalTime.MIDNIGHT) && close.toLocalDate().equals(open.toLocalDate().plusDays(1)));
        return from + "–" + (sameDay ? "" : day(close) + " ") + TIME.format(close);
    }

    private static String when(Instant t, ZoneId zone) {
        ZonedDateTime z = t.atZone(zone);
        return day(z) + " " + z.toLocalDate() + " " + TIME.format(z);
    }

    private static String day(ZonedDateTime t) {
        return t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
    }

    /** {@code 3h10m}, {@code 6m}, {@code 45s}, {@code 2d4h}: rounded to the unit shown last. */
    public static String shortDuration(Duration d) {
        long s = d.getSeconds() + (d.getNano() > 0 ? 1 : 0);
        if (s < 60) {
            return s + "s";
        }
        long m = Math.round(s / 60.0);
        if (m < 60) {
            return m + "m";
        }
        if (m < 48 * 60) {
            return m / 60 + "h" + (m % 60 == 0 ? "" : String.format(Locale.ROOT, "%02dm", m % 60));
        }
        long h = Math.round(m / 60.0);
        return h / 24 + "d" + (h % 24 == 0 ? "" : h % 24 + "h");
    }
}
