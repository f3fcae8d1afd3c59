package dev.nightshift.sandbox.machineapi;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file of JSON lines, appended and flushed line by line: a test in another process reads it
 * while the sandbox runs (to judge a crash test), so every line it sees is whole.
 */
final class JsonLines implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(JsonLines.class);

    private final Optional<BufferedWriter> writer;
    private final String name;

    private JsonLines(Optional<BufferedWriter> writer, String name) {
        this.writer = writer;
        this.name = name;
    }

    /** Appends to {@code file} (created if missing); none: lines are kept in memory only. */
    static JsonLines to(Optional<Path> file) {
        if (file.isEmpty()) {
            return new JsonLines(Optional.empty(), "memory");
        }
        try {
            Path parent = file.get().toAbsolutePath().getParent();
            Files.createDirectories(parent);
            return new JsonLines(Optional.of(Files.newBufferedWriter(file.get(), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND)), file.get().toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open " + file.get() + " to append to", e);
        }
    }

    /** Callers hold their own lock, so lines keep their order. */
    void append(String line) {
        writer.ifPresent(w -> {
            try {
                w.write(line);
                w.newLine();
                w.flush();
            } catch (IOException e) {
                // The log is evidence for tests, not part of the cloud: the cloud goes on.
                LOG.warn("cannot append to {}: {}", name, e.getMessage());
            }
        });
    }

    @Override
    public void close() {
        writer.ifPresent(w -> {
            try {
                w.close();
            } catch (IOException e) {
                LOG.warn("cannot close {}: {}", name, e.getMessage());
            }
        });
    }
}
