package dev.nightshift.sandbox.embedded;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Every request the embedded cluster answered, in the order it handled them. Appends happen while the
 * dispatcher holds its lock, so the order here is the order in which the requests changed the store.
 */
final class RequestLog {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<RecordedRequest> requests = new ArrayList<>();
    private long sequence;
    /** Where each request is also written as a JSON line, for a reader in another process; none by default. */
    private BufferedWriter lines;

    synchronized void add(Instant time, String method, String path, String contentType, String body, int status,
            String userAgent) {
        RecordedRequest request = new RecordedRequest(++sequence, time, method, path, contentType, body, status, userAgent);
        requests.add(request);
        if (lines != null) {
            write(request);
        }
    }

    /**
     * From now on also appends every request to {@code file} as a JSON line ({@code sequence}, {@code time},
     * {@code method}, {@code path}, {@code status}, {@code userAgent}; no body), flushed line by line.
     */
    synchronized void writeTo(Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            lines = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open " + file + " to append to", e);
        }
    }

    private void write(RecordedRequest request) {
        ObjectNode line = JSON.createObjectNode();
        line.put("sequence", request.sequence());
        line.put("time", request.time().toString());
        line.put("method", request.method());
        line.put("path", request.path());
        line.put("status", request.status());
        line.put("userAgent", request.userAgent());
        try {
            lines.write(line.toString());
            lines.newLine();
            lines.flush();
        } catch (IOException e) {
            // Evidence for a reader elsewhere, not part of the cluster: the cluster goes on without it.
            lines = null;
        }
    }

    synchronized void close() {
        if (lines != null) {
            try {
                lines.close();
            } catch (IOException e) {
                // nothing more to write
            }
            lines = null;
        }
    }

    /** A copy: later requests do not change it. */
    synchronized List<RecordedRequest> snapshot() {
        return List.copyOf(requests);
    }

    /** Forgets what was logged; sequence numbers keep counting so that entries never repeat a number. */
    synchronized void clear() {
        requests.clear();
    }
}
