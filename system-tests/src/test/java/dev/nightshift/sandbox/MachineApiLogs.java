package dev.nightshift.sandbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The sandbox's machine-API logs as a test in another process reads them while the sandbox runs:
 * {@code machine-api-requests.jsonl} (every request and where its answer is) and
 * {@code machine-log.jsonl} (what happened to the machines). Only whole lines are read: the line
 * the sandbox is writing at that instant is left for the next read.
 */
final class MachineApiLogs {

    static final String REQUESTS = "machine-api-requests.jsonl";
    static final String MACHINES = "machine-log.jsonl";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A line of the request log ({@code RequestLog.Entry}). */
    record Request(long sequence, String method, String path, String operation, int ordinal, String idempotencyKey, int status,
                   String machine, String phase, java.time.Instant time) {

        Request(long sequence, String method, String path, String operation, int ordinal, String idempotencyKey, int status,
                String machine, String phase) {
            this(sequence, method, path, operation, ordinal, idempotencyKey, status, machine, phase, null);
        }

        static Request of(JsonNode line) {
            return new Request(line.path("sequence").asLong(), text(line, "method"), text(line, "path"), text(line, "operation"),
                    line.path("ordinal").asInt(), text(line, "idempotencyKey"), line.path("status").asInt(), text(line, "machine"),
                    text(line, "phase"), line.hasNonNull("time") ? java.time.Instant.parse(line.get("time").asText()) : null);
        }
    }

    /** A line of the machine log ({@code MachineLog.Entry}); {@code event} as the log spells it ({@code created}, …). */
    record MachineEvent(long sequence, String event, String machine, String pool, String nodeName, String idempotencyKey,
                        String replaces, String replacedBy) {

        static MachineEvent of(JsonNode line) {
            return new MachineEvent(line.path("sequence").asLong(), text(line, "event"), text(line, "machine"), text(line, "pool"),
                    text(line, "nodeName"), text(line, "idempotencyKey"), text(line, "replaces"), text(line, "replacedBy"));
        }
    }

    private final Path dir;

    /** {@code dir}: the sandbox's directory (where its kubeconfig is). */
    MachineApiLogs(Path dir) {
        this.dir = dir;
    }

    List<Request> requests() {
        return lines(dir.resolve(REQUESTS)).stream().map(Request::of).toList();
    }

    List<MachineEvent> machines() {
        return lines(dir.resolve(MACHINES)).stream().map(MachineEvent::of).toList();
    }

    /** The last {@code n} lines of a log as written, without the request log's listings, for a failure message. */
    String tail(String log, int n) {
        List<String> lines = wholeLines(dir.resolve(log)).stream().filter(l -> !l.contains("\"listMachines\"")).toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    }

    private static List<JsonNode> lines(Path file) {
        List<JsonNode> parsed = new ArrayList<>();
        for (String line : wholeLines(file)) {
            try {
                parsed.add(JSON.readTree(line));
            } catch (JsonProcessingException e) {
                throw new AssertionError(file + ": a line that is not JSON: " + line, e);
            }
        }
        return parsed;
    }

    private static List<String> wholeLines(Path file) {
        if (!Files.exists(file)) {
            return List.of();
        }
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            int end = text.lastIndexOf('\n');
            return end < 0 ? List.of() : text.substring(0, end).lines().filter(l -> !l.isBlank()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String text(JsonNode line, String field) {
        JsonNode value = line.path(field);
        return value.isNull() || value.isMissingNode() ? null : value.asText();
    }
}
