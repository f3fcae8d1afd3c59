package dev.nightshift.sandbox.machineapi;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * Entries numbered in the order they came, kept in memory and appended to a {@link JsonLines}
 * file as they come: what the machine log and the request log both are.
 */
final class AppendedLog<E> implements AutoCloseable {

    private final List<E> entries = new ArrayList<>();
    private final JsonLines file;
    private final Function<E, String> json;
    private long sequence;

    /** {@code file}: where to append the lines as well (none: memory only). */
    AppendedLog(Optional<Path> file, Function<E, String> json) {
        this.file = JsonLines.to(file);
        this.json = json;
    }

    /** The entry {@code entry} makes of the next sequence number, kept and appended in that order. */
    synchronized E add(LongFunction<E> entry) {
        E made = entry.apply(++sequence);
        entries.add(made);
        file.append(json.apply(made));
        return made;
    }

    /** A copy of every entry so far. */
    synchronized List<E> entries() {
        return List.copyOf(entries);
    }

    @Override
    public synchronized void close() {
        file.close();
    }
}
