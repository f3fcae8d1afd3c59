package dev.nightshift.sandbox.machineapi;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Every request the machine API server answered (or holds the answer to), in memory and as JSON
 * lines in a file (the sandbox's {@code machine-api-requests.jsonl}), flushed per line so that a
 * test in another process can act on a line as soon as it is written ("the 2nd create's work is
 * done and its answer held": kill the agent now).
 */
public final class RequestLog implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Where the answer is. */
    public enum Phase {
        /** Sent at once. */
        ANSWERED,
        /** The work is done and the answer is held back by a test hook ({@link Holds}); a {@link #RELEASED} or {@link #LOST} line follows. */
        HELD,
        /** A held answer, sent at last. */
        RELEASED,
        /** An answer that could not be sent: the client had gone (killed while its answer was held, say). */
        LOST,
        /**
         * The work is done and the answer is replaced by a 503 by a test hook ({@link Holds}), as if lost on the way: the
         * client sends the same request again. Logged with the real answer's status and machine; an {@link #ANSWERED} line
         * with the 503 follows.
         */
        LOST_ANSWER;

        public String json() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /**
     * One line of the log.
     *
     * @param operation      the OpenAPI operation ({@code createMachine}, …), or null for a path the API does not have
     * @param ordinal        the how-manieth request of this operation it is (counted as {@link Holds} counts), 0 when not counted
     * @param idempotencyKey the request's {@code Idempotency-Key} header, or null
     * @param machine        the machine the answer names (the new one for a create or replace), or null
     */
    public record Entry(long sequence, Instant time, String method, String path, String operation, int ordinal,
                        String idempotencyKey, int status, String machine, Phase phase) {

        public String json() {
            ObjectNode o = JSON.createObjectNode();
            o.put("sequence", sequence);
            o.put("time", time.toString());
            o.put("method", method);
            o.put("path", path);
            o.put("operation", operation);
            o.put("ordinal", ordinal);
            o.put("idempotencyKey", idempotencyKey);
            o.put("status", status);
            o.put("machine", machine);
            o.put("phase", phase.json());
            return o.toString();
        }
    }

    private final AppendedLog<Entry> log;

    /** {@code file}: where to append the lines as well (none: memory only). */
    public RequestLog(Optional<Path> file) {
        this.log = new AppendedLog<>(file, Entry::json);
    }

    Entry add(Instant time, String method, String path, String operation, int ordinal, String idempotencyKey,
                           int status, String machine, Phase phase) {
        return log.add(sequence -> new Entry(sequence, time, method, path, operation, ordinal, idempotencyKey, status, machine,
                phase));
    }

    /** A copy of every entry so far. */
    public List<Entry> entries() {
        return log.entries();
    }

    @Override
    public void close() {
        log.close();
    }
}
