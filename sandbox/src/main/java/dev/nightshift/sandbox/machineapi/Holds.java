package dev.nightshift.sandbox.machineapi;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A test hook of the machine API server, for crash tests: the answers to chosen requests are held
 * back after the work is done, until {@link MachineApiServer#release()} or for a while, so that a
 * test in another process sees in the request log "the 2nd create's machine exists and its answer
 * is held" (a {@code held} line) and kills the agent then, as if the answer were lost.
 *
 * <p>Written {@code OP:N[:SECONDS]} separated by commas, e.g. {@code create:2,replace:1:30}: hold
 * the answer to the 2nd create (for the default {@value #DEFAULT_SECONDS} s) and to the 1st
 * replace (for 30 s). {@code OP} is one of list, create, replace, delete, update, patch; the Nth
 * counts the requests of that operation that reached the cloud (authorised and well formed),
 * repeats with a key seen before included, from the server's start.
 *
 * <p>{@code OP:N:lost} loses the answer instead: the work is done and a {@code 503} goes back, as
 * if the answer had been lost on the way, so that the agent, alive, sends the same request again
 * (logged {@code "phase": "lost-answer"}). With deterministic idempotency keys the repeat makes
 * nothing new; with random ones it would make a second machine, which the crash test must see.
 *
 * <p>{@code create:N:SECONDS:unlisted} holds the Nth create's answer and leaves its machine out of listings until the
 * answer is sent: a cloud whose listings show a machine only once the request that made it completes (as eventually
 * consistent listings do), so that an agent started after a crash there does not see the machine and sends the same
 * create again; its idempotency key must find the first machine.
 */
public final class Holds {

    static final long DEFAULT_SECONDS = 60;

    static final String LOST = "lost";

    static final String UNLISTED = "unlisted";

    private final Map<Operation, Map<Integer, Duration>> holds;
    private final Map<Operation, java.util.Set<Integer>> losses;
    private final java.util.Set<Integer> unlistedCreates;

    private Holds(Map<Operation, Map<Integer, Duration>> holds, Map<Operation, java.util.Set<Integer>> losses,
                  java.util.Set<Integer> unlistedCreates) {
        this.holds = holds;
        this.losses = losses;
        this.unlistedCreates = unlistedCreates;
    }

    /** Holds nothing. */
    public static Holds none() {
        return new Holds(Map.of(), Map.of(), java.util.Set.of());
    }

    /** Parses {@code OP:N[:SECONDS],…}; empty holds nothing; a wrong part is an {@link IllegalArgumentException} naming it. */
    public static Holds parse(String text) {
        Map<Operation, Map<Integer, Duration>> holds = new HashMap<>();
        Map<Operation, java.util.Set<Integer>> losses = new HashMap<>();
        java.util.Set<Integer> unlisted = new java.util.HashSet<>();
        if (text == null || text.isBlank()) {
            return none();
        }
        for (String part : text.split(",")) {
            String[] written = part.strip().split(":");
            boolean unlistedCreate = written.length == 4 && UNLISTED.equals(written[3]) && written[0].equals(Operation.CREATE.shortName());
            String[] fields = unlistedCreate ? java.util.Arrays.copyOf(written, 3) : written;
            if (fields.length < 2 || fields.length > 3) {
                throw new IllegalArgumentException("hold \"" + part.strip() + "\" is not OP:N, OP:N:SECONDS or OP:N:" + LOST
                        + " (a create also create:N:SECONDS:" + UNLISTED + ")");
            }
            Operation operation = Operation.of(fields[0]).orElseThrow(() -> new IllegalArgumentException("hold \"" + part.strip()
                    + "\": \"" + fields[0] + "\" is not one of " + Operation.names()));
            int ordinal = positive(fields[1], part);
            if (fields.length == 3 && LOST.equals(fields[2])) {
                losses.computeIfAbsent(operation, o -> new java.util.HashSet<>()).add(ordinal);
                continue;
            }
            if (unlistedCreate) {
                unlisted.add(ordinal);
            }
            long seconds = fields.length == 3 ? positive(fields[2], part) : DEFAULT_SECONDS;
            holds.computeIfAbsent(operation, o -> new HashMap<>()).put(ordinal, Duration.ofSeconds(seconds));
        }
        return new Holds(Map.copyOf(holds), Map.copyOf(losses), java.util.Set.copyOf(unlisted));
    }

    private static int positive(String number, String part) {
        try {
            int n = Integer.parseInt(number);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("hold \"" + part.strip() + "\": \"" + number + "\" is not a positive number");
    }

    /** How long to hold the answer to the {@code ordinal}-th request of {@code operation}, if at all. */
    Optional<Duration> of(Operation operation, int ordinal) {
        return Optional.ofNullable(holds.getOrDefault(operation, Map.of()).get(ordinal));
    }

    /** Whether the {@code ordinal}-th create's machine is left out of listings while its answer is held. */
    boolean unlisted(Operation operation, int ordinal) {
        return operation == Operation.CREATE && unlistedCreates.contains(ordinal);
    }

    /** Whether the answer to the {@code ordinal}-th request of {@code operation} is lost (a 503 after the work is done). */
    boolean loses(Operation operation, int ordinal) {
        return losses.getOrDefault(operation, java.util.Set.of()).contains(ordinal);
    }
}
