package dev.nightshift.sandbox.machineapi;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What happened to the machine-API cloud's machines, in the order it happened: in memory, and as
 * JSON lines in a file (the sandbox's {@code machine-log.jsonl}) that a test in another process
 * reads to judge a crash test (no replacement made twice, never more machines than allowed).
 */
public final class MachineLog implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** What happened to a machine; JSON spells it in lower case with hyphens ({@code update-started}). */
    public enum Event {
        /** Put into the cloud running, its node registered at once (the sandbox's initial pools). */
        SEEDED,
        /** Asked for (a create, or the new half of a replace); {@code creating}. */
        CREATED,
        /** Its node registered Ready; {@code running}. */
        REGISTERED,
        UPDATE_STARTED,
        UPDATED,
        /** {@code failed}, with the message. */
        FAILED,
        /** Termination started (a delete, or the old half of a replace); {@code deleting}. */
        DELETING,
        /** Its node deleted and the machine forgotten: listings no longer show it. */
        GONE,
        /** The old half of a replace; {@code replacedBy} names the new machine. */
        REPLACED,
        /** Its annotations merge-patched. */
        PATCHED;

        public String json() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /**
     * One line of the log.
     *
     * @param idempotencyKey the key of the request that caused it; null for what the cloud did by itself
     * @param replaces       for {@link Event#CREATED} of a replacement: the machine it replaces
     * @param replacedBy     for {@link Event#REPLACED}: the replacement
     * @param detail         the update's operation, or why it failed
     */
    public record Entry(long sequence, Instant time, Event event, String machine, String pool, String nodeName,
                        String idempotencyKey, String replaces, String replacedBy, String detail) {

        public String json() {
            ObjectNode o = JSON.createObjectNode();
            o.put("sequence", sequence);
            o.put("time", time.toString());
            o.put("event", event.json());
            o.put("machine", machine);
            o.put("pool", pool);
            o.put("nodeName", nodeName);
            o.put("idempotencyKey", idempotencyKey);
            o.put("replaces", replaces);
            o.put("replacedBy", replacedBy);
            o.put("detail", detail);
            return o.toString();
        }
    }

    private final AppendedLog<Entry> log;

    /** {@code file}: where to append the lines as well (none: memory only). */
    public MachineLog(Optional<Path> file) {
        this.log = new AppendedLog<>(file, Entry::json);
    }

    Entry add(Instant time, Event event, String machine, String pool, String nodeName, String idempotencyKey,
                           String replaces, String replacedBy, String detail) {
        return log.add(sequence -> new Entry(sequence, time, event, machine, pool, nodeName, idempotencyKey, replaces, replacedBy,
                detail));
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
