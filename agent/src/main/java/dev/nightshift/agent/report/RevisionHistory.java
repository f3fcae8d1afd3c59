package dev.nightshift.agent.report;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A pool's last accepted revisions, newest last, as {@code kubectl rollout history} lists a
 * Deployment's: each the commit that brought the pool a new target, its roll hash, when it was
 * accepted, and how it went. Kept in the pool's record (data key {@code history}), at most the
 * pool's {@code revisionHistoryLimit} entries; {@code nightshift history} prints it.
 *
 * @param entries oldest first
 */
public record RevisionHistory(List<Entry> entries) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public static final RevisionHistory EMPTY = new RevisionHistory(List.of());

    public RevisionHistory {
        entries = List.copyOf(entries);
    }

    /** How a revision went. */
    public enum Outcome {
        /** Being rolled out. */
        IN_PROGRESS,
        /** Every node of the pool ran it. */
        CURRENT,
        /** Its rollout halted (failed health checks or maxFailedMachines). */
        HALTED,
        /** Another revision was accepted before it was carried out. */
        SUPERSEDED
    }

    /**
     * @param revision the commit that brought the pool this target
     * @param rollHash the roll hash its nodes are brought to ({@code version:value})
     * @param note     for a halted revision, why ({@code error-rate (0.07, must be <= 0.01) in wave 1}); else empty
     */
    public record Entry(String revision, String rollHash, Instant acceptedAt, Outcome outcome, String note) {
    }

    /**
     * The history after a reconcile saw the pool at target {@code revision}: a new revision is added (the one before, if
     * still in progress, superseded) and the oldest dropped past {@code limit}; the newest one's outcome follows what
     * was seen. The same history when nothing changed, so that the record is not written again.
     */
    public RevisionHistory seen(String revision, String rollHash, Instant now, Outcome outcome, String note, int limit) {
        List<Entry> next = new ArrayList<>(entries);
        Optional<Entry> last = next.isEmpty() ? Optional.empty() : Optional.of(next.get(next.size() - 1));
        if (last.isEmpty() || !last.get().revision().equals(revision)) {
            last.filter(e -> e.outcome() == Outcome.IN_PROGRESS).ifPresent(e -> next.set(next.size() - 1,
                    new Entry(e.revision(), e.rollHash(), e.acceptedAt(), Outcome.SUPERSEDED, "")));
            next.add(new Entry(revision, rollHash, now, outcome, note));
        } else if (last.get().outcome() != outcome || !last.get().note().equals(note)) {
            Entry e = last.get();
            next.set(next.size() - 1, new Entry(e.revision(), e.rollHash(), e.acceptedAt(), outcome, note));
        }
        while (next.size() > Math.max(1, limit)) {
            next.remove(0);
        }
        return new RevisionHistory(next);
    }

    public String write() {
        return array().toString();
    }

    /** The entries as a JSON array, for the record and {@code nightshift history --output json}. */
    public ArrayNode array() {
        ArrayNode a = JSON.createArrayNode();
        for (Entry e : entries) {
            ObjectNode o = a.addObject();
            o.put("revision", e.revision());
            o.put("rollHash", e.rollHash());
            o.put("acceptedAt", e.acceptedAt().toString());
            o.put("outcome", e.outcome().name());
            o.put("note", e.note());
        }
        return a;
    }

    /** The record's history; empty when it has none or it cannot be read (it starts again). */
    public static RevisionHistory read(String text) {
        if (text == null || text.isBlank()) {
            return EMPTY;
        }
        try {
            List<Entry> entries = new ArrayList<>();
            for (JsonNode o : JSON.readTree(text)) {
                entries.add(new Entry(o.path("revision").asText(), o.path("rollHash").asText(), Instant.parse(o.path("acceptedAt").asText()),
                        Outcome.valueOf(o.path("outcome").asText()), o.path("note").asText("")));
            }
            return new RevisionHistory(entries);
        } catch (IOException | RuntimeException e) {
            return EMPTY;
        }
    }
}
