package dev.nightshift.spec.load;

import dev.nightshift.spec.yaml.Location;
import dev.nightshift.spec.yaml.YamlError;

/**
 * One problem with the input, where it is and what is wrong.
 *
 * @param file   relative to the directory (or the file) that was loaded
 * @param line   1-based
 * @param column 1-based
 * @param path   the field, e.g. {@code spec.maxSurge}; empty for a problem with the whole document
 */
public record SpecError(String file, int line, int column, String path, String message) {

    public static SpecError at(Location where, String path, String message) {
        return new SpecError(where.file(), where.line(), where.column(), path, message);
    }

    /** A problem the YAML reader found (syntax, limits, a field's type, an unknown field), as a spec error. */
    public static SpecError of(YamlError e) {
        return new SpecError(e.file(), e.line(), e.column(), e.path(), e.message());
    }

    @Override
    public String toString() {
        return file + ":" + line + ":" + column + ": " + (path.isEmpty() ? "" : path + ": ") + message;
    }
}
